// A task's update to done or failed is committed before its result is sent to the creator and its
// dependents are told (task_unblocked). A result that could not be sent (a note at the limit, with the
// result's header past it; a task note its creator resolved already) is refused before anything is
// written, or sent another way: never a done task whose result and dependents' news are lost, even when
// the database goes away between the appends.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { connect, type Session } from "./helpers/mcp.js";
import { dropConnectionOnce, NO_POSTGRES, testDatabase } from "./helpers/postgres.js";

async function board(t: Parameters<typeof connect>[0]): Promise<{ alice: Session; bob: Session; first: { id: string; messageId: string }; second: { id: string } }> {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const alice = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" });
  const bob = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:bob" });
  const first = (await alice.call("task", { action: "create", title: "first", assignee: "codex:bob" })).task as { id: string; messageId: string };
  const second = (await alice.call("task", { action: "create", title: "second", assignee: "codex:bob", after: [first.id] })).task as { id: string };
  assert.equal((await bob.call("task", { action: "claim", id: first.id })).ok, true);
  return { alice, bob, first, second };
}

test("a done with a note at the documented 64 KiB limit is refused before anything is written, or else answered ok and announced", async (t) => {
  const { alice, bob, first, second } = await board(t);
  const update = await bob.call("task", { action: "update", id: first.id, status: "done", note: "r".repeat(65_536) });
  const tasks = (await alice.call("task", { action: "list" })).tasks as Array<{ id: string; status: string }>;
  const status = tasks.find((task) => task.id === first.id)!.status;
  // Either outcome is consistent; an error with the task done is not.
  if (update.ok !== true) assert.equal(status, "in_progress", `the update answered ${JSON.stringify(update.error)} but the task is ${status}`);
  else {
    const told = ((await bob.call("read")).messages as Array<{ envelope: string }>).some((message) => message.envelope.includes(`task_unblocked: task ${second.id}`));
    assert.ok(told, "the assignee of the waiting task is told");
  }
});

test("a done on a task whose creator already resolved its task note is answered ok, and the waiting task's assignee is told", async (t) => {
  const { alice, bob, first, second } = await board(t);
  // The creator's own note sits in its inbox as an open request: a model may resolve it.
  assert.equal((await alice.call("reply", { messageId: first.messageId, resolution: "done" })).ok, true);
  const update = await bob.call("task", { action: "update", id: first.id, status: "done", note: "result" });
  assert.equal(update.ok, true, JSON.stringify(update.error));
  const told = ((await bob.call("read")).messages as Array<{ envelope: string }>).some((message) => message.envelope.includes(`task_unblocked: task ${second.id}`));
  assert.ok(told, "the assignee of the waiting task is told it may start");
});

// On PostgreSQL the database can go away between the task's status and its result (two appends): the call
// fails, and the same update again from the taker sends what did not go out instead of a refusal.
test("the database gone between a task's done and its result: the taker's retry sends the result and task_unblocked", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_STORE: url };
  const [alice, bob, carol] = await Promise.all(["claude:alice", "codex:bob", "codex:carol"].map((address) => connect(t, { ...env, PEERPOST_ADDRESS: address })));
  const a = (await alice!.call("task", { action: "create", title: "A" })).task as { id: string; messageId: string };
  const b = (await alice!.call("task", { action: "create", title: "B", after: [a.id], assignee: "codex:carol" })).task as { id: string };
  assert.equal((await bob!.call("task", { action: "claim", id: a.id })).ok, true);
  // The connection dies (once) as the next resolution is written: the task's result.
  await dropConnectionOnce(url, "peerpost_log_mailbox", "NEW.record::jsonb->>'type' = 'resolved'");
  const done = await bob!.call("task", { action: "update", id: a.id, status: "done", note: "the result" });
  assert.equal((done.error as { code?: string } | undefined)?.code, "state_io_error", JSON.stringify(done));
  const again = await bob!.call("task", { action: "update", id: a.id, status: "done", note: "the result" });
  assert.equal(again.ok, true, JSON.stringify(again));
  const result = await alice!.call("wait", { messageId: a.messageId, timeoutMs: 3000 });
  assert.equal(result.outcome, "reply", `the creator gets the task's result: ${JSON.stringify(result)}`);
  const told = JSON.stringify(await carol!.call("read"));
  assert.equal(told.split(`task_unblocked: task ${b.id}`).length - 1, 1, `carol is told once that B may be taken: ${told}`);
  // A third try has nothing left to send: refused as a finished task's update is.
  const third = await bob!.call("task", { action: "update", id: a.id, status: "done", note: "the result" });
  assert.equal((third.error as { code?: string } | undefined)?.code, "invalid_arguments", JSON.stringify(third));
});

