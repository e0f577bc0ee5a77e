// The task board with bad and ordinary input: any number of tasks per creator (each opens its own
// conversation); dependencies checked on every update (known tasks, no cycle, at most 100), before anything
// is written; and a task is not taken while a dependency it gains is not done.
import { test } from "node:test";
import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { join } from "node:path";
import { cli, json } from "./helpers/cli.js";
import { connect } from "./helpers/mcp.js";
import { tempDir } from "./helpers/temp.js";

type Failure = { ok: false; error: { code: string; message: string; details: Record<string, unknown> } };
type Added = { task: { id: string; messageId: string; status: string; after: string[] } };

function envOf(t: Parameters<typeof tempDir>[0]) {
  const home = tempDir(t);
  return { env: { HOME: home, PEERPOST_HOME: join(home, "state") }, mailbox: join(home, "state", "mailbox.jsonl") };
}

test("a person can add a fourth task: each task's note opens its own conversation", async (t) => {
  const { env } = envOf(t);
  const added: Added[] = [];
  for (const title of ["one", "two", "three", "four"]) {
    const result = await cli(env, "task", "add", "--json", title);
    assert.equal(result.code, 0, `task add ${title}: ${result.stdout}${result.stderr}`);
    added.push(json(result) as unknown as Added);
  }
  const second = json(await cli(env, "status", added[1]!.task.messageId, "--json")) as { message: { conversationId: string; hop: number } };
  assert.deepEqual([second.message.conversationId, second.message.hop], [added[1]!.task.messageId, 1], "task two's note does not answer task one's");
});

test("a session's MCP task tool can create more than three tasks", async (t) => {
  const { env } = envOf(t);
  const boss = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:boss" });
  for (const title of ["a", "b", "c", "d"]) {
    const result = await boss.raw("task", { action: "create", title });
    assert.ok(!result.isError, `create ${title}: ${JSON.stringify(result.structuredContent ?? result.content)}`);
  }
});

test("blocking a task with --after: a self-dependency is refused (cycle), an unknown or malformed id not_found, and nothing is written; claim takes no --after", async (t) => {
  const { env, mailbox } = envOf(t);
  const a = (json(await cli(env, "task", "add", "--json", "--as", "user:a", "a")) as unknown as Added).task;
  const b = (json(await cli(env, "task", "add", "--json", "--as", "user:b", "b")) as unknown as Added).task;
  const c = (json(await cli(env, "task", "add", "--json", "--as", "user:c", "c")) as unknown as Added).task;
  const size = statSync(mailbox).size;
  const problems: string[] = [];
  for (const [id, creator, after, code] of [
    [a.id, "user:a", a.id, "invalid_arguments"],
    [b.id, "user:b", "01JF3Q0M9C6R2S3T4V5W6X7Y8Z", "not_found"],
    [c.id, "user:c", "not-a-task-id", "not_found"],
  ] as const) {
    const result = await cli(env, "task", "block", id, "--after", after, "--as", creator, "--json");
    const body = JSON.parse(result.stdout) as Failure | Added;
    if (result.code === 0) problems.push(`block ${id} --after ${after}: accepted silently (${JSON.stringify((body as Added).task.after)})`);
    else if ((body as Failure).error.code !== code) problems.push(`block ${id} --after ${after}: ${(body as Failure).error.code} (${(body as Failure).error.message}), wanted ${code}`);
  }
  const claimed = await cli(env, "task", "claim", a.id, "--after", b.id, "--as", "claude:w");
  assert.equal(claimed.code, 2, claimed.stderr);
  assert.equal(statSync(mailbox).size, size, `nothing written; ${problems.join("; ")}`);
  assert.deepEqual(problems, []);
});

test("a task cannot be taken by a claim that adds a dependency not done yet", async (t) => {
  const { env } = envOf(t);
  const first = (json(await cli(env, "task", "add", "--json", "--as", "user:a", "first")) as unknown as Added).task;
  const second = (json(await cli(env, "task", "add", "--json", "--as", "user:b", "second")) as unknown as Added).task;
  const result = await cli(env, "task", "claim", second.id, "--after", first.id, "--as", "claude:w", "--json");
  const body = JSON.parse(result.stdout) as Failure | Added;
  assert.notEqual(result.code, 0, `taken while waiting on ${first.id}: ${JSON.stringify((body as Added).task)}`);
});

test("a task with more than 100 dependencies is refused as invalid_arguments, and nothing is written", async (t) => {
  const { env, mailbox } = envOf(t);
  const boss = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:boss" });
  // One creator per dependency (a creator's fourth open task is refused by the hop limit, see above).
  const ids: string[] = [];
  for (let i = 0; i < 101; i++) {
    const s = await connect(t, { ...env, PEERPOST_ADDRESS: `claude:s${i}` });
    ids.push(((await s.call("task", { action: "create", title: `dep ${i}` })).task as { id: string }).id);
    await s.client.close();
  }
  const size = statSync(mailbox).size;
  const result = await boss.raw("task", { action: "create", title: "too many", after: ids });
  assert.ok(result.isError);
  const error = result.structuredContent?.error as { code: string; message: string };
  assert.equal(error.code, "invalid_arguments", error.message);
  assert.equal(statSync(mailbox).size, size, "no orphaned conversation note is left behind");
});
