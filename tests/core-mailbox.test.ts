// The mailbox fold through the real store: every status transition, late resolution, wrong recipient,
// double resolution, idempotent send and the hop budget.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { tempPeerpost } from "./helpers/temp.js";
import { testEachBackend } from "./helpers/backends.js";
import { PeerpostError } from "../core/common/errors.js";
import { changeRole } from "../core/roles/roles.js";

const A = "claude:alice";
const B = "codex:bob";
const C = "copilot:carol";

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<PeerpostError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof PeerpostError, `expected a PeerpostError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.ok((error.toValue().hint?.length ?? 0) > 10 && (error.toValue("cli").hint?.length ?? 0) > 10, "every error carries a hint for each reader");
    return error;
  }
  assert.fail(`expected ${code}`);
}

testEachBackend("a reply request goes queued → delivered → read → replied, and the reply lands in the sender's inbox", async (t, backend) => {
  const { peerpost } = tempPeerpost(t, backend);
  const { mailbox } = peerpost;
  const { message, created } = await mailbox.send({ from: A, fromVerified: true, to: B, body: "review PR 12?", anticipation: "reply" });
  assert.equal(created, true);
  assert.equal(mailbox.status(message), "queued");
  assert.equal(await mailbox.markDelivered(B, message.id, "channel"), true);
  assert.equal(mailbox.status(mailbox.view(B).state.messages[message.id]!), "delivered");
  const inbox = mailbox.inbox(B);
  assert.equal(inbox.length, 1);
  assert.equal(inbox[0]!.body, "review PR 12?");
  assert.deepEqual(await mailbox.markRead(B, [message.id]), [message.id]);
  assert.equal(mailbox.inbox(B).length, 0, "read messages leave the unread inbox");
  assert.equal(mailbox.inbox(B, { unreadOnly: false }).length, 1);
  assert.equal(mailbox.status(mailbox.view(B).state.messages[message.id]!), "read");
  const { reply } = await mailbox.resolve({ id: message.id, by: B, resolution: "reply", text: "LGTM" });
  assert.ok(reply);
  assert.equal(reply.to, A);
  assert.equal(reply.inReplyTo, message.id);
  assert.equal(reply.conversationId, message.conversationId);
  assert.equal(reply.hop, 2);
  const seenByA = mailbox.view(A).state.messages[message.id]!;
  assert.equal(mailbox.status(seenByA), "replied");
  assert.equal(seenByA.resolved?.replyId, reply.id);
  assert.deepEqual(mailbox.inbox(A).map((entry) => entry.body), ["LGTM"]);
});

testEachBackend("a long-lived process looks a message up as it stands now, after another process resolved it, and its thread with the reply", async (t, backend) => {
  const { peerpost, reopen } = tempPeerpost(t, backend);
  const { message } = await peerpost.mailbox.send({ from: A, fromVerified: true, to: B, body: "ship it?", anticipation: "reply" });
  assert.equal(peerpost.mailbox.find(message.id)?.resolved, undefined);
  assert.deepEqual(peerpost.mailbox.thread(message.conversationId).map((entry) => entry.id), [message.id]);
  const { reply } = await reopen().mailbox.resolve({ id: message.id, by: B, resolution: "reply", text: "shipped" });
  assert.equal(peerpost.mailbox.find(message.id)?.resolved?.resolution, "reply", "the lookup sees the other process's resolution");
  assert.deepEqual(peerpost.mailbox.thread(message.conversationId).map((entry) => entry.id), [message.id, reply!.id]);
});

testEachBackend("a thread holds what a role's former holder answered before the role moved on", async (t, backend) => {
  const { peerpost } = tempPeerpost(t, backend);
  for (const address of ["claude:x", "codex:y", "grok:h"]) await peerpost.sessions.register({ host: "claude-code", address, sessionId: address.split(":")[1]!, source: "startup", roles: [] });
  await changeRole(peerpost, { role: "rev", holder: "claude:x", by: "user:pat" });
  const { message: request } = await peerpost.mailbox.send({ from: A, fromVerified: true, to: "role:rev", via: "role:rev", body: "review this", anticipation: "reply" });
  const { message: asked } = await peerpost.mailbox.send({ from: "claude:x", fromVerified: true, to: "codex:y", body: "what do you think?", anticipation: "reply", replyToMessageId: request.id });
  const { message: answered } = await peerpost.mailbox.send({ from: "codex:y", fromVerified: true, to: "claude:x", body: "fine by me", replyToMessageId: asked.id });
  await changeRole(peerpost, { role: "rev", holder: "grok:h", by: "user:pat" });
  assert.deepEqual(peerpost.mailbox.thread(request.conversationId).map((entry) => entry.id), [request.id, asked.id, answered.id]);
});

testEachBackend("decline and done resolve with their own statuses; decline keeps the reason", async (t, backend) => {
  const { peerpost } = tempPeerpost(t, backend);
  const { mailbox } = peerpost;
  const one = (await mailbox.send({ from: A, fromVerified: true, to: B, body: "one", anticipation: "action" })).message;
  const two = (await mailbox.send({ from: A, fromVerified: true, to: B, body: "two", anticipation: "reply" })).message;
  await mailbox.resolve({ id: one.id, by: B, resolution: "decline", text: "out of scope" });
  await mailbox.resolve({ id: two.id, by: B, resolution: "done" });
  const view = mailbox.view(A);
  assert.equal(mailbox.status(view.state.messages[one.id]!), "declined");
  assert.equal(view.state.messages[one.id]!.resolved?.reason, "out of scope");
  assert.equal(mailbox.status(view.state.messages[two.id]!), "done");
  assert.equal(mailbox.inbox(A).length, 0, "decline and done send no reply message");
});

testEachBackend("only the recipient resolves, and only once", async (t, backend) => {
  const { peerpost } = tempPeerpost(t, backend);
  const { mailbox } = peerpost;
  const { message } = await mailbox.send({ from: A, fromVerified: true, to: B, body: "x", anticipation: "reply" });
  await rejectsWith(mailbox.resolve({ id: message.id, by: A, resolution: "done" }), "wrong_recipient");
  await rejectsWith(mailbox.resolve({ id: message.id, by: C, resolution: "done" }), "wrong_recipient");
  await mailbox.resolve({ id: message.id, by: B, resolution: "done" });
  await rejectsWith(mailbox.resolve({ id: message.id, by: B, resolution: "reply", text: "late" }), "already_resolved");
  await rejectsWith(mailbox.resolve({ id: "01ARZ3NDEKTSV4RRFFQ69G5FAV", by: B, resolution: "done" }), "not_found");
  await rejectsWith(mailbox.resolve({ id: message.id, by: B, resolution: "reply" }), "invalid_arguments");
});

testEachBackend("reminders make an unanswered request unresolved after the cap plus one interval; a late reply still wins", async (t, backend) => {
  const { peerpost, clock } = tempPeerpost(t, { ...backend, PEERPOST_REMINDER_INTERVAL_MS: "30000", PEERPOST_REMINDER_LIMIT: "2" });
  const { mailbox } = peerpost;
  const { message } = await mailbox.send({ from: A, fromVerified: true, to: B, body: "ping", anticipation: "reply" });
  assert.equal(await mailbox.remind(B, message.id, "hook"), undefined, "no reminder before the message was read");
  await mailbox.markRead(B, [message.id]);
  assert.equal(await mailbox.remind(B, message.id, "hook"), undefined, "no reminder within the first interval");
  clock.now += 30_000;
  assert.equal(await mailbox.remind(B, message.id, "hook"), 1);
  assert.equal(await mailbox.remind(B, message.id, "hook"), undefined, "at most one per interval");
  clock.now += 30_000;
  assert.equal(await mailbox.remind(B, message.id, "hook"), 2);
  clock.now += 29_999;
  assert.equal(await mailbox.remind(B, message.id, "hook"), undefined, "the cap is reached");
  assert.equal(mailbox.status(mailbox.view(A).state.messages[message.id]!), "read", "not unresolved before one more interval");
  clock.now += 1;
  assert.equal(mailbox.status(mailbox.view(A).state.messages[message.id]!), "unresolved");
  await mailbox.resolve({ id: message.id, by: B, resolution: "reply", text: "sorry, late" });
  assert.equal(mailbox.status(mailbox.view(A).state.messages[message.id]!), "replied");
});

testEachBackend("fyi messages are never reminded and never become unresolved", async (t, backend) => {
  const { peerpost, clock } = tempPeerpost(t, { ...backend, PEERPOST_REMINDER_LIMIT: "1" });
  const { mailbox } = peerpost;
  const { message } = await mailbox.send({ from: A, fromVerified: true, to: B, body: "fyi" });
  await mailbox.markRead(B, [message.id]);
  clock.now += 10 * 60_000;
  assert.equal(await mailbox.remind(B, message.id, "hook"), undefined);
  assert.equal(mailbox.status(mailbox.view(A).state.messages[message.id]!), "read");
});

testEachBackend("past replyBy a message is expired, and a late resolution is still accepted", async (t, backend) => {
  const { peerpost, clock } = tempPeerpost(t, backend);
  const { mailbox } = peerpost;
  const replyBy = new Date(clock.now + 60_000).toISOString();
  const { message } = await mailbox.send({ from: A, fromVerified: true, to: B, body: "by noon", anticipation: "reply", replyBy });
  clock.now += 60_000;
  assert.equal(mailbox.status(mailbox.view(A).state.messages[message.id]!), "queued");
  clock.now += 1;
  assert.equal(mailbox.status(mailbox.view(A).state.messages[message.id]!), "expired");
  await mailbox.markRead(B, [message.id]);
  assert.equal(await mailbox.remind(B, message.id, "hook"), undefined, "expired messages are not reminded");
  await mailbox.resolve({ id: message.id, by: B, resolution: "reply", text: "late but here" });
  assert.equal(mailbox.status(mailbox.view(A).state.messages[message.id]!), "replied");
});

testEachBackend("the same idempotency key from the same sender returns the first message and appends nothing", async (t, backend) => {
  const { peerpost } = tempPeerpost(t, backend);
  const { mailbox } = peerpost;
  const first = await mailbox.send({ from: A, fromVerified: true, to: B, body: "once", idempotencyKey: "k-1" });
  const size = readFileSync(mailbox.log.path).length;
  const again = await mailbox.send({ from: A, fromVerified: true, to: B, body: "once, again", idempotencyKey: "k-1" });
  assert.equal(again.created, false);
  assert.equal(again.message.id, first.message.id);
  assert.equal(readFileSync(mailbox.log.path).length, size, "nothing appended");
  const other = await mailbox.send({ from: C, fromVerified: true, to: B, body: "same key, other sender", idempotencyKey: "k-1" });
  assert.equal(other.created, true, "keys are per sender");
  assert.equal(mailbox.inbox(B).length, 2);
});

testEachBackend("concurrent sends with one idempotency key from two processes' stores create one message", async (t, backend) => {
  const setup = tempPeerpost(t, backend);
  const stores = [setup.peerpost, setup.reopen(), setup.reopen()];
  const results = await Promise.all(stores.map((store, i) => store.mailbox.send({ from: A, fromVerified: true, to: B, body: `try ${i}`, idempotencyKey: "same" })));
  assert.equal(new Set(results.map((result) => result.message.id)).size, 1);
  assert.equal(results.filter((result) => result.created).length, 1);
  assert.equal(setup.reopen().mailbox.inbox(B).length, 1);
});

testEachBackend("the hop budget stops a five-hop chain at the fifth hop", async (t, backend) => {
  const { peerpost } = tempPeerpost(t, backend);
  const { mailbox } = peerpost;
  let last = (await mailbox.send({ from: A, fromVerified: true, to: B, body: "hop 1", anticipation: "reply" })).message;
  const order = [B, A, B, A];
  for (let hop = 2; hop <= 4; hop++) {
    const from = order[hop - 2]!;
    const to = from === A ? B : A;
    if (hop === 4) {
      // The last hop cannot ask for an answer: none could be sent back.
      const asking = await rejectsWith(mailbox.send({ from, fromVerified: true, to, body: "hop 4 asking", replyToMessageId: last.id, anticipation: "reply" }), "hop_limit");
      assert.equal(asking.details?.hop, 4);
    }
    last = (await mailbox.send({ from, fromVerified: true, to, body: `hop ${hop}`, replyToMessageId: last.id, anticipation: hop === 4 ? "fyi" : "reply" })).message;
    assert.equal(last.hop, hop);
    assert.equal(last.conversationId, (mailbox.thread(last.conversationId)[0]!).id);
  }
  const error = await rejectsWith(mailbox.send({ from: A, fromVerified: true, to: B, body: "hop 5", replyToMessageId: last.id }), "hop_limit");
  assert.equal(error.details?.hop, 5);
  assert.equal(last.to, A);
  await rejectsWith(mailbox.resolve({ id: last.id, by: A, resolution: "reply", text: "hop 5 as a reply" }), "hop_limit");
  assert.equal(mailbox.thread(last.conversationId).length, 4);
  const fresh = await mailbox.send({ from: B, fromVerified: true, to: A, body: "a new conversation" });
  assert.equal(fresh.message.hop, 1);
});

for (const resolution of ["reply", "done", "decline"] as const)
  testEachBackend(`answer (${resolution}), then ask back: the new request continues the conversation within a turn's length, so a ping-pong runs out of hops`, async (t, backend) => {
  const { peerpost, clock } = tempPeerpost(t, { ...backend, PEERPOST_MAX_HOPS: "4" });
  const { mailbox } = peerpost;
  let request = (await mailbox.send({ from: A, fromVerified: true, to: B, body: "q0", anticipation: "reply" })).message;
  const hops = [request.hop];
  let stopped: PeerpostError | undefined;
  for (let round = 1; round <= 12 && stopped === undefined; round++) {
    const [me, peer] = round % 2 === 1 ? [B, A] : [A, B];
    clock.now += 1000;
    // The turn the request woke: it reads it, answers it (or marks it done, or declines it), then asks a follow-up (a new message).
    await mailbox.markRead(me, [request.id]);
    await mailbox.resolve({ id: request.id, by: me, resolution, text: `a${round}` });
    try {
      request = (await mailbox.send({ from: me, fromVerified: true, to: peer, body: `q${round}`, anticipation: "reply" })).message;
      hops.push(request.hop);
    } catch (error) {
      stopped = error as PeerpostError;
    }
  }
  assert.equal(stopped?.code, "hop_limit", `hops ${hops.join(",")}`);
  // A request hop 1 asked, answered at hop 2: the ask-back is hop 3, whose answer is the last hop. Closed
  // with no message, each ask-back is one hop after the request it closed.
  assert.deepEqual(hops, resolution === "reply" ? [1, 3] : [1, 2, 3]);
  // Past a turn's length (PEERPOST_WAKE_TIMEOUT_MS) a new message starts a conversation of its own.
  clock.now += 600_001;
  const answered = (await mailbox.send({ from: A, fromVerified: true, to: B, body: "later", anticipation: "reply" })).message;
  assert.equal(answered.hop, 1);
  await mailbox.markRead(B, [answered.id]);
  await mailbox.resolve({ id: answered.id, by: B, resolution, text: "done" });
  clock.now += 600_001;
  assert.equal((await mailbox.send({ from: B, fromVerified: true, to: A, body: "a new topic", anticipation: "reply" })).message.hop, 1);
  // And a message to someone else is no ask-back.
  assert.equal((await mailbox.send({ from: B, fromVerified: true, to: C, body: "unrelated", anticipation: "reply" })).message.hop, 1);
});

