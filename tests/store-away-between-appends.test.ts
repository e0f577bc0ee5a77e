// On PostgreSQL the database can go away between two appends of one call (a restart, a dropped link: here
// the connection is ended as a chosen row is inserted). Each call either stores all it writes, or what its
// answer says it stored; a retry, as the error's hint invites, converges: no stray note, no holder left
// untold, no answer thrown away, no message sent twice because its receipt was lost.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { cliIn, json } from "./helpers/cli.js";
import { tempRepo } from "./helpers/repo.js";
import { tempDir } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";
import { dropConnectionOnce, NO_POSTGRES, testDatabase } from "./helpers/postgres.js";
import { openPeerpost } from "../core/peerpost.js";
import { UiWrites } from "../core/ui/writes.js";

/** A state dir on a fresh test database, or undefined (skipped) without PostgreSQL. */
async function onDatabase(t: Parameters<typeof testDatabase>[0]) {
  const url = await testDatabase(t);
  if (!url) return undefined;
  const home = tempDir(t);
  return { url, home, env: { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_STORE: url } };
}

for (const [what, type] of [["its read mark", "read"], ["the task record", "task"]] as const)
  test(`the database gone between a task's note and ${what}: nothing stored, and a retry leaves one task and no stray note`, async (t) => {
    const world = await onDatabase(t);
    if (!world) return t.skip(NO_POSTGRES);
    const alice = await connect(t, { ...world.env, PEERPOST_ADDRESS: "claude:alice" });
    assert.equal((await alice.call("task", { action: "create", title: "warm up" })).ok, true);
    await dropConnectionOnce(world.url, "peerpost_log_mailbox", `NEW.record::jsonb->>'type' = '${type}'`);
    const failed = await alice.call("task", { action: "create", title: "the real one" });
    const error = failed.error as { code?: string; hint?: string } | undefined;
    assert.equal(error?.code, "state_io_error", JSON.stringify(failed));
    const again = await alice.call("task", { action: "create", title: "the real one" });
    assert.equal(again.ok, true, JSON.stringify(again));
    const tasks = (await alice.call("task", { action: "list" })).tasks as Array<{ title: string; messageId: string }>;
    assert.equal(tasks.filter((task) => task.title === "the real one").length, 1);
    const named = new Set(tasks.map((task) => task.messageId));
    const inbox = (await alice.call("read", { markRead: false, unreadOnly: false })) as { messages?: Array<{ id: string; envelope: string }> };
    const stray = (inbox.messages ?? []).filter((message) => message.envelope.includes("Task: the real one") && !named.has(message.id));
    assert.deepEqual(stray.map((message) => message.id), [], `the failed create (its error said: ${error?.hint}) left a note no task names`);
  });

test("the database gone between a forced release and its claim_released: the person's retry tells the holder once", async (t) => {
  const world = await onDatabase(t);
  if (!world) return t.skip(NO_POSTGRES);
  const repo = tempRepo(t);
  const env = { ...world.env, PEERPOST_USER: "pat" };
  const alice = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" });
  const claimed = await cliIn(repo, env, "claim", "--as", "claude:alice", "--json", "src/**");
  assert.equal(claimed.code, 0, claimed.stdout + claimed.stderr);
  await dropConnectionOnce(world.url, "peerpost_log_mailbox", "NEW.record::jsonb->>'type' = 'msg'");
  const forced = await cliIn(repo, env, "release", "--force", "--json", "src/a.ts");
  const error = (json(forced) as { error?: { code: string; hint: string } }).error;
  assert.equal(error?.code, "state_io_error", forced.stdout + forced.stderr);
  const again = await cliIn(repo, env, "release", "--force", "--json", "src/a.ts");
  const told = JSON.stringify(await alice.call("read"));
  assert.equal(told.split("claim_released: user:pat ended your claim on src/**").length - 1, 1, `alice is told once that her claim ended (the retry answered ${again.stdout.trim()}): ${told}`);
});

test("the database gone between a waited request and the read mark of its reply: the answer comes back, with a warning", async (t) => {
  const world = await onDatabase(t);
  if (!world) return t.skip(NO_POSTGRES);
  const alice = await connect(t, { ...world.env, PEERPOST_ADDRESS: "claude:alice" });
  const bob = await connect(t, { ...world.env, PEERPOST_ADDRESS: "codex:bob" });
  await bob.call("read");
  await dropConnectionOnce(world.url, "peerpost_log_mailbox", "NEW.record::jsonb->>'type' = 'read' AND NEW.record::jsonb->>'by' = 'claude:alice'");
  const asked = alice.call("message", { to: "codex:bob", message: "is the build green?", waitForReply: true, timeoutMs: 20_000 });
  let request: { id: string } | undefined;
  for (let i = 0; i < 100 && !request; i++) {
    request = ((await bob.call("read", { markRead: false })).messages as Array<{ id: string }>)[0];
    if (!request) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.ok(request, "bob gets the request");
  assert.equal((await bob.call("reply", { messageId: request.id, resolution: "reply", message: "green" })).ok, true);
  const answer = await asked;
  assert.equal(answer.ok, true, `the request was stored and answered, yet the call says: ${JSON.stringify(answer.error)}`);
  assert.match(JSON.stringify(answer), /green/);
  assert.ok((answer.warnings as Array<{ code: string }>).some((warning) => warning.code === "read_not_recorded"), JSON.stringify(answer.warnings));
});

test("the database gone between a web view send and its receipt: the send is answered, with a warning, and stored once", async (t) => {
  const world = await onDatabase(t);
  if (!world) return t.skip(NO_POSTGRES);
  const peerpost = openPeerpost({ env: world.env, home: world.home });
  t.after(() => peerpost.backend.close());
  await peerpost.sessions.register({ host: "claude-code", address: "claude:alice", sessionId: "alice", source: "cli" });
  const writes = new UiWrites(peerpost, "user:pat");
  await writes.send({ to: "claude:alice", body: "warm up" });
  await dropConnectionOnce(world.url, "peerpost_log_receipts");
  const sent = await writes.send({ to: "claude:alice", body: "the deploy is at 5" });
  assert.ok(sent.warnings.some((warning) => /receipt/i.test(warning)), JSON.stringify(sent));
  assert.equal(peerpost.mailbox.inbox("claude:alice").filter((entry) => entry.body === "the deploy is at 5").length, 1);
});
