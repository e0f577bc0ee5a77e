// The MCP `status` and `wait` tools after a compaction moved a conversation into the archive: they find
// archived messages as `peerpost status` does, through real servers over stdio and the real CLI.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";
import { cli, json } from "./helpers/cli.js";

test("status and wait find messages a compaction archived, for sender, recipient and a new server; others' archived mail stays not_found", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const alice = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" });
  const bob = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:bob" });
  const fyi = await alice.call("message", { to: "codex:bob", message: "FYI: the build is green.", anticipation: "fyi" });
  const question = await alice.call("message", { to: "codex:bob", message: "Which branch?", anticipation: "reply" });
  const [f, q] = [fyi.messageId as string, question.messageId as string];
  const shown = await bob.call("read");
  assert.equal((shown.messages as unknown[]).length, 2);
  assert.equal((await bob.call("reply", { messageId: q, resolution: "reply", message: "main" })).ok, true);
  const answered = await alice.call("wait", { messageId: q, timeoutMs: 0 });
  assert.equal(answered.outcome, "reply", JSON.stringify(answered));
  const compacted = await cli({ ...env, PEERPOST_RETENTION_DAYS: "0" }, "compact", "--json");
  assert.equal(compacted.code, 0, compacted.stderr + compacted.stdout);
  // The CLI finds it in the archive.
  const viaCli = await cli(env, "status", q, "--json");
  assert.equal(viaCli.code, 0, viaCli.stdout);
  assert.equal((json(viaCli).message as { status: string }).status, "replied");

  const fresh = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" });
  for (const [who, session] of [["alice", alice], ["bob", bob], ["a new server of alice", fresh]] as const) {
    for (const [id, status] of [[q, "replied"], [f, "read"]] as const) {
      const result = await session.call("status", { messageId: id });
      assert.equal(result.ok, true, `${who} status ${id}: ${JSON.stringify(result)}`);
      const message = result.message as { id: string; status: string; history: Array<{ event: string }> };
      assert.equal(message.id, id);
      assert.equal(message.status, status, who);
      assert.ok(message.history.some((entry) => entry.event === "read"), who);
      assert.ok((result.thread as Array<{ id: string }>).some((other) => other.id === id), who);
    }
  }
  for (const session of [alice, fresh]) {
    const waited = await session.call("wait", { messageId: q, timeoutMs: 0 });
    assert.equal(waited.outcome, "reply", JSON.stringify(waited));
    assert.equal(waited.messageStatus, "replied");
    assert.match(JSON.stringify(waited.reply), /main/);
  }
  // Bob did not send q: waiting on it is still refused, as before the compaction.
  const notHis = await bob.raw("wait", { messageId: q, timeoutMs: 0 });
  assert.equal(notHis.isError, true);
  assert.equal((notHis.structuredContent as { error: { code: string } }).error.code, "wrong_recipient");
  // A third session sees none of it.
  const carol = await connect(t, { ...env, PEERPOST_ADDRESS: "copilot:carol" });
  const foreign = await carol.raw("status", { messageId: q });
  assert.equal((foreign.structuredContent as { error: { code: string } }).error.code, "not_found");
});

// A request still open keeps its conversation's first message in the live log while later notes, done with
// and old, move: the thread is looked up in the archive all the same.
test("status of an open request shows its whole conversation, the notes a compaction archived too, as `peerpost status` does", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const alice = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" });
  const bob = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:bob" });
  // A long-running request: open until bob is done with it.
  const request = await alice.call("message", { to: "codex:bob", message: "Please migrate the database.", anticipation: "action" });
  const r = request.messageId as string;
  assert.equal(((await bob.call("read")).messages as unknown[]).length, 1);
  // Bob's progress note in the same conversation, read by alice: done with.
  const note = await bob.call("message", { to: "claude:alice", message: "Half of the tables are done.", anticipation: "fyi", replyToMessageId: r });
  const n = note.messageId as string;
  assert.equal(((await alice.call("read")).messages as unknown[]).length, 1);
  const before = await alice.call("status", { messageId: r });
  assert.deepEqual((before.thread as Array<{ id: string }>).map((other) => other.id), [r, n], "before the compaction");

  // The note is done with and past the retention: it moves; the open request stays in the live log.
  const compacted = await cli({ ...env, PEERPOST_RETENTION_DAYS: "0" }, "compact", "--json");
  assert.equal(compacted.code, 0, compacted.stderr + compacted.stdout);
  const viaCli = await cli(env, "status", r, "--json");
  assert.deepEqual((json(viaCli).thread as Array<{ id: string }>).map((other) => other.id), [r, n], "the CLI reads the archived note");

  const fresh = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" });
  for (const [who, session] of [["alice", alice], ["bob", bob], ["a new server of alice", fresh]] as const) {
    const result = await session.call("status", { messageId: r });
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.deepEqual((result.thread as Array<{ id: string }>).map((other) => other.id), [r, n], `${who}: the thread after the compaction`);
  }
});
