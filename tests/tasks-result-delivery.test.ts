// A task's update to done or failed is committed before its result is sent to the creator and its
// dependents are told (task_unblocked). A result that could not be sent (a note at the limit, with the
// result's header past it; a task note its creator resolved already) is refused before anything is
// written, or sent another way: never a done task whose result and dependents' news are lost.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { connect, type Session } from "./helpers/mcp.js";

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
