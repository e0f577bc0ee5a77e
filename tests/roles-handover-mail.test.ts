// Role mail across a handover, and who may stand for a role: a former holder's failed push gives back only
// its own delivery claim; the new holder's turn end is told of a request handed to it; a role is never a
// sender (an answer to it would reach nobody); and under `enforce` an ended PEERPOST_ROLES holder is
// reached by its address, as role:<name> reaches only live holders.
// A holder whose procedure-carrying message moved away unread is shown the procedure again.
// Clearing a role that sessions took from PEERPOST_ROLES says so, and names them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tempPeerpost } from "./helpers/temp.js";
import { changeRole } from "../core/roles/roles.js";
import { checkDirectCoordination } from "../core/roles/enforcement.js";
import { resolveRecipient } from "../core/sessions/recipients.js";
import { PeerpostError } from "../core/common/errors.js";
import type { Peerpost } from "../core/peerpost.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { testEachBackend } from "./helpers/backends.js";

const A = "claude:alice";
const B = "codex:bob";
const C = "copilot:carol";

async function threeSessions(peerpost: Peerpost): Promise<void> {
  for (const [address, host] of [[A, "claude-code"], [B, "codex"], [C, "copilot"]] as const)
    await peerpost.sessions.register({ host, address, sessionId: address.split(":")[1]!, source: "startup" });
}

/** A request to role:reviewer, held by Bob. */
async function reviewRequest(peerpost: Peerpost): Promise<string> {
  await changeRole(peerpost, { role: "reviewer", holder: B, by: "user:pat" });
  const { message } = await peerpost.mailbox.send({ from: A, fromVerified: true, to: B, via: "role:reviewer", body: "review this", anticipation: "reply" });
  return message.id;
}

test("a former holder's failed push does not give back the new holder's delivery: the request is pushed to the new holder once", async (t) => {
  const { peerpost, clock } = tempPeerpost(t);
  await threeSessions(peerpost);
  const { mailbox } = peerpost;
  const id = await reviewRequest(peerpost);
  // Bob's push claims it and starts delivering (slowly); meanwhile the role moves, and Carol's push delivers it.
  assert.equal(await mailbox.markDelivered(B, id, "channel"), true);
  clock.now += 1000;
  await changeRole(peerpost, { role: "reviewer", holder: C, by: "user:pat" });
  assert.equal(await mailbox.markDelivered(C, id, "channel"), true);
  // Bob's delivery fails: his push gives back its claim, which is no longer his.
  assert.equal(await mailbox.releaseDelivery(B, id, "channel"), false);
  assert.equal(mailbox.view(C).state.messages[id]!.delivered?.via, "channel", "Carol's delivery stands");
  assert.equal(await mailbox.markDelivered(C, id, "channel"), false, "Carol is not pushed the same request twice");
});

test("the new holder's turn end is told of a request handed over to it, though the former holder's was", async (t) => {
  const { peerpost, clock } = tempPeerpost(t);
  await threeSessions(peerpost);
  const { mailbox } = peerpost;
  const id = await reviewRequest(peerpost);
  // Bob's Stop hook held his turn for it once; Bob stopped anyway.
  assert.deepEqual(await mailbox.markNoticed(B, [id], "stop"), [id]);
  clock.now += 1000;
  await changeRole(peerpost, { role: "reviewer", holder: C, by: "user:pat" });
  const moved = mailbox.view(C).state.messages[id]!;
  assert.equal(moved.to, C);
  assert.equal(moved.read, undefined);
  assert.deepEqual(await mailbox.markNoticed(C, [id], "stop"), [id], "Carol's turn end holds for the request handed to her");
});

test("a role is refused as a sender: the answer would go to the bare role, which no holder reads", async (t) => {
  const { peerpost } = tempPeerpost(t);
  await threeSessions(peerpost);
  await changeRole(peerpost, { role: "lead", holder: C, by: "user:pat" });
  await assert.rejects(peerpost.mailbox.send({ from: "role:lead", fromVerified: false, to: B, body: "status?", anticipation: "reply" }), (error) => {
    assert.ok(error instanceof PeerpostError);
    assert.equal(error.code, "invalid_arguments");
    assert.equal(error.details?.field, "from");
    return true;
  });
  assert.equal(peerpost.mailbox.inbox(B).length, 0, "nothing stored");
});

