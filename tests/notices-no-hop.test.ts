// task_unblocked and claim_released are notices of what was done: they continue no conversation. Taken
// as the next hop of the sender's last answer to the same session (a conversation at its last hop), they
// failed hop_limit after the done or the release was written: the holder or assignee never told, and
// every retry failing the same (a task) or finding nothing left to release (a claim).
import { test } from "node:test";
import assert from "node:assert/strict";
import { tempRepo } from "./helpers/repo.js";
import { tempPeerpost } from "./helpers/temp.js";
import { claimPaths, listClaims, releasePaths } from "../core/claims/claims.js";
import { createTask, updateTask } from "../core/tasks/tasks.js";

test("a forced release right after the person answered the holder at a conversation's last hop: released, and the holder told", async (t) => {
  const repo = tempRepo(t);
  const { peerpost } = tempPeerpost(t, { PEERPOST_MAX_HOPS: "2" });
  const alice = "claude:alice";
  await claimPaths(peerpost, { holder: alice, cwd: repo, paths: ["src/**"] });
  // Alice asks the person (hop 1); the person answers (hop 2, the last).
  const { message: asked } = await peerpost.mailbox.send({ from: alice, fromVerified: true, to: "user:pat", body: "may I refactor src?", anticipation: "reply" });
  await peerpost.mailbox.markRead("user:pat", [asked.id]);
  const { reply } = await peerpost.mailbox.resolve({ id: asked.id, by: "user:pat", resolution: "reply", text: "no, stop: I take src back" });
  assert.equal(reply!.hop, 2);
  await releasePaths(peerpost, { by: "user:pat", cwd: repo, paths: ["src/**"], force: true });
  assert.equal(listClaims(peerpost).claims.length, 0);
  assert.equal(peerpost.mailbox.inbox(alice).filter((entry) => entry.body.startsWith("claim_released:")).length, 1);
});

test("a done right after the taker answered the waiting task's assignee at a conversation's last hop: answered ok, and the assignee told", async (t) => {
  const { peerpost } = tempPeerpost(t, { PEERPOST_MAX_HOPS: "2" });
  const [alice, bob, carol] = ["claude:alice", "codex:bob", "codex:carol"];
  const a = await createTask(peerpost, { by: alice, title: "A" });
  const b = await createTask(peerpost, { by: alice, title: "B", assignee: carol, after: [a.id] });
  await updateTask(peerpost, { id: a.id, by: bob, status: "in_progress" });
  // Carol asks bob (hop 1); bob answers (hop 2, the last).
  const { message: asked } = await peerpost.mailbox.send({ from: carol, fromVerified: true, to: bob, body: "is A close?", anticipation: "reply" });
  await peerpost.mailbox.markRead(bob, [asked.id]);
  await peerpost.mailbox.resolve({ id: asked.id, by: bob, resolution: "reply", text: "minutes away" });
  await updateTask(peerpost, { id: a.id, by: bob, status: "done", note: "A is done" });
  assert.equal(peerpost.mailbox.inbox(carol).filter((entry) => entry.body.startsWith(`task_unblocked: task ${b.id}`)).length, 1);
});
