// A taker that blocked its task on another is told by the refusal's hint that it will hear `task_unblocked`;
// the fyi reaches it when the last dependency is done, and once, even when two dependencies end at once.
// A task assigned to a role held through PEERPOST_ROLES tells that holder, not the bare role.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { openPeerpost, type Peerpost } from "../core/peerpost.js";
import { createTask, updateTask } from "../core/tasks/tasks.js";
import { tempPeerpost } from "./helpers/temp.js";
import { testEachBackend } from "./helpers/backends.js";
import { listRoles } from "../core/roles/roles.js";

function board(t: TestContext, home = tempDir(t)): Peerpost {
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: join(home, "state") }, home });
  t.after(() => peerpost.backend.close());
  return peerpost;
}

test("the taker of a task blocked on another is told task_unblocked, as the task_blocked hint promises it", async (t) => {
  const peerpost = board(t);
  const task = await createTask(peerpost, { by: "user:pat", title: "release" });
  const schema = await createTask(peerpost, { by: "user:pat", title: "schema" });
  await updateTask(peerpost, { id: task.id, by: "claude:a", status: "in_progress" });
  await updateTask(peerpost, { id: task.id, by: "claude:a", status: "blocked", after: [schema.id], note: "needs the schema" });
  const refusal = await updateTask(peerpost, { id: task.id, by: "claude:a", status: "in_progress" }).then(
    () => assert.fail("taken up while it waits"),
    (error: { code: string; hint: string }) => error,
  );
  assert.equal(refusal.code, "task_blocked");
  assert.match(refusal.hint, /you are told: task_unblocked/);
  await updateTask(peerpost, { id: schema.id, by: "claude:b", status: "in_progress" });
  await updateTask(peerpost, { id: schema.id, by: "claude:b", status: "done", note: "schema in" });
  const told = peerpost.mailbox.inbox("claude:a").filter((entry) => entry.body.startsWith("task_unblocked:"));
  assert.equal(told.length, 1, "the taker, who was promised it, is told its task may go on");
});

test("two dependencies done at the same moment by takers in two processes: task_unblocked goes out once, from the one done last in log order", async (t) => {
  const home = tempDir(t);
  // Two processes' views of one state dir, each taker's own.
  const first = board(t, home);
  const second = board(t, home);
  const a = await createTask(first, { by: "user:pat", title: "a" });
  const b = await createTask(first, { by: "user:pat", title: "b" });
  const waiting = await createTask(first, { by: "user:pat", title: "release", after: [a.id, b.id], assignee: "claude:r" });
  await updateTask(first, { id: a.id, by: "claude:a", status: "in_progress" });
  await updateTask(second, { id: b.id, by: "claude:b", status: "in_progress" });
  // The moment, pinned: a's status is written, then b's taker finishes b before a's taker goes on to send
  // a's result (with the two updates merely started together, that order came about a third of the time).
  const resolve = first.mailbox.resolve.bind(first.mailbox);
  let secondDone: Promise<unknown> | undefined;
  first.mailbox.resolve = (async (...args: Parameters<typeof resolve>) => {
    secondDone ??= updateTask(second, { id: b.id, by: "claude:b", status: "done", note: "ok" });
    await secondDone;
    return resolve(...args);
  }) as typeof resolve;
  await updateTask(first, { id: a.id, by: "claude:a", status: "done", note: "ok" });
  const told = first.mailbox.inbox("claude:r").filter((entry) => entry.body.startsWith("task_unblocked:") && entry.body.includes(waiting.id));
  assert.deepEqual(told.map((entry) => [entry.message.from, entry.body.includes(`${b.id} was the last task it waited on`)]), [["claude:b", true]], told.map((entry) => entry.body).join("\n"));
});

testEachBackend("task_unblocked for a task assigned to a PEERPOST_ROLES role reaches the role's live holder", async (t, backend) => {
  const { peerpost } = tempPeerpost(t, backend);
  // Bob runs with PEERPOST_ROLES=reviewer (his host process is this one: alive).
  await peerpost.sessions.register({ host: "codex", address: "codex:bob", sessionId: "bob", hostPid: process.pid, source: "server", roles: ["reviewer"] });
  await peerpost.sessions.register({ host: "claude-code", address: "claude:ann", sessionId: "ann", hostPid: process.pid, source: "server", roles: [] });
  const schema = await createTask(peerpost, { by: "user:pat", title: "schema" });
  const review = await createTask(peerpost, { by: "user:pat", title: "review the schema", assignee: "role:reviewer", after: [schema.id] });
  await updateTask(peerpost, { id: schema.id, by: "claude:ann", status: "in_progress" });
  await updateTask(peerpost, { id: schema.id, by: "claude:ann", status: "done", note: "schema written" });
  const told = peerpost.mailbox.inbox("codex:bob").filter((entry) => entry.body.startsWith("task_unblocked:"));
  assert.equal(told.length, 1, `bob, who holds role:reviewer, is told task ${review.id} may be taken`);
  // And nothing waits at the bare role, where no PEERPOST_ROLES holder ever reads.
  assert.equal(peerpost.mailbox.inbox("role:reviewer").length, 0, "no mail stuck at role:reviewer");
  assert.ok(listRoles(peerpost).every((row) => row.queued === 0));
});