test("under enforce, an ended PEERPOST_ROLES holder is reached by its address: role:<name> reaches only live holders", async (t) => {
  const { peerpost } = tempPeerpost(t, { PEERPOST_ROLE_ENFORCEMENT: "enforce" });
  await peerpost.sessions.register({ host: "claude-code", address: A, sessionId: "alice", source: "startup" });
  // Bob ran with PEERPOST_ROLES=reviewer; his host process has ended (a pid that is not running).
  await peerpost.sessions.register({ host: "codex", address: B, sessionId: "bob", hostPid: 2_147_000_000, source: "server", roles: ["reviewer"] });
  assert.equal(peerpost.sessions.get(B)!.alive, false);
  await changeRole(peerpost, { role: "lead", holder: A, by: "user:pat" });
  await assert.rejects(resolveRecipient(peerpost, "role:reviewer"), (error) => error instanceof PeerpostError && error.code === "not_found");
  const recipient = await resolveRecipient(peerpost, B);
  assert.doesNotThrow(() => checkDirectCoordination(peerpost, A, B, recipient.address), "the mail waits for Bob");
});

testEachBackend("a holder whose procedure-carrying message moved away unread is shown the procedure with its next role message", async (t, backend) => {
  const { peerpost, home } = tempPeerpost(t, backend);
  for (const [address, host] of [["claude:alice", "claude-code"], ["codex:bob", "codex"], ["copilot:carol", "copilot"]] as const)
    await peerpost.sessions.register({ host, address, sessionId: address.split(":")[1]!, source: "startup", roles: [] });
  const procedureFile = join(home, "review.md");
  writeFileSync(procedureFile, "Run the tests before you approve.\n");
  const { mailbox } = peerpost;
  await changeRole(peerpost, { role: "reviewer", holder: "codex:bob", by: "user:pat", procedureFile });
  // Bob's first request carries the procedure; Bob is away and never reads it, so the person moves the role to Carol.
  const first = await mailbox.send({ from: "claude:alice", fromVerified: true, to: "codex:bob", via: "role:reviewer", body: "review #1", anticipation: "reply" });
  assert.ok(mailbox.view("codex:bob").state.messages[first.message.id]!.procedure, "the first request carries it to bob");
  await changeRole(peerpost, { role: "reviewer", holder: "copilot:carol", by: "user:pat", procedureFile });
  // Carol answers it; then the role goes back to Bob, and a new request comes.
  await mailbox.resolve({ id: first.message.id, by: "copilot:carol", resolution: "done" });
  await changeRole(peerpost, { role: "reviewer", holder: "codex:bob", by: "user:pat", procedureFile });
  const second = await mailbox.send({ from: "claude:alice", fromVerified: true, to: "codex:bob", via: "role:reviewer", body: "review #2", anticipation: "reply" });
  const shown = mailbox.inbox("codex:bob").map((entry) => ({ body: entry.body, procedure: mailbox.procedure(entry.message)?.text ?? null }));
  assert.deepEqual(shown, [{ body: "review #2", procedure: "Run the tests before you approve.\n" }], `bob, who never read #1, is shown the procedure with ${second.message.id}`);
});

test("clearing a role held only through PEERPOST_ROLES says who holds it from there, and changes nothing", async (t) => {
  const { peerpost } = tempPeerpost(t);
  await peerpost.sessions.register({ host: "codex", address: "codex:bob", sessionId: "bob", hostPid: process.pid, source: "server", roles: ["reviewer"] });
  const before = peerpost.mailbox.log.identity()?.size ?? 0;
  await assert.rejects(changeRole(peerpost, { role: "reviewer", by: "user:pat" }), (error: PeerpostError) => {
    assert.equal(error.code, "not_found");
    assert.match(error.message, /codex:bob holds it from PEERPOST_ROLES/);
    assert.deepEqual(error.details?.startedWith, ["codex:bob"]);
    return true;
  });
  await assert.rejects(changeRole(peerpost, { role: "nobody-has-it", by: "user:pat" }), /Nobody holds the role nobody-has-it/);
  assert.equal(peerpost.mailbox.log.identity()?.size ?? 0, before, "nothing was written");
});
