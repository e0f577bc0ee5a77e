// A compaction that outlives its lock, and a log that is no file. A compaction runs synchronously and
// cannot renew its lock: past PEERPOST_LOCK_STALE_MS another process takes the lock over. A second
// compaction must then leave the running one's files alone, and every archived message must stay
// readable. A FIFO in place of a log is refused at once, not waited on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, existsSync, mkdirSync } from "node:fs";
import { execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { tempDir, tempPeerpost } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { cli } from "./helpers/cli.js";
import { CLI } from "./helpers/mcp.js";

const DAY = 86_400_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("a compaction that took over a stale lock from a running one refuses, and no archived message is lost", { timeout: 180_000 }, async (t) => {
  const { peerpost, clock, stateDir, home } = tempPeerpost(t);
  const now = clock.now;
  clock.now = now - 60 * DAY;
  const done = (await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "x", anticipation: "reply" })).message;
  await peerpost.mailbox.resolve({ id: done.id, by: "codex:b", resolution: "done" });
  // One 32 MiB corrupt line makes the first compaction take seconds, as a few hundred MiB of mail does.
  appendFileSync(join(stateDir, "mailbox.jsonl"), "x".repeat(32 << 20) + "\n");
  await peerpost.backend.close();
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(now), PEERPOST_LOCK_STALE_MS: "2000" };
  const first = cli(env, "compact", "--json");
  while (!existsSync(join(stateDir, "mailbox.jsonl.compacting.json"))) await sleep(5);
  await sleep(3000);
  const second = await cli(env, "compact", "--json");
  const firstDone = await first;
  assert.equal(firstDone.code, 0, firstDone.stdout.slice(0, 400) + firstDone.stderr);
  assert.equal(second.code, 1, second.stdout);
  assert.match(second.stdout, /"code": "state_io_error"[^]*Another compaction of [^ ]*mailbox\.jsonl is still running/);
  assert.equal((await cli(env, "compact")).code, 0, "a compaction after it recovers nothing and keeps the archive");
  const status = await cli(env, "status", done.id);
  assert.equal(status.code, 0, status.stderr);
});

test("a FIFO in place of the mailbox is refused as no regular file by every reader, none waits on it", { timeout: 60_000 }, async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  mkdirSync(stateDir, { mode: 0o700 });
  execFileSync("mkfifo", ["-m", "600", join(stateDir, "mailbox.jsonl")]);
  const outcomes: Record<string, string> = {};
  for (const args of [["health"], ["inbox", "codex:b"], ["tail"]]) {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: "/usr/bin:/bin", HOME: home, PEERPOST_HOME: stateDir }, stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), 8000);
    const result = await collect(child);
    clearTimeout(timer);
    outcomes[args[0]!] = result.signal ? "hung" : /regular file/.test(result.stderr + result.stdout) ? "refused" : `exit ${result.code}: ${(result.stdout + result.stderr).split("\n")[0]}`;
  }
  assert.deepEqual(outcomes, { health: "refused", inbox: "refused", tail: "refused" });
});
