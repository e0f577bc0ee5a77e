// `index-run` runs one at a time however many ask at once, and a log its compaction cannot shrink (records
// too young to move) does not start a run at every `peerpost status`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { tempPeerpost, cliEnv } from "./helpers/temp.js";
import { oldLog } from "./helpers/old-log.js";
import { collect } from "./helpers/children.js";
import { CLI } from "./helpers/mcp.js";
import { catchUpDetached } from "../core/upkeep/index-run.js";

/** The pids of live `index-run` processes on `stateDir`, from /proc. */
function indexRuns(stateDir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").includes("index-run")) continue;
      if (readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(`PEERPOST_HOME=${stateDir}`)) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** Watches the runs on `stateDir` until none is left (or `quietMs` passed with none): every pid seen, and the most alive at once. */
async function watchRuns(stateDir: string, quietMs = 1000): Promise<{ seen: Set<number>; atOnce: number }> {
  const seen = new Set<number>();
  let atOnce = 0;
  for (let waited = 0; ; waited += 20) {
    const now = indexRuns(stateDir);
    now.forEach((pid) => seen.add(pid));
    atOnce = Math.max(atOnce, now.length);
    if (now.length === 0 && (seen.size > 0 || waited > quietMs)) return { seen, atOnce };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test("two starts moments apart (two hooks, a server and a hook) start one index-run", async (t) => {
  const temp = tempPeerpost(t);
  oldLog(temp.reopen().mailbox.log.path, 24 * 1024 * 1024);
  const peerpost = temp.reopen();
  const first = catchUpDetached(peerpost, CLI);
  const second = catchUpDetached(peerpost, CLI);
  const { atOnce } = await watchRuns(temp.stateDir);
  assert.deepEqual([first, second, atOnce], [true, false, 1]);
});

test("a log past its compaction size that compaction cannot shrink does not start an index-run at every status", async (t) => {
  const temp = tempPeerpost(t, { PEERPOST_LOG_COMPACT_AT_BYTES: "65536" });
  const { peerpost, stateDir } = temp;
  // Every registry line a different session's latest state: nothing for a compaction to drop.
  for (let s = 0; (peerpost.sessions.log.identity()?.size ?? 0) < 80_000; s++)
    await peerpost.sessions.register({ host: "claude-code", address: `claude:s${s}`, sessionId: `s${s}`, source: "server" }, { eventual: true });
  const env = cliEnv(temp, { PEERPOST_LOG_COMPACT_AT_BYTES: "65536" });
  for (let i = 0; i < 3; i++) {
    await collect(spawn(process.execPath, [CLI, "status", "01JF3Q0M9C6R2S3T4V5W6X7Y8Z", "--json"], { env, stdio: ["ignore", "pipe", "pipe"] }));
    assert.equal((await watchRuns(stateDir)).seen.size, 0, `status ${i} started an index-run`);
  }
});
