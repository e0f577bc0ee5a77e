// The task board end to end: 8 CLI processes claim one task at once and exactly one gets it; tasks
// unblock in dependency order and task_unblocked reaches the right inbox; cycles, self-dependencies and
// unknown ids are refused with a code while nothing is written; `wait` on a task returns its result.
import { test } from "node:test";
import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { join } from "node:path";
import { testEachBackend } from "./helpers/backends.js";
import { cli, json } from "./helpers/cli.js";
import { connect } from "./helpers/mcp.js";
import { tempDir } from "./helpers/temp.js";
import { openPeerpost } from "../core/peerpost.js";
import { createTask, findTask, updateTask } from "../core/tasks/tasks.js";

type Failure = { error: { code: string; details: Record<string, unknown> } };

testEachBackend("8 processes claim one task at once: exactly one takes it, every other is told who did", async (t, backend) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), ...backend };
  const added = await cli(env, "task", "add", "--json", "Fix", "the", "parser");
  assert.equal(added.code, 0, added.stderr + added.stdout);
  const { id } = (json(added) as { task: { id: string } }).task;
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => cli(env, "task", "claim", id, "--as", `claude:s${i}`, "--json")));
  const winners = results.flatMap((result, i) => (result.code === 0 ? [`claude:s${i}`] : []));
  assert.equal(winners.length, 1, results.map((result) => result.stdout).join("\n"));
  for (const result of results.filter((entry) => entry.code !== 0)) {
    const { error } = json(result) as Failure;
    assert.equal(error.code, "claim_conflict", result.stdout);
    assert.equal(error.details.takenBy, winners[0]);
  }
  const listed = json(await cli(env, "task", "list", "--json")) as { tasks: Array<{ status: string; takenBy: string }> };
  assert.deepEqual(listed.tasks.map((task) => [task.status, task.takenBy]), [["in_progress", winners[0]]]);
  const status = json(await cli(env, "status", id, "--json")) as { task: { title: string; takenBy: string; waitingOn: string[] } };
  assert.deepEqual([status.task.title, status.task.takenBy, status.task.waitingOn], ["Fix the parser", winners[0], []], "peerpost status shows a task");
  assert.match((await cli(env, "status", id)).stdout, new RegExp(`Task ${id}: Fix the parser\n  status in_progress, taken by ${winners[0]}`));
});

test("tasks unblock in dependency order, task_unblocked reaches the assignee (else the creator), and bad input writes nothing", async (t) => {
  const home = tempDir(t);
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: join(home, "state") }, home });
  t.after(() => peerpost.backend.close());
  const creator = "user:pat";
  const first = await createTask(peerpost, { by: creator, title: "schema" });
  const second = await createTask(peerpost, { by: creator, title: "migration", assignee: "codex:b", after: [first.id] });
  const third = await createTask(peerpost, { by: creator, title: "release", after: [first.id, second.id] });
  await assert.rejects(updateTask(peerpost, { id: third.id, by: "claude:c", status: "in_progress" }), (error: Failure["error"]) => error.code === "task_blocked" && JSON.stringify(error.details.waitingOn) === JSON.stringify([first.id, second.id]));

  const mailbox = join(home, "state", "mailbox.jsonl");
  const size = statSync(mailbox).size;
  for (const [update, code, reason] of [
    [{ id: first.id, by: creator, status: "blocked" as const, after: [third.id] }, "invalid_arguments", "cycle"],
    [{ id: first.id, by: creator, status: "blocked" as const, after: [first.id] }, "invalid_arguments", "cycle"],
    [{ id: "01JF3Q0M9C6R2S3T4V5W6X7Y8Z", by: creator, status: "in_progress" as const }, "not_found", undefined],
    [{ id: first.id, by: creator, status: "blocked" as const, after: ["01JF3Q0M9C6R2S3T4V5W6X7Y8Z"] }, "not_found", undefined],
  ] as const) {
    await assert.rejects(updateTask(peerpost, update), (error: Failure["error"]) => error.code === code && error.details.reason === reason, JSON.stringify(update));
    assert.equal(statSync(mailbox).size, size, "nothing written");
  }
  await assert.rejects(createTask(peerpost, { by: creator, title: "x", after: ["01JF3Q0M9C6R2S3T4V5W6X7Y8Z"] }), { code: "not_found" });
  await assert.rejects(createTask(peerpost, { by: creator, title: "  " }), { code: "invalid_arguments" });
  assert.equal(statSync(mailbox).size, size, "nothing written");

  await updateTask(peerpost, { id: first.id, by: "claude:a", status: "in_progress" });
  await assert.rejects(updateTask(peerpost, { id: first.id, by: "claude:x", status: "done" }), { code: "permission_denied" });
  await updateTask(peerpost, { id: first.id, by: "claude:a", status: "done", note: "tables added" });
  const unblocked = (address: string) => peerpost.mailbox.inbox(address).filter((entry) => entry.body.startsWith("task_unblocked"));
  assert.deepEqual(unblocked("codex:b").map((entry) => entry.body.includes(second.id)), [true], "the assignee of the task that may start now");
  assert.equal(unblocked(creator).length, 0, "the third still waits on the second");
  await updateTask(peerpost, { id: second.id, by: "codex:b", status: "in_progress" });
  await updateTask(peerpost, { id: second.id, by: "codex:b", status: "done" });
  assert.deepEqual(unblocked(creator).map((entry) => entry.body.includes(third.id)), [true], "no assignee: its creator");
  assert.equal(findTask(peerpost, third.id).status, "pending");
  await updateTask(peerpost, { id: third.id, by: "claude:c", status: "in_progress" });
});

test("wait on a task's conversation returns its result when its taker finishes it", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const creator = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:boss" });
  const created = (await creator.call("task", { action: "create", title: "benchmark the parser", body: "numbers please" })).task as { id: string; messageId: string };
  const worker = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:worker" });
  assert.equal(((await worker.call("task", { action: "claim", id: created.id })).task as { status: string }).status, "in_progress");
  const waiting = creator.call("wait", { messageId: created.messageId, timeoutMs: 60_000 });
  await worker.call("task", { action: "update", id: created.id, status: "done", note: "3.2 ms per file" });
  const result = (await waiting) as { outcome: string; reply: { envelope: string } };
  assert.equal(result.outcome, "reply");
  assert.match(result.reply.envelope, /benchmark the parser\) done by codex:worker:\s+3\.2 ms per file/);
  const failed = await worker.raw("task", { action: "update", id: created.id, status: "failed" });
  assert.equal((failed.structuredContent?.error as { code: string }).code, "invalid_arguments", "done is final");
});