testEachBackend("self-sends are refused unless allowed; bodies are limited to 64 KiB of UTF-8", async (t, backend) => {
  const { peerpost } = tempPeerpost(t, backend);
  const { mailbox } = peerpost;
  await rejectsWith(mailbox.send({ from: A, fromVerified: true, to: A, body: "me" }), "invalid_arguments");
  assert.equal((await mailbox.send({ from: A, fromVerified: true, to: A, body: "me", allowSelf: true })).created, true);
  const exact = "x".repeat(64 * 1024);
  assert.equal((await mailbox.send({ from: A, fromVerified: true, to: B, body: exact })).message.bodyBytes, 65536);
  await rejectsWith(mailbox.send({ from: A, fromVerified: true, to: B, body: exact + "x" }), "body_too_large");
  // 'é' is two bytes: 32768 of them are exactly 64 KiB, one more is over.
  const multibyte = "é".repeat(32768);
  assert.equal((await mailbox.send({ from: A, fromVerified: true, to: B, body: multibyte })).message.bodyBytes, 65536);
  await rejectsWith(mailbox.send({ from: A, fromVerified: true, to: B, body: multibyte + "é" }), "body_too_large");
  const emoji = "😀".repeat(16384);
  assert.equal((await mailbox.send({ from: A, fromVerified: true, to: B, body: emoji })).message.bodyBytes, 65536);
  await rejectsWith(mailbox.send({ from: A, fromVerified: true, to: B, body: emoji + "a" }), "body_too_large");
  const bodies = mailbox.inbox(B).map((entry) => entry.body);
  assert.deepEqual(bodies, [exact, multibyte, emoji]);
  await rejectsWith(mailbox.send({ from: A, fromVerified: true, to: "claude:../../etc/passwd", body: "x" }), "invalid_arguments");
});

testEachBackend("delivery is claimed once across stores; markRead skips what was read", async (t, backend) => {
  const setup = tempPeerpost(t, backend);
  const { message } = await setup.peerpost.mailbox.send({ from: A, fromVerified: true, to: B, body: "push me" });
  const stores = [setup.peerpost, setup.reopen(), setup.reopen(), setup.reopen()];
  const claims = await Promise.all(stores.map((store) => store.mailbox.markDelivered(B, message.id, "channel")));
  assert.equal(claims.filter(Boolean).length, 1);
  assert.equal(await setup.reopen().mailbox.markDelivered(B, message.id, "channel"), false, "not again after a restart");
  assert.deepEqual(await setup.peerpost.mailbox.markRead(B, [message.id]), [message.id]);
  assert.deepEqual(await setup.reopen().mailbox.markRead(B, [message.id]), []);
  assert.equal(await setup.peerpost.mailbox.markDelivered(A, message.id, "channel"), false, "only to its recipient");
});
