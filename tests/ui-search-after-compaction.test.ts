// A search on the page (?q=) remembered from before a compaction swapped the mailbox file in starts over
// on the new file: its offsets are of the old one, and messages appended since the swap that lie before
// the offset reached there would never be found for as long as the view ran.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cli, registerSessions, request, startUi, uiEnv } from "./helpers/ui.js";

interface State {
  conversations: Array<{ messages: Array<{ id: string; body: string }> }>;
}

test("a search asked for before a compaction finds what was sent after it", async (t) => {
  const env: Record<string, string> = { ...uiEnv(t), PEERPOST_USER: "person", PEERPOST_RETENTION_DAYS: "0" };
  const ui = await startUi(t, { env });
  await registerSessions(ui.store, "claude:alice", "codex:bob");
  const { mailbox } = ui.store;
  const filler = "x".repeat(2000);
  // Finished mail (fyi, read): what a compaction moves to the archive.
  for (let i = 0; i < 40; i++) {
    const { message } = await mailbox.send({ from: "claude:alice", fromVerified: true, to: "codex:bob", body: `old ${i} ${filler}`, anticipation: "fyi" });
    await mailbox.markRead("codex:bob", [message.id]);
  }
  const search = async () => {
    const answer = await request(ui.port, `/api/state?token=${ui.token}&q=zebra`);
    assert.equal(answer.status, 200, answer.body);
    return (JSON.parse(answer.body) as State).conversations.flatMap((conversation) => conversation.messages).filter((message) => message.body.includes("zebra"));
  };
  assert.deepEqual(await search(), [], "nothing matches yet");
  const compacted = await cli(env, "compact", "--json");
  assert.equal(compacted.code, 0, compacted.stderr);
  assert.ok((JSON.parse(compacted.stdout) as { movedMessages: number }).movedMessages >= 40, compacted.stdout);
  // New mail after the swap: the match first, then enough to take the new file past the old one's end.
  const { message: zebra } = await mailbox.send({ from: "claude:alice", fromVerified: true, to: "codex:bob", body: "the zebra deploy is ready", anticipation: "fyi" });
  for (let i = 0; i < 50; i++) await mailbox.send({ from: "claude:alice", fromVerified: true, to: "codex:bob", body: `new ${i} ${filler}`, anticipation: "fyi" });
  const found = await search();
  assert.deepEqual(
    found.map((message) => message.id),
    [zebra.id],
    "the message sent after the compaction matches the search",
  );
});
