// A live `peerpost tail` as a child process.
import type { TestContext } from "node:test";
import { spawn } from "node:child_process";
import { onCleanup } from "./temp.js";
import { collect } from "./children.js";
import { CLI } from "./mcp.js";

/** `peerpost tail` (by default `--from-start --json`) as a child: what it printed and warned so far, and the bodies of its msg lines matching `pattern` (with --json). */
export function liveTail(t: TestContext, env: Record<string, string>, args: string[] = ["--from-start", "--json"]) {
  const child = spawn(process.execPath, [CLI, "tail", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  onCleanup(t, () => child.kill("SIGKILL"));
  const out = { printed: "", warned: "" };
  child.stdout.on("data", (chunk: Buffer) => (out.printed += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (out.warned += chunk.toString("utf8")));
  const bodies = (pattern: RegExp) =>
    out.printed.trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as { type: string; body?: string }).filter((record) => record.type === "msg" && pattern.test(record.body ?? "")).map((record) => record.body);
  const stop = async () => {
    child.kill("SIGINT");
    await collect(child);
  };
  return { child, out, bodies, stop };
}
