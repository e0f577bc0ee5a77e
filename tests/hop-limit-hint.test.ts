// The hop_limit hint works when followed literally. A message without replyToMessageId that continued a
// conversation on its own (it follows the sender's recent answer to the same recipient) is told so, with
// the message it continued and when a new conversation can start, not to "start a new conversation (no
// replyToMessageId)", which would repeat the same call and the same refusal.
// A request refused at the last hop that continued a conversation on its own names it too. An fyi between
// an answer and the next request continues the conversation: answer, fyi, ask back is no way round the budget.
// Plain fyi notes after an answer always fit: each continues the last, at the last hop at most.
// An fyi sent as a reply between an answer and the next request is no way round the loop guard either, while
// the asker's thanks for an answer does not hold its next question; the hint's "a turn's length" counts from the last note.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir, tempPeerpost } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";

/** claude:alice and codex:bob, each a real MCP server on one state dir. */
async function pair(t: TestContext) {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  return { alice: await connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" }), bob: await connect(t, { ...env, PEERPOST_ADDRESS: "codex:bob" }) };
}

test("the hop_limit hint, followed literally, gets a message sent rather than the same refusal again", async (t) => {
  const { alice, bob } = await pair(t);
  // Four hops: ask, answer, ask back, answer.
  const q1 = await alice.call("message", { to: "codex:bob", message: "Which branch?", anticipation: "reply" });
  await bob.call("read");
  const a1 = await bob.call("reply", { messageId: q1.messageId, resolution: "reply", message: "main" });
  await alice.call("read");
  const q2 = await alice.call("message", { to: "codex:bob", message: "Which commit?", anticipation: "reply", replyToMessageId: a1.replyId });
  assert.equal(q2.hop, 3, JSON.stringify(q2));
  await bob.call("read");
  const a2 = await bob.call("reply", { messageId: q2.messageId, resolution: "reply", message: "HEAD" });
  assert.equal(a2.ok, true, JSON.stringify(a2));

  // Bob sends a new fyi, with no replyToMessageId at all: an fyi always fits, at the last hop.
  const note = await bob.call("message", { to: "claude:alice", message: "Unrelated: the CI is green again." });
  assert.deepEqual([note.ok, note.hop], [true, 4], JSON.stringify(note));
  // Then a new question, with no replyToMessageId either: it continues the conversation, past its hops.
  const refused = await bob.call("message", { to: "claude:alice", message: "Unrelated: may I merge?", anticipation: "reply" });
  assert.equal(refused.ok, false, JSON.stringify(refused));
  const error = refused.error as { code: string; hint: string; details: Record<string, unknown> };
  assert.equal(error.code, "hop_limit");
  assert.equal(error.details.continues, note.messageId);
  // The hint's way out is not "start a new conversation (no replyToMessageId)": Bob sent none, and doing it again gets the same refusal.
  const followed = /start a new conversation \(no replyToMessageId\)/.test(error.hint) ? await bob.call("message", { to: "claude:alice", message: "Unrelated: may I merge?", anticipation: "reply" }) : { ok: true };
  assert.equal(followed.ok, true, `the hint ${JSON.stringify(error.hint)}, followed literally, gives the same refusal: ${JSON.stringify(followed.error)}`);
});

test("a continued request refused at the last hop says which message it continued, and its hint followed literally works", async (t) => {
  const { alice, bob } = await pair(t);
  const q1 = await alice.call("message", { to: "codex:bob", message: "Which branch?", anticipation: "reply" });
  await bob.call("read");
  await bob.call("reply", { messageId: q1.messageId, resolution: "reply", message: "main" });
  // Bob asks back in the same turn: hop 3, a request to alice.
  const back = await bob.call("message", { to: "claude:alice", message: "Which commit do you want?", anticipation: "reply" });
  assert.equal(back.hop, 3, JSON.stringify(back));
  await alice.call("read");
  // Alice, holding bob's open request she read, sends a new request without replyToMessageId: hop 4, refused.
  const refused = await alice.call("message", { to: "codex:bob", message: "Separate question: is CI green?", anticipation: "reply" });
  assert.equal(refused.ok, false, JSON.stringify(refused));
  const error = refused.error as { code: string; hint: string; details: Record<string, unknown> };
  assert.equal(error.code, "hop_limit");
  assert.equal(error.details.continues, back.messageId, `the refusal names the message it continued: ${JSON.stringify(error.details)}`);
  const followed = /start a new conversation \(no replyToMessageId\)/.test(error.hint) ? await alice.call("message", { to: "codex:bob", message: "Separate question: is CI green?", anticipation: "reply" }) : { ok: true };
  assert.equal(followed.ok, true, `the hint ${JSON.stringify(error.hint)}, followed literally, gives the same refusal: ${JSON.stringify(followed.error)}`);
});

for (const note of ["a plain fyi", "an fyi replying to the request answered", "an fyi replying to the sender's own answer"] as const)
  test(`answer, ${note}, ask back: two agents cannot trade new requests without end`, async (t) => {
    const { peerpost, clock } = tempPeerpost(t);
    const { mailbox } = peerpost;
    let request = await mailbox.send({ from: "claude:alice", fromVerified: true, to: "codex:bob", body: "Please check the build.", anticipation: "action" });
    const hops: number[] = [request.message.hop];
    let refused: unknown;
    for (let round = 0; round < 10 && refused === undefined; round++) {
      const asker = request.message.from;
      const me = request.message.to;
      clock.now += 1000;
      await mailbox.markRead(me, [request.message.id]);
      // One turn: answer the request, add a note, then hand work back.
      const { reply } = await mailbox.resolve({ id: request.message.id, by: me, byVerified: true, resolution: "reply", text: "Done." });
      await mailbox.markRead(asker, [reply!.id]);
      const replyTo = note === "a plain fyi" ? undefined : note === "an fyi replying to the request answered" ? request.message.id : reply!.id;
      try {
        await mailbox.send({ from: me, fromVerified: true, to: asker, body: "FYI: I also cleaned the cache.", replyToMessageId: replyTo });
        request = await mailbox.send({ from: me, fromVerified: true, to: asker, body: "Now please check mine.", anticipation: "action" });
        hops.push(request.message.hop);
      } catch (error) {
        refused = error;
      }
    }
    assert.ok(refused !== undefined, `ten rounds of answer, ${note} and a new request, none refused; the requests' hops: ${hops.join(", ")}`);
    assert.equal((refused as { code?: string }).code, "hop_limit");
  });

test("fyi notes after an answer are never refused with hop_limit", async (t) => {
  const { peerpost, clock } = tempPeerpost(t);
  const { mailbox } = peerpost;
  const a = "claude:alice";
  const b = "codex:bob";
  const request = await mailbox.send({ from: a, fromVerified: true, to: b, body: "Please check the build.", anticipation: "reply" });
  clock.now += 1000;
  await mailbox.markRead(b, [request.message.id]);
  await mailbox.resolve({ id: request.message.id, by: b, byVerified: true, resolution: "reply", text: "Done." });
  const notes = ["FYI: I also cleaned the cache.", "FYI: the nightly job is green.", "FYI: I am off for today."];
  for (const body of notes) {
    clock.now += 1000;
    const sent = await mailbox.send({ from: b, fromVerified: true, to: a, body }).then(
      (result) => ({ ok: true as const, hop: result.message.hop }),
      (error: { code?: string; message?: string }) => ({ ok: false as const, error: `${error.code}: ${error.message}` }),
    );
    assert.equal(sent.ok, true, `a plain fyi note (${JSON.stringify(body)}) was refused: ${JSON.stringify(sent)}`);
  }
  // They cost the ask-back no hop: a request after them continues the conversation as one right after the answer does.
  const askBack = await mailbox.send({ from: b, fromVerified: true, to: a, body: "Now check mine.", anticipation: "action" });
  assert.deepEqual([askBack.message.conversationId, askBack.message.hop], [request.message.conversationId, 3]);
});

test("the asker's fyi reply to the answer it got (a thanks) does not hold its next new request in that conversation", async (t) => {
  const { peerpost, clock } = tempPeerpost(t);
  const { mailbox } = peerpost;
  const q = await mailbox.send({ from: "claude:alice", fromVerified: true, to: "codex:bob", body: "Which branch?", anticipation: "reply" });
  await mailbox.markRead("codex:bob", [q.message.id]);
  const { reply } = await mailbox.resolve({ id: q.message.id, by: "codex:bob", byVerified: true, resolution: "reply", text: "main" });
  await mailbox.markRead("claude:alice", [reply!.id]);
  clock.now += 1000;
  await mailbox.send({ from: "claude:alice", fromVerified: true, to: "codex:bob", body: "Thanks!", replyToMessageId: reply!.id });
  const fresh = await mailbox.send({ from: "claude:alice", fromVerified: true, to: "codex:bob", body: "New topic: is CI green?", anticipation: "reply" });
  assert.equal(fresh.message.hop, 1);
});

test("the hop_limit hint's 'a turn's length after you answered', followed literally after a later fyi note, gets the message sent", async (t) => {
  const { peerpost, clock } = tempPeerpost(t, { PEERPOST_MAX_HOPS: "3" });
  const { mailbox } = peerpost;
  const askBackMs = peerpost.config.wake.timeoutMs;
  const q = await mailbox.send({ from: "claude:alice", fromVerified: true, to: "codex:bob", body: "Which branch?", anticipation: "reply" });
  await mailbox.markRead("codex:bob", [q.message.id]);
  const answeredAt = clock.now;
  await mailbox.resolve({ id: q.message.id, by: "codex:bob", byVerified: true, resolution: "reply", text: "main" });
  // Later in its turn bob adds a note, then asks something new: refused (hop 3 of 3 cannot ask).
  clock.now += askBackMs - 60_000;
  const noteAt = clock.now;
  await mailbox.send({ from: "codex:bob", fromVerified: true, to: "claude:alice", body: "FYI: CI is green again." });
  const refused = await mailbox.send({ from: "codex:bob", fromVerified: true, to: "claude:alice", body: "May I merge?", anticipation: "reply" }).then(
    () => undefined,
    (error: { code?: string; hint?: { model: string } }) => error,
  );
  assert.equal(refused?.code, "hop_limit");
  const hint = refused!.hint?.model ?? "";
  assert.match(hint, /for a turn's length \(PEERPOST_WAKE_TIMEOUT_MS\) after you answered/);
  // Followed literally: a turn's length after the answer (or, where the hint says so, after the last message since), a new conversation starts.
  clock.now = (/counted from your last message/.test(hint) ? noteAt : answeredAt) + askBackMs + 1000;
  const again = await mailbox.send({ from: "codex:bob", fromVerified: true, to: "claude:alice", body: "May I merge?", anticipation: "reply" }).then(
    (sent) => ({ ok: true, hop: sent.message.hop }),
    (error: { code?: string; message?: string }) => ({ ok: false, error: `${error.code}: ${error.message}` }),
  );
  assert.equal(again.ok, true, `the hint ${JSON.stringify(refused!.hint?.model)}, followed literally, refused again: ${JSON.stringify(again)}`);
});
