// doctor's fix for an archive whose index does not reach its end: "Run `peerpost compact`, or `peerpost
// status` once: each builds it (the latter in the background)". Pasted as written, `peerpost status` (the
// summary, no id) builds it too, and the problem goes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { tempPeerpost, cliEnv, type TestPeerpost } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { CLI } from "./helpers/mcp.js";

const DAY = 86_400_000;

async function doctor(temp: TestPeerpost): Promise<{ problems: Array<{ problem: string; fix: string }> }> {
  const result = await collect(spawn(process.execPath, [CLI, "doctor", "--json"], { env: cliEnv(temp), stdio: ["ignore", "pipe", "pipe"] }));
  return JSON.parse(result.stdout) as { problems: Array<{ problem: string; fix: string }> };
}

test("the command doctor gives for an archive index that does not reach its end builds it", async (t) => {
  const temp = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const { peerpost, clock, stateDir } = temp;
  for (let i = 0; i < 20; i++) {
    const { message } = await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: `old #${i}`, anticipation: "reply" });
    await peerpost.mailbox.resolve({ id: message.id, by: "codex:b", resolution: "done" });
  }
  clock.now += 40 * DAY;
  assert.ok((await peerpost.mailbox.compact()).movedMessages > 0);
  // An archive from before its index (or one deleted: derived data, safe to delete).
  rmSync(join(stateDir, "index", "archive"), { recursive: true, force: true });
  const before = await doctor(temp);
  const problem = before.problems.find((item) => item.problem.includes("archive's index"));
  assert.ok(problem, JSON.stringify(before.problems));
  assert.match(problem.fix, /`peerpost status` once/);
  // The fix as written: `peerpost status`, once; then let its background run finish.
  const status = await collect(spawn(process.execPath, [CLI, "status"], { env: cliEnv(temp), stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(status.code, 0, status.stderr);
  await new Promise((resolve) => setTimeout(resolve, 4000));
  const after = await doctor(temp);
  assert.deepEqual(after.problems.filter((item) => item.problem.includes("archive's index")), [], "the problem is gone after the fix doctor gave");
});
