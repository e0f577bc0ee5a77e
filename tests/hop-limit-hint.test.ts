// The hop_limit hint works when followed literally. A message without replyToMessageId that continued a
// conversation on its own (it follows the sender's recent answer to the same recipient) is told so, with
// the message it continued and when a new conversation can start, not to "start a new conversation (no
// replyToMessageId)", which would repeat the same call and the same refusal.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";

test("the hop_limit hint, followed literally, gets a message sent rather than the same refusal again", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const alice = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" });
  const bob = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:bob" });
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

  // Bob sends a new fyi, with no replyToMessageId at all.
  const refused = await bob.call("message", { to: "claude:alice", message: "Unrelated: the CI is green again." });
  assert.equal(refused.ok, false, JSON.stringify(refused));
  const error = refused.error as { code: string; hint: string };
  assert.equal(error.code, "hop_limit");
  // The hint's way out: "start a new conversation (no replyToMessageId)". Bob sent none; doing it again:
  const followed = /start a new conversation \(no replyToMessageId\)/.test(error.hint) ? await bob.call("message", { to: "claude:alice", message: "Unrelated: the CI is green again." }) : { ok: true };
  assert.equal(followed.ok, true, `the hint ${JSON.stringify(error.hint)}, followed literally, gives the same refusal: ${JSON.stringify(followed.error)}`);
});
