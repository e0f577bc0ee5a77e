// The two stores answer alike: one script of MCP tool calls (and hooks, and the CLI's compact) runs against
// the file store and against a real PostgreSQL, and the two transcripts, with ids numbered by first
// appearance and times, paths and machine ids blanked, are the same: results, error codes, hints, warnings.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { bothStores, type ParityWorld } from "./helpers/parity.js";
import { runHook } from "./helpers/hooks.js";
import { cliIn } from "./helpers/cli.js";
import { NO_POSTGRES } from "./helpers/postgres.js";

const DAY = 86_400_000;

async function everyTool(w: ParityWorld): Promise<void> {
  const alice = await w.session("claude:alice", { PEERPOST_ROLE_ADMIN: "1" });
  const bob = await w.session("codex:bob");
  const carol = await w.session("codex:carol");
  const first = await w.call(alice, "send k1", "message", { to: "codex:bob", message: "hello", idempotencyKey: "k1" });
  await w.call(alice, "send k1 again", "message", { to: "codex:bob", message: "hello", idempotencyKey: "k1" });
  await w.call(alice, "send k1 other body", "message", { to: "codex:bob", message: "other", idempotencyKey: "k1" });
  await w.call(alice, "send k1 other recipient", "message", { to: "codex:carol", message: "hello", idempotencyKey: "k1" });
  await w.call(bob, "bob read", "read");
  const q = await w.call(alice, "ask", "message", { to: "codex:bob", message: "6*7?", anticipation: "reply" });
  await w.call(bob, "bob read 2", "read");
  await w.call(carol, "carol replies to bob's", "reply", { messageId: q.messageId, resolution: "reply", message: "no" });
  await w.call(bob, "bob replies", "reply", { messageId: q.messageId, resolution: "reply", message: "42" });
  await w.call(bob, "bob replies again", "reply", { messageId: q.messageId, resolution: "done" });
  await w.call(alice, "alice waits", "wait", { messageId: q.messageId, timeoutMs: 2000 });
  await w.call(alice, "alice waits from bob", "wait", { from: "codex:bob", timeoutMs: 300 });
  await w.call(alice, "alice waits nothing", "wait", { timeoutMs: 300 });
  await w.call(alice, "status", "status", { messageId: q.messageId });
  await w.call(alice, "status first", "status", { messageId: first.messageId });
  await w.call(alice, "reply unknown", "reply", { messageId: "01ARZ3NDEKTSV4RRFFQ69G5FAV", resolution: "done" });
  await w.call(alice, "to role unheld", "message", { to: "role:reviewer", message: "review pls", anticipation: "action" });
  await w.call(alice, "roles", "roles");
  await w.call(alice, "role set", "role", { role: "reviewer", holder: "codex:carol" });
  await w.call(alice, "roles 2", "roles");
  const got = await w.call(carol, "carol read", "read");
  const rid = (got.messages as Array<{ id: string }>)[0]?.id;
  await w.call(alice, "role move", "role", { role: "reviewer", holder: "codex:bob" });
  await w.call(carol, "carol resolves moved", "reply", { messageId: rid, resolution: "done" });
  await w.call(bob, "bob read role", "read");
  await w.call(bob, "bob resolves role", "reply", { messageId: rid, resolution: "done", message: "ok" });
  await w.call(alice, "role clear", "role", { role: "reviewer" });
  await w.call(alice, "roles 3", "roles");
  await w.call(alice, "claim", "claim", { paths: ["src/**"], reason: "refactor", ttl: "30m" });
  await w.call(bob, "bob claim", "claim", { paths: ["src/a.ts"] });
  await w.call(bob, "bob claim shared docs", "claim", { paths: ["docs"], shared: true });
  await w.call(carol, "carol claim shared docs", "claim", { paths: ["docs/guide.md"], shared: true });
  await w.call(alice, "claims", "claims");
  await w.call(alice, "release", "release", { paths: ["src/**"] });
  await w.call(alice, "release again", "release", { paths: ["src/**"] });
  await w.call(bob, "bob claim 2", "claim", { paths: ["src/a.ts"] });
  await w.call(bob, "claims everywhere", "claims", { everywhere: true });
  const a = await w.call(alice, "task A", "task", { action: "create", title: "A", body: "do A" });
  const aId = (a.task as { id: string }).id;
  const b = await w.call(alice, "task B", "task", { action: "create", title: "B", after: [aId], assignee: "codex:carol" });
  const bId = (b.task as { id: string }).id;
  await w.call(alice, "task C bad dep", "task", { action: "create", title: "C", after: ["01ARZ3NDEKTSV4RRFFQ69G5FAV"] });
  await w.call(carol, "carol claims B", "task", { action: "claim", id: bId });
  await w.call(bob, "bob claims A", "task", { action: "claim", id: aId });
  await w.call(carol, "carol claims A", "task", { action: "claim", id: aId });
  await w.call(carol, "carol updates A", "task", { action: "update", id: aId, status: "done" });
  await w.call(bob, "bob done A", "task", { action: "update", id: aId, status: "done", note: "result" });
  await w.call(carol, "carol read", "read");
  await w.call(carol, "carol claims B 2", "task", { action: "claim", id: bId });
  await w.call(alice, "list", "task", { action: "list" });
  await w.call(alice, "alice read", "read", { unreadOnly: false, limit: 50 });
  await w.call(alice, "resolve", "resolve", { query: "bob" });
  await w.call(alice, "agents", "agents");
  await w.call(alice, "self", "message", { to: "claude:alice", message: "me" });
  await w.call(alice, "nobody", "message", { to: "codex:nobody", message: "hi" });
}

