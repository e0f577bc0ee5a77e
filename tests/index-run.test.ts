// `index-run`, the detached catch-up a hook or a server starts: it builds the indexes last, at the lowest
// priority, so a large build does not slow the hooks and sessions running beside it on the same cores.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { tempPeerpost } from "./helpers/temp.js";
import { oldLog } from "./helpers/old-log.js";
import { CLI } from "./helpers/mcp.js";

/** The nice value of a running process (field 19 of /proc/PID/stat), or undefined once it is gone. */
function niceOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may hold spaces.
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
  } catch {
    return undefined;
  }
}

test("index-run builds a large log's index at the lowest priority, and the index is complete", async (t) => {
  const { home, stateDir, reopen } = tempPeerpost(t);
  oldLog(reopen().mailbox.log.path, 24 * 1024 * 1024);
  assert.equal(reopen().mailbox.indexLag().farBehind, true);
  const child = spawn(process.execPath, [CLI, "index-run"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, PEERPOST_HOME: stateDir }, stdio: "ignore" });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const seen = new Set<number>();
  let running = true;
  void exited.then(() => (running = false));
  while (running) {
    const nice = niceOf(child.pid!);
    if (nice !== undefined) seen.add(nice);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  assert.equal(await exited, 0);
  assert.ok(seen.has(19), `the build ran at nice 19 (seen: ${[...seen].join(", ")})`);
  assert.equal(reopen().mailbox.indexLag().farBehind, false, "the index covers the log");
});
