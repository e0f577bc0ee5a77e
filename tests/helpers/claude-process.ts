// A stand-in running `claude` process (node started through a link named `claude`, so hooks and servers
// take it for their host) that runs peerpost's built Claude Code hooks as its children on demand, as the
// real one does for each session it runs: a SessionStart for its first session, another after /clear.
import type { TestContext } from "node:test";
import { spawn } from "node:child_process";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { onCleanup, tempDir } from "./temp.js";
import { hookBundle } from "./hooks.js";

export interface ClaudeProcess {
  pid: number;
  hook(event: string, input: object, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }>;
}

const SCRIPT = `
const { spawn } = require("node:child_process");
const lines = require("node:readline").createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const { n, hooks, event, input, env } = JSON.parse(line);
  const child = spawn(process.execPath, [hooks, event], { env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "", stderr = "";
  child.stdout.on("data", (c) => (stdout += c));
  child.stderr.on("data", (c) => (stderr += c));
  child.on("close", (code) => process.stdout.write(JSON.stringify({ n, code, stdout, stderr }) + "\\n"));
  child.stdin.end(JSON.stringify(input));
});`;

export function claudeProcess(t: TestContext): ClaudeProcess {
  const dir = tempDir(t, "peerpost-claude-");
  const link = join(dir, "claude");
  symlinkSync(process.execPath, link);
  const host = spawn(link, ["-e", SCRIPT], { stdio: ["pipe", "pipe", "inherit"] });
  onCleanup(t, () => void host.kill());
  const waiting = new Map<number, (result: { code: number; stdout: string; stderr: string }) => void>();
  createInterface({ input: host.stdout! }).on("line", (line) => {
    const { n, ...result } = JSON.parse(line) as { n: number; code: number; stdout: string; stderr: string };
    waiting.get(n)?.(result);
  });
  let next = 0;
  return {
    pid: host.pid!,
    hook: (event, input, env) =>
      new Promise((resolve) => {
        const n = next++;
        waiting.set(n, resolve);
        host.stdin!.write(JSON.stringify({ n, hooks: hookBundle("claude-code"), event, input, env: { PATH: process.env.PATH ?? "", ...env } }) + "\n");
      }),
  };
}