test("one script of every tool gives the same answers on both stores", async (t) => {
  const result = await bothStores(t, everyTool);
  if (!result) return t.skip(NO_POSTGRES);
  assert.deepEqual(result.postgres, result.file);
});

async function races(w: ParityWorld): Promise<void> {
  const alices = await Promise.all([0, 1, 2, 3].map(() => w.session("claude:alice")));
  const bobs = await Promise.all([0, 1, 2, 3].map(() => w.session("codex:bob")));
  const sends = await Promise.all(alices.map((alice) => alice.call("message", { to: "codex:bob", message: "once", anticipation: "reply", idempotencyKey: "race" })));
  w.note("sends", sends.map((s) => `${s.ok} ${s.created}`).sort());
  w.note("same id", new Set(sends.map((s) => s.messageId)).size);
  const id = sends[0]!.messageId;
  const replies = await Promise.all(bobs.map((bob) => bob.call("reply", { messageId: id, resolution: "reply", message: "r" })));
  w.note("replies", replies.map((r) => (r.ok ? "ok" : (r.error as { code: string }).code)).sort());
  const read = await alices[0]!.call("read", { unreadOnly: false });
  w.note("alice mail", (read.messages as unknown[]).length);
  const status = await alices[0]!.call("status", { messageId: id });
  w.note("thread", (status.thread as unknown[]).length);
  // Tasks: 4 takers race for one task.
  const task = await alices[0]!.call("task", { action: "create", title: "race" });
  const tid = (task.task as { id: string }).id;
  const takers = await Promise.all(["codex:t1", "codex:t2", "codex:t3", "codex:t4"].map((address) => w.session(address)));
  const takes = await Promise.all(takers.map((taker) => taker.call("task", { action: "claim", id: tid })));
  w.note("takes", takes.map((r) => (r.ok ? "ok" : (r.error as { code: string }).code)).sort());
  const claims = await Promise.all(takers.map((taker) => taker.call("claim", { paths: ["src/a.ts"] })));
  w.note("claims", claims.map((r) => (r.ok ? "ok" : (r.error as { code: string }).code)).sort());
}

test("races on both stores", { timeout: 240_000 }, async (t) => {
  const result = await bothStores(t, races);
  if (!result) return t.skip(NO_POSTGRES);
  assert.deepEqual(result.postgres, result.file);
});

async function roles(w: ParityWorld): Promise<void> {
  const alice = await w.session("claude:alice", { PEERPOST_ROLE_ADMIN: "1" });
  const bob = await w.session("codex:bob");
  const carol = await w.session("codex:carol");
  const dave = await w.session("codex:dave", { PEERPOST_ROLES: "tester" });
  await w.call(alice, "role set", "role", { role: "reviewer", holder: "codex:carol" });
  await w.call(alice, "role clear", "role", { role: "reviewer" });
  const q = await w.call(alice, "to unheld role", "message", { to: "role:reviewer", message: "review pls", anticipation: "reply" });
  await w.call(alice, "fyi unheld role", "message", { to: "role:reviewer", message: "fyi role" });
  await w.call(alice, "roles unheld", "roles");
  await w.call(alice, "status unheld", "status", { messageId: q.messageId });
  await w.call(alice, "role to carol", "role", { role: "reviewer", holder: "codex:carol" });
  await w.call(carol, "carol read", "read");
  await w.call(alice, "roles held", "roles");
  await w.call(alice, "role to bob", "role", { role: "reviewer", holder: "codex:bob" });
  await w.call(carol, "carol resolves moved", "reply", { messageId: q.messageId, resolution: "reply", message: "x" });
  await w.call(bob, "bob read", "read");
  const hook = await runHook("codex", "user-prompt", { session_id: "bob", cwd: w.repo, hook_event_name: "UserPromptSubmit", prompt: "next" }, w.env);
  w.note("bob hook", hook.stdout);
  await w.call(bob, "bob resolves", "reply", { messageId: q.messageId, resolution: "reply", message: "lgtm" });
  await w.call(alice, "alice waits", "wait", { messageId: q.messageId, timeoutMs: 2000 });
  await w.call(alice, "status role", "status", { messageId: q.messageId });
  await w.call(alice, "to env role", "message", { to: "role:tester", message: "test pls", anticipation: "action" });
  await w.call(dave, "dave read", "read");
  await w.call(alice, "roles end", "roles");
  await w.call(alice, "agents", "agents");
  await w.call(alice, "task to role", "task", { action: "create", title: "R", assignee: "role:reviewer" });
  await w.call(bob, "bob read task", "read");
  await w.call(alice, "wait from role", "wait", { from: "role:reviewer", timeoutMs: 100 });
}

