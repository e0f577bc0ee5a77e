// Tool results a real SDK client must accept, refusals that stay small, and conversations that go on
// past compaction and expiry: each through a real MCP client over stdio against the built server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { tempDir } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";
import { cli } from "./helpers/cli.js";
import { openPeerpost } from "../core/peerpost.js";
import { DEFAULT_WAIT_MS } from "../core/server/tools/wait.js";

function stateEnv(home: string): Record<string, string> {
  return { HOME: home, PEERPOST_HOME: join(home, "state") };
}

test("a send whose wake is unsure (a damaged wake.json) gets a result the SDK client accepts, and is stored once", async (t) => {
  const home = tempDir(t);
  const env = stateEnv(home);
  const project = join(home, "project");
  mkdirSync(project);
  const store = openPeerpost({ env, home });
  await store.sessions.register({ host: "codex", address: "codex:bob", sessionId: "bob", cwd: project, source: "startup", hostPid: spawnSync("true").pid! });
  assert.equal((await cli(env, "wake", "on", "all")).code, 0);
  const switches = join(env.PEERPOST_HOME!, "wake.json");
  writeFileSync(switches, readFileSync(switches, "utf8").slice(0, 20));
  const alice = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" });
  // The SDK client checks structuredContent against the output schemas it listed.
  await alice.client.listTools();
  const result = await alice.raw("message", { to: "codex:bob", message: "hi", anticipation: "reply" });
  assert.equal(result.structuredContent?.wake, "unsure");
  assert.equal(store.mailbox.inbox("codex:bob").length, 1);
});

test("a wait with no timeout given ends as outcome timeout before the SDK client's own request timeout", () => {
  // The SDK client (and Codex's tool_timeout_sec) gives up at 60 s: a default at 60 s turned every such wait into a failed call.
  assert.ok(DEFAULT_WAIT_MS <= DEFAULT_REQUEST_TIMEOUT_MSEC - 10_000, `default wait ${DEFAULT_WAIT_MS} ms against the client's ${DEFAULT_REQUEST_TIMEOUT_MSEC} ms`);
});

for (const [label, name, args] of [
  ["an unknown argument named by 3 MiB", "health", { ["k".repeat(3 * 1024 * 1024)]: 1 }],
  ["ten thousand unknown arguments", "health", Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`.padEnd(200, "k"), 1]))],
  ["a task id of 3 MiB", "task", { action: "claim", id: "x".repeat(3 * 1024 * 1024) }],
  ["a task dependency of 3 MiB", "task", { action: "create", title: "t", after: ["x".repeat(3 * 1024 * 1024)] }],
  ["a tool name of 3 MiB of quotes", '"'.repeat(3 * 1024 * 1024), {}],
] as const)
  test(`${label} is refused as a small error value, and the connection keeps working`, async (t) => {
    const home = tempDir(t);
    const alice = await connect(t, { ...stateEnv(home), PEERPOST_ADDRESS: "claude:alice" });
    const result = await alice.client.callTool({ name, arguments: args as Record<string, unknown> }, undefined, { timeout: 60_000 });
    assert.equal(result.isError, true);
    const text = JSON.stringify(result);
    assert.ok(text.length < 64 * 1024, `an answer of ${text.length} characters`);
    assert.match((result.structuredContent as { error: { code: string } }).error.code, /^(invalid_arguments|not_found)$/);
    assert.equal((await alice.call("health")).ok, true, "the connection survives");
  });

test("a follow-up with replyToMessageId on a message compaction archived continues its conversation", async (t) => {
  const home = tempDir(t);
  const env = stateEnv(home);
  const alice = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" });
  const bob = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:bob" });
  const question = await alice.call("message", { to: "codex:bob", message: "Which branch?", anticipation: "reply" });
  await bob.call("read");
  assert.equal((await bob.call("reply", { messageId: question.messageId, resolution: "done" })).ok, true);
  const compacted = await cli({ ...env, PEERPOST_RETENTION_DAYS: "0" }, "compact", "--json");
  assert.equal(compacted.code, 0, compacted.stderr + compacted.stdout);
  assert.ok(JSON.parse(compacted.stdout).movedMessages >= 1, compacted.stdout);
  const followUp = await bob.call("message", { to: "claude:alice", message: "Actually: main.", replyToMessageId: question.messageId });
  assert.equal(followUp.ok, true, JSON.stringify(followUp));
  assert.equal(followUp.conversationId, question.messageId);
  assert.equal(followUp.hop, 2);
  // Not someone else's archived mail: a third session cannot follow up on it.
  const carol = await connect(t, { ...env, PEERPOST_ADDRESS: "grok:carol" });
  const foreign = await carol.call("message", { to: "claude:alice", message: "me too", replyToMessageId: question.messageId });
  assert.equal((foreign.error as { code: string }).code, "not_found");
});

test("an expired request does not carry its hops into the reader's next, unrelated question", async (t) => {
  const home = tempDir(t);
  const env = { ...stateEnv(home), PEERPOST_MAX_HOPS: "3" };
  const alice = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" });
  const bob = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:bob" });
  const note = await alice.call("message", { to: "codex:bob", message: "FYI: deploying.", anticipation: "fyi" });
  await bob.call("read");
  const ask = await bob.call("message", { to: "claude:alice", message: "Answer within a second?", anticipation: "reply", replyToMessageId: note.messageId, replyBy: new Date(Date.now() + 1500).toISOString() });
  assert.equal(ask.hop, 2, JSON.stringify(ask));
  await alice.call("read");
  await new Promise((resolve) => setTimeout(resolve, 2500));
  assert.equal(((await alice.call("status", { messageId: ask.messageId })).message as { status: string }).status, "expired");
  const fresh = await alice.call("message", { to: "codex:bob", message: "New topic: which port?", anticipation: "reply" });
  assert.equal(fresh.ok, true, JSON.stringify(fresh));
  assert.equal(fresh.hop, 1);
});

test("wait from a role is refused with a hint: a role sends nothing, its holder does", async (t) => {
  const home = tempDir(t);
  const alice = await connect(t, { ...stateEnv(home), PEERPOST_ADDRESS: "claude:alice" });
  const waited = await alice.call("wait", { from: "role:reviewer", timeoutMs: 100 });
  const error = waited.error as { code: string; message: string };
  assert.equal(error.code, "invalid_arguments");
  assert.match(error.message, /from: must be a session or a person/);
});

test("read with unreadOnly false shows the newest mail (oldest first), so read mail past the limit is not the only mail it can show", async (t) => {
  const home = tempDir(t);
  const alice = await connect(t, { ...stateEnv(home), PEERPOST_ADDRESS: "claude:alice" });
  const bob = await connect(t, { ...stateEnv(home), PEERPOST_ADDRESS: "codex:bob" });
  const ids: string[] = [];
  for (const text of ["one", "two", "three"]) ids.push((await alice.call("message", { to: "codex:bob", message: text })).messageId as string);
  assert.deepEqual(((await bob.call("read", { limit: 2 })).messages as Array<{ id: string }>).map((message) => message.id), ids.slice(0, 2), "unread: the oldest first");
  await bob.call("read");
  assert.deepEqual(((await bob.call("read", { unreadOnly: false, limit: 2 })).messages as Array<{ id: string }>).map((message) => message.id), ids.slice(1));
});
