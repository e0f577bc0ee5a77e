// A conversation's own page (?conversation=ID) shows the conversation whole, as `peerpost status` does,
// through the indexes and the archive: also when compaction archived a message in its middle while its
// first message is still live (unread), which the fold of the newest mail does not hold.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cli, registerSessions, request, startUi, uiEnv } from "./helpers/ui.js";

interface Thread {
  messages: Array<{ id: string; body: string }>;
}

test("a conversation's page shows every message of it, archived ones too, as peerpost status does", async (t) => {
  const env: Record<string, string> = { ...uiEnv(t), PEERPOST_USER: "person", PEERPOST_RETENTION_DAYS: "0" };
  const ui = await startUi(t, { env });
  await registerSessions(ui.store, "claude:alice", "codex:bob");
  const { mailbox } = ui.store;
  const { message: first } = await mailbox.send({ from: "claude:alice", fromVerified: true, to: "codex:bob", body: "first, not read yet", anticipation: "fyi" });
  const { message: middle } = await mailbox.send({ from: "codex:bob", fromVerified: true, to: "claude:alice", body: "middle, read", anticipation: "fyi", replyToMessageId: first.id });
  await mailbox.markRead("claude:alice", [middle.id]);
  await mailbox.send({ from: "claude:alice", fromVerified: true, to: "codex:bob", body: "last, not read yet", anticipation: "fyi", replyToMessageId: middle.id });
  const compacted = await cli(env, "compact", "--json");
  assert.equal(compacted.code, 0, compacted.stderr);
  assert.equal((JSON.parse(compacted.stdout) as { movedMessages: number }).movedMessages, 1, "the read middle message moved to the archive");

  const status = await cli(env, "status", first.id, "--json");
  assert.equal(status.code, 0, status.stderr);
  const byCli = (JSON.parse(status.stdout) as { thread: Array<{ id: string }> }).thread.map((message) => message.id);
  assert.equal(byCli.length, 3, "peerpost status shows the three messages");

  const answer = await request(ui.port, `/api/state?token=${ui.token}&conversation=${first.conversationId}`);
  assert.equal(answer.status, 200, answer.body);
  const [thread] = (JSON.parse(answer.body) as { conversations: Thread[] }).conversations;
  assert.deepEqual(
    thread?.messages.map((message) => message.body),
    ["first, not read yet", "middle, read", "last, not read yet"],
    "the conversation's page shows it whole",
  );
});
