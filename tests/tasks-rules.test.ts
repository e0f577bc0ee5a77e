// The rules a taken task keeps: it neither goes on nor ends done while a task it waits on is open, waits
// on more only as it is blocked, never goes back to pending; a log from before them reads as it did; and
// the cycle check holds over a chain of thousands of tasks.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { openPeerpost, type Peerpost } from "../core/peerpost.js";
import { createTask, findTask, updateTask } from "../core/tasks/tasks.js";
import { applyTaskEvent, emptyTasks, wouldCycle } from "../core/tasks/fold.js";
import { TASKS_SCOPE } from "../core/records/work-scope.js";

function board(t: TestContext, home = tempDir(t)): Peerpost {
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: join(home, "state") }, home });
  t.after(() => peerpost.backend.close());
  return peerpost;
}

/** A taken task blocked on another that is still pending. */
async function blockedOnPending(peerpost: Peerpost) {
  const task = await createTask(peerpost, { by: "user:pat", title: "release" });
  const dependency = await createTask(peerpost, { by: "user:pat", title: "schema" });
  await updateTask(peerpost, { id: task.id, by: "claude:a", status: "in_progress" });
  await updateTask(peerpost, { id: task.id, by: "claude:a", status: "blocked", after: [dependency.id], note: "needs the schema" });
  return { task, dependency };
}

test("a taken task blocked on a pending one can be neither done nor taken up again until that is done; it can fail", async (t) => {
  const peerpost = board(t);
  const { task, dependency } = await blockedOnPending(peerpost);
  await assert.rejects(updateTask(peerpost, { id: task.id, by: "claude:a", status: "done", note: "shipped" }), (error: { code: string; details: { waitingOn: string[] } }) => error.code === "task_blocked" && error.details.waitingOn[0] === dependency.id);
  await assert.rejects(updateTask(peerpost, { id: task.id, by: "claude:a", status: "in_progress" }), { code: "task_blocked" });
  assert.equal(findTask(peerpost, task.id).status, "blocked");
  await updateTask(peerpost, { id: dependency.id, by: "claude:b", status: "in_progress" });
  await updateTask(peerpost, { id: dependency.id, by: "claude:b", status: "done" });
  assert.equal((await updateTask(peerpost, { id: task.id, by: "claude:a", status: "in_progress" })).status, "in_progress");
  assert.equal((await updateTask(peerpost, { id: task.id, by: "claude:a", status: "done" })).status, "done");
  const other = await blockedOnPending(peerpost);
  assert.equal((await updateTask(peerpost, { id: other.task.id, by: "claude:a", status: "failed", note: "dropped" })).status, "failed");
});

test("after is taken only with status blocked, and a task never goes back to pending", async (t) => {
  const peerpost = board(t);
  const task = await createTask(peerpost, { by: "user:pat", title: "release" });
  const dependency = await createTask(peerpost, { by: "user:pat", title: "schema" });
  await updateTask(peerpost, { id: task.id, by: "claude:a", status: "in_progress" });
  await assert.rejects(updateTask(peerpost, { id: task.id, by: "claude:a", status: "done", after: [dependency.id] }), (error: { code: string; details: { field: string } }) => error.code === "invalid_arguments" && error.details.field === "after");
  await assert.rejects(updateTask(peerpost, { id: task.id, by: "claude:a", status: "pending" }), (error: { code: string; details: { field: string } }) => error.code === "invalid_arguments" && error.details.field === "status");
  const state = findTask(peerpost, task.id);
  assert.equal(state.status, "in_progress");
  assert.deepEqual(state.after, []);
});

test("a task log written before these rules reads as it did: a task its taker finished while it waited is done", async (t) => {
  const home = tempDir(t);
  const peerpost = board(t, home);
  const { task } = await blockedOnPending(peerpost);
  const at = new Date().toISOString();
  // What the tool used to accept: done while a dependency was open.
  await peerpost.mailbox.store.append([{ record: { v: 1, type: "task_status", id: "01KA0000000000000000000001", task: task.id, status: "done", by: "claude:a", at }, scopes: [TASKS_SCOPE] }]);
  // A new process's fold of the log, not this one's kept state.
  assert.equal(findTask(board(t, home), task.id).status, "done");
});

test("the cycle check over a chain of 20,000 tasks answers instead of overflowing the stack", () => {
  const state = emptyTasks();
  const at = "2026-01-01T00:00:00.000Z";
  for (let i = 0; i < 20_000; i++) applyTaskEvent(state, { v: 1, type: "task", id: `t${i}`, title: "x", body: "", by: "user:a", after: i > 0 ? [`t${i - 1}`] : [], messageId: "m", at });
  assert.equal(wouldCycle(state, "t0", "t19999"), true);
  assert.equal(wouldCycle(state, "t19999", "t0"), false);
});