test("roles on both stores", { timeout: 240_000 }, async (t) => {
  const result = await bothStores(t, roles);
  if (!result) return t.skip(NO_POSTGRES);
  assert.deepEqual(result.postgres, result.file);
});

const T0 = Date.parse("2026-03-01T10:00:00.000Z");

async function hooks(w: ParityWorld): Promise<void> {
  const at = (ms: number) => ({ ...w.env, PEERPOST_NOW: String(ms) });
  const hook = async (label: string, host: "claude-code" | "codex", event: string, stdin: object, now: number) => {
    const result = await runHook(host, event, stdin, at(now));
    w.note(label, { code: result.code, stdout: result.stdout, stderr: result.stderr });
  };
  await hook("start", "claude-code", "session-start", { session_id: "me", cwd: w.repo, hook_event_name: "SessionStart", source: "startup" }, T0);
  const alice = await w.session("codex:alice", { PEERPOST_NOW: String(T0) });
  await w.call(alice, "ask", "message", { to: "claude:me", message: "please review", anticipation: "reply" });
  await w.call(alice, "fyi", "message", { to: "claude:me", message: "fyi note" });
  await hook("prompt", "claude-code", "user-prompt", { session_id: "me", cwd: w.repo, hook_event_name: "UserPromptSubmit", prompt: "hi" }, T0 + 1000);
  await hook("prompt again", "claude-code", "user-prompt", { session_id: "me", cwd: w.repo, hook_event_name: "UserPromptSubmit", prompt: "hi" }, T0 + 2000);
  await hook("stop", "claude-code", "stop", { session_id: "me", cwd: w.repo, hook_event_name: "Stop", stop_hook_active: false }, T0 + 3000);
  await hook("stop again", "claude-code", "stop", { session_id: "me", cwd: w.repo, hook_event_name: "Stop", stop_hook_active: false }, T0 + 4000);
  await hook("prompt later", "claude-code", "user-prompt", { session_id: "me", cwd: w.repo, hook_event_name: "UserPromptSubmit", prompt: "hi" }, T0 + 3_600_000);
  await hook("stop later", "claude-code", "stop", { session_id: "me", cwd: w.repo, hook_event_name: "Stop", stop_hook_active: false }, T0 + 3_700_000);
  await w.call(alice, "claim", "claim", { paths: ["src/a.ts"], reason: "mine" });
  await hook("edit claimed", "claude-code", "pre-tool", { session_id: "me", cwd: w.repo, hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: join(w.repo, "src/a.ts"), content: "x" } }, T0 + 5000);
  await hook("edit free", "claude-code", "pre-tool", { session_id: "me", cwd: w.repo, hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: join(w.repo, "src/b.ts"), content: "x" } }, T0 + 5000);
  await hook("edit claimed after ttl", "claude-code", "pre-tool", { session_id: "me", cwd: w.repo, hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: join(w.repo, "src/a.ts"), content: "x" } }, T0 + 3 * 3_600_000);
}

test("hooks say the same on both stores", { timeout: 240_000 }, async (t) => {
  const result = await bothStores(t, hooks);
  if (!result) return t.skip(NO_POSTGRES);
  assert.deepEqual(result.postgres, result.file);
});

const NOW = Date.now();

async function afterCompaction(w: ParityWorld): Promise<void> {
  const now = (ms: number) => ({ PEERPOST_NOW: String(ms), PEERPOST_RETENTION_DAYS: "1", PEERPOST_LOG_RETENTION_DAYS: "1" });
  const alice = await w.session("claude:alice", { PEERPOST_RETENTION_DAYS: "1" });
  const bob = await w.session("codex:bob", { PEERPOST_RETENTION_DAYS: "1" });
  const sent = await w.call(alice, "send", "message", { to: "codex:bob", message: "q", anticipation: "reply", idempotencyKey: "k" });
  await w.call(bob, "read", "read");
  await w.call(bob, "reply", "reply", { messageId: sent.messageId, resolution: "reply", message: "a" });
  await w.call(alice, "alice read", "read");
  const a = await w.call(alice, "task A", "task", { action: "create", title: "A" });
  const aId = (a.task as { id: string }).id;
  await w.call(bob, "take A", "task", { action: "claim", id: aId });
  await w.call(bob, "done A", "task", { action: "update", id: aId, status: "done", note: "ok" });
  await w.call(alice, "alice read 2", "read");
  await w.call(bob, "claim", "claim", { paths: ["src/a.ts"], ttl: "1h" });
  await w.call(bob, "release", "release", { all: true });
  const compact = await cliIn(w.repo, { ...w.env, ...now(NOW + 3 * DAY), PATH: "/usr/bin:/bin" }, "compact", "--json");
  w.note("compact code", compact.code);
  const later = now(NOW + 3 * DAY);
  const alice2 = await w.session("claude:alice", later);
  const bob2 = await w.session("codex:bob", later);
  await w.call(alice2, "send again", "message", { to: "codex:bob", message: "q", anticipation: "reply", idempotencyKey: "k" });
  await w.call(alice2, "status old", "status", { messageId: sent.messageId });
  await w.call(alice2, "wait old", "wait", { messageId: sent.messageId, timeoutMs: 200 });
  await w.call(bob2, "reply old", "reply", { messageId: sent.messageId, resolution: "done" });
  const b = await w.call(alice2, "task B after A", "task", { action: "create", title: "B", after: [aId] });
  await w.call(bob2, "take B", "task", { action: "claim", id: (b.task as { id: string }).id });
  await w.call(alice2, "list", "task", { action: "list" });
  await w.call(alice2, "read all", "read", { unreadOnly: false });
  await w.call(bob2, "bob read all", "read", { unreadOnly: false });
  await w.call(alice2, "receipts", "receipts");
  await w.call(bob2, "claims", "claims");
}

test("after compaction both stores answer the same", { timeout: 240_000 }, async (t) => {
  const result = await bothStores(t, afterCompaction, [[/"pid":\d+/g, '"pid":0']]);
  if (!result) return t.skip(NO_POSTGRES);
  assert.deepEqual(result.postgres, result.file);
});

async function receiptPages(w: ParityWorld): Promise<void> {
  const alice = await w.session("claude:alice");
  await w.session("codex:bob");
  for (let i = 0; i < 12; i++) await alice.call("message", { to: i % 3 ? "codex:bob" : "claude:alice", allowSelf: true, message: `m${i}` });
  const page = async (label: string, args: Record<string, unknown>) => {
    const r = await alice.call("receipts", args);
    w.note(label, { n: (r.receipts as Array<{ to: string; messageId: string }> | undefined)?.map((x) => x.to), more: r.nextCursor !== undefined, ok: r.ok, error: r.error });
    return r.nextCursor as string | undefined;
  };
  let cursor = await page("p1", { limit: 5 });
  cursor = await page("p2", { limit: 5, cursor });
  await page("p3", { limit: 5, cursor });
  let c2 = await page("bob p1", { limit: 3, address: "codex:bob" });
  c2 = await page("bob p2", { limit: 3, address: "codex:bob", cursor: c2 });
  const c3 = await page("kind p1", { limit: 4, kind: "send" });
  await page("bad cursor", { limit: 4, cursor: "nonsense" });
  await page("neg cursor", { limit: 4, cursor: "-5" });
  await page("huge cursor", { limit: 4, cursor: "99999999999" });
  const c4 = await page("before compaction", { limit: 4 });
  const compact = await cliIn(w.repo, { ...w.env, PEERPOST_NOW: String(Date.now() + 3 * 86_400_000), PEERPOST_LOG_RETENTION_DAYS: "1", PATH: "/usr/bin:/bin" }, "compact", "--json");
  w.note("compact", compact.code);
  await page("after compaction, old cursor", { limit: 4, cursor: c4 });
  await page("after compaction, kind cursor", { limit: 4, kind: "send", cursor: c3 });
  await page("after compaction, first", { limit: 50 });
}

test("receipts pages on both stores", { timeout: 240_000 }, async (t) => {
  // The huge cursor names the file it is not a place in: receipts.jsonl, or the mirror of the table.
  const result = await bothStores(t, receiptPages, [[/mirror-receipts\.jsonl/g, "receipts.jsonl"]]);
  if (!result) return t.skip(NO_POSTGRES);
  assert.deepEqual(result.postgres, result.file);
});
