// The hook programs as real child processes with real stdin JSON: registration, silence without mail,
// the pending-mail note, reminders with a controlled clock, Stop blocking once, and resilience.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import { onCleanup, tempDir } from "./helpers/temp.js";
import { testEachBackend } from "./helpers/backends.js";
import { runHook, snapshotTree } from "./helpers/hooks.js";
import { openPeerpost } from "../core/peerpost.js";
import { until } from "./helpers/poll.js";
import { oldLog } from "./helpers/old-log.js";
import { createTask } from "../core/tasks/tasks.js";

const T0 = Date.parse("2026-03-01T10:00:00.000Z");

function setup(t: Parameters<typeof tempDir>[0], extra: Record<string, string> = {}) {
  // extra may select the backend (PEERPOST_STORE) as well as set other variables.
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = (now = T0) => ({ HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(now), ...extra });
  const store = (now = T0) => {
    const peerpost = openPeerpost({ env: env(now), home, now: () => now });
    onCleanup(t, () => peerpost.backend.close());
    return peerpost;
  };
  return { home, stateDir, env, store };
}

function context(stdout: string): string {
  const parsed = JSON.parse(stdout) as { hookSpecificOutput: { additionalContext: string; hookEventName: string } };
  return parsed.hookSpecificOutput.additionalContext;
}

testEachBackend("SessionStart registers the session (and again on resume and clear) and says nothing without mail", async (t, backend) => {
  const { env, store } = setup(t, backend);
  const start = await runHook("claude-code", "session-start", { session_id: "sess-1", cwd: "/work/project", hook_event_name: "SessionStart", source: "startup" }, env());
  assert.equal(start.code, 0, start.stderr);
  assert.equal(start.stdout, "");
  const sessions = store().sessions.list({ includeDead: true });
  assert.equal(sessions.length, 1);
  assert.deepEqual([sessions[0]!.address, sessions[0]!.host, sessions[0]!.cwd, sessions[0]!.source], ["claude:sess-1", "claude-code", "/work/project", "startup"]);
  for (const source of ["resume", "clear"]) {
    const again = await runHook("claude-code", "session-start", { session_id: "sess-1", cwd: "/work/project", hook_event_name: "SessionStart", source }, env(T0 + 1000));
    assert.equal(again.code, 0);
  }
  const lines = readFileSync(store().sessions.log.path, "utf8").trim().split("\n");
  assert.equal(lines.length, 3);
  assert.equal(store().sessions.list({ includeDead: true })[0]!.source, "clear");
  const codex = await runHook("codex", "session-start", { session_id: "thread-9", cwd: "/x", hook_event_name: "SessionStart", source: "startup", model: "gpt" }, env());
  assert.equal(codex.code, 0);
  assert.ok(store().sessions.all().some((entry) => entry.address === "codex:thread-9" && entry.host === "codex"));
});

testEachBackend("with no mail, the prompt and stop hooks print nothing and write nothing", async (t, backend) => {
  const { env, store, stateDir } = setup(t, backend);
  const peerpost = store();
  await peerpost.sessions.register({ host: "claude-code", address: "claude:quiet", sessionId: "quiet", source: "startup" });
  // Mail for someone else does not concern this session.
  await peerpost.mailbox.send({ from: "codex:a", fromVerified: true, to: "claude:other", body: "not for quiet", anticipation: "reply" });
  const before = snapshotTree(stateDir);
  const quietHooks = async () => {
    for (const event of ["user-prompt", "stop"]) {
      const result = await runHook("claude-code", event, { session_id: "quiet", hook_event_name: event === "stop" ? "Stop" : "UserPromptSubmit", stop_hook_active: false }, env());
      assert.equal(result.code, 0);
      assert.equal(result.stdout, "", event);
      assert.equal(result.stderr, "", event);
    }
  };
  await quietHooks();
  // The first hooks leave the compiled hook program in cache/code, and nothing else. On PostgreSQL, a hook
  // that connected also records when it found the mirror current (what lets the next prompt hooks skip connecting).
  const codeCache = join(stateDir, "cache", "code") + sep;
  const mirrorCurrent = join(stateDir, "mirror-mailbox.current.json");
  const besides = (tree: Record<string, string>, skipped: (path: string) => boolean) => Object.fromEntries(Object.entries(tree).filter(([path]) => !skipped(path)));
  const isMirrorRecord = (path: string) => path === mirrorCurrent;
  assert.deepEqual(besides(snapshotTree(stateDir), (path) => path.startsWith(codeCache) || isMirrorRecord(path)), besides(before, isMirrorRecord), "no file was created or changed besides the code cache and the mirror's record");
  const cached = snapshotTree(stateDir);
  await quietHooks();
  assert.deepEqual(besides(snapshotTree(stateDir), isMirrorRecord), besides(cached, isMirrorRecord), "the next hooks write nothing else at all");
});

testEachBackend("new mail is flagged on every prompt until read: count and senders, never the body", async (t, backend) => {
  const { env, store } = setup(t, backend);
  const peerpost = store();
  const secret = "SECRET-BODY-TEXT do as I say";
  await peerpost.mailbox.send({ from: "codex:a1", fromVerified: true, to: "claude:me", body: secret, anticipation: "reply" });
  await peerpost.mailbox.send({ from: "codex:a1", fromVerified: true, to: "claude:me", body: secret });
  await peerpost.mailbox.send({ from: "grok:g2", fromVerified: true, to: "claude:me", body: secret });
  for (let prompt = 0; prompt < 2; prompt++) {
    const result = await runHook("claude-code", "user-prompt", { session_id: "me", hook_event_name: "UserPromptSubmit", prompt: "hi" }, env());
    assert.equal(result.code, 0, result.stderr);
    const note = context(result.stdout);
    assert.equal(JSON.parse(result.stdout).hookSpecificOutput.hookEventName, "UserPromptSubmit");
    assert.match(note, /3 new messages/);
    assert.match(note, /codex:a1 \(2\), grok:g2/);
    assert.match(note, /not from the user/);
    assert.match(note, /read tool/);
    assert.ok(!result.stdout.includes("SECRET"), "no body in hook output");
  }
  const start = await runHook("claude-code", "session-start", { session_id: "me", hook_event_name: "SessionStart", source: "resume" }, env());
  assert.match(context(start.stdout), /3 new messages/);
  const ids = peerpost.mailbox.inbox("claude:me").map((entry) => entry.message.id);
  await peerpost.mailbox.markRead("claude:me", ids);
  const after = await runHook("claude-code", "user-prompt", { session_id: "me", hook_event_name: "UserPromptSubmit", prompt: "hi" }, env());
  assert.equal(after.stdout, "", "nothing once read (no reminder is due yet)");
});

testEachBackend("reminders come at most once per interval and at most the limit; then the sender sees unresolved", async (t, backend) => {
  const { env, store } = setup(t, { ...backend, PEERPOST_REMINDER_INTERVAL_MS: "30000", PEERPOST_REMINDER_LIMIT: "2" });
  const peerpost = store();
  const { message } = await peerpost.mailbox.send({ from: "codex:asker", fromVerified: true, to: "claude:me", body: "need an answer", anticipation: "reply" });
  await peerpost.mailbox.markRead("claude:me", [message.id]);
  const prompt = (now: number) => runHook("claude-code", "user-prompt", { session_id: "me", hook_event_name: "UserPromptSubmit" }, env(now));
  assert.equal((await prompt(T0 + 29_999)).stdout, "", "not within the first interval");
  const first = await prompt(T0 + 30_000);
  assert.match(context(first.stdout), new RegExp(`reminder: 1 request .*codex:asker.*${message.id}`));
  assert.match(context(first.stdout), /reply tool/);
  assert.equal((await prompt(T0 + 45_000)).stdout, "", "at most once per interval");
  assert.match(context((await prompt(T0 + 60_000)).stdout), /reminder/);
  assert.equal((await prompt(T0 + 95_000)).stdout, "", "the limit of 2 is reached");
  const asSender = store(T0 + 89_999).mailbox;
  assert.equal(asSender.status(asSender.view("codex:asker").state.messages[message.id]!), "read", "not yet: the cap plus one interval");
  const later = store(T0 + 90_000).mailbox;
  const seen = later.view("codex:asker").state.messages[message.id]!;
  assert.equal(seen.reminders.count, 2);
  assert.equal(later.status(seen), "unresolved");
});

test("a task's opening note, a request to oneself, never nags its creator at a prompt or a turn end; a read request from another still does", async (t) => {
  const { env, store } = setup(t, { PEERPOST_REMINDER_INTERVAL_MS: "30000" });
  const peerpost = store();
  const task = await createTask(peerpost, { by: "claude:me", title: "fix the parser" });
  const { message } = await peerpost.mailbox.send({ from: "codex:asker", fromVerified: true, to: "claude:me", body: "need an answer", anticipation: "reply" });
  await peerpost.mailbox.markRead("claude:me", [message.id]);
  const prompt = await runHook("claude-code", "user-prompt", { session_id: "me", hook_event_name: "UserPromptSubmit" }, env(T0 + 60_000));
  assert.match(context(prompt.stdout), new RegExp(`reminder: 1 request .*codex:asker.*${message.id}`), "the other request is reminded");
  assert.ok(!prompt.stdout.includes(task.messageId), "the task's note is not");
  await store(T0 + 60_000).mailbox.resolve({ id: message.id, by: "claude:me", resolution: "reply", text: "done" });
  for (const event of ["user-prompt", "stop"]) {
    const run = await runHook("claude-code", event, { session_id: "me", hook_event_name: event === "stop" ? "Stop" : "UserPromptSubmit" }, env(T0 + 3_600_000));
    assert.equal(run.stdout, "", `${event}: nothing about the task's own note an hour on`);
  }
});

testEachBackend("a request past replyBy shows as expired to its sender and is no longer reminded", async (t, backend) => {
  const { env, store } = setup(t, { ...backend, PEERPOST_REMINDER_INTERVAL_MS: "1000" });
  const peerpost = store();
  const { message } = await peerpost.mailbox.send({ from: "codex:asker", fromVerified: true, to: "claude:me", body: "by 10:01", anticipation: "reply", replyBy: new Date(T0 + 60_000).toISOString() });
  await peerpost.mailbox.markRead("claude:me", [message.id]);
  assert.match((await runHook("claude-code", "user-prompt", { session_id: "me" }, env(T0 + 5_000))).stdout, /reminder/);
  const late = await runHook("claude-code", "user-prompt", { session_id: "me" }, env(T0 + 61_000));
  assert.equal(late.stdout, "");
  const sender = store(T0 + 61_000).mailbox;
  assert.equal(sender.status(sender.view("codex:asker").state.messages[message.id]!), "expired");
});

testEachBackend("Stop blocks once per interval for a due reminder and never when the host says a stop hook is already active", async (t, backend) => {
  const { env, store } = setup(t, { ...backend, PEERPOST_REMINDER_INTERVAL_MS: "30000" });
  const peerpost = store();
  const { message } = await peerpost.mailbox.send({ from: "grok:g", fromVerified: true, to: "codex:th", body: "do the thing", anticipation: "action" });
  await peerpost.mailbox.markRead("codex:th", [message.id]);
  const stop = (now: number, active: boolean) => runHook("codex", "stop", { session_id: "th", hook_event_name: "Stop", stop_hook_active: active, turn_id: "t1" }, env(now));
  assert.equal((await stop(T0 + 10_000, false)).stdout, "", "nothing due yet");
  const blocked = await stop(T0 + 30_000, false);
  const decision = JSON.parse(blocked.stdout) as { decision: string; reason: string };
  assert.equal(decision.decision, "block");
  assert.match(decision.reason, new RegExp(message.id));
  assert.ok(!decision.reason.includes("do the thing"));
  assert.equal((await stop(T0 + 30_001, true)).stdout, "", "the continued turn may end: no loop");
  assert.equal((await stop(T0 + 30_002, false)).stdout, "", "at most once per interval");
  await peerpost.mailbox.resolve({ id: message.id, by: "codex:th", resolution: "done" });
  assert.equal((await stop(T0 + 200_000, false)).stdout, "", "resolved requests are not reminded");
});

test("hooks never break the prompt: missing or broken state, garbage or empty stdin → exit 0, no output", async (t) => {
  const { env, stateDir, store } = setup(t);
  const cases: Array<[string, string | object]> = [
    ["empty stdin", ""],
    ["garbage stdin", "{{{ not json"],
    ["a JSON array", "[1,2,3]"],
    ["no session id", { hook_event_name: "UserPromptSubmit" }],
    ["a hostile session id", { session_id: "../../etc/passwd" }],
  ];
  for (const [label, stdin] of cases) {
    for (const event of ["session-start", "user-prompt", "stop"]) {
      const result = await runHook("claude-code", event, stdin, env());
      assert.deepEqual([result.code, result.stdout, result.stderr], [0, "", ""], `${label}, ${event}`);
    }
  }
  const unknownEvent = await runHook("claude-code", "pre-tool", { session_id: "me" }, env());
  assert.deepEqual([unknownEvent.code, unknownEvent.stdout], [0, ""]);
  // A missing state dir: the prompt hook neither fails nor creates it.
  rmSync(stateDir, { recursive: true, force: true });
  for (const stdin of [{ session_id: "me" }, "garbage"]) {
    const missing = await runHook("claude-code", "user-prompt", stdin, env());
    assert.deepEqual([missing.code, missing.stdout, missing.stderr], [0, "", ""]);
    assert.equal(existsSync(stateDir), false, "not even to log an error");
  }
  // A mailbox that cannot be read (a directory where the file should be).
  mkdirSync(join(stateDir, "mailbox.jsonl"), { recursive: true });
  const unreadable = await runHook("claude-code", "user-prompt", { session_id: "me" }, env());
  assert.deepEqual([unreadable.code, unreadable.stdout, unreadable.stderr], [0, "", ""]);
  rmSync(join(stateDir, "mailbox.jsonl"), { recursive: true });
  // Corrupt lines around a real message: the note still comes.
  await store().mailbox.send({ from: "codex:a", fromVerified: true, to: "claude:me", body: "hello" });
  appendFileSync(join(stateDir, "mailbox.jsonl"), "garbage\n{\"v\":1,\"type\":\"msg\"}\n\u0000\u0000\n");
  const corrupt = await runHook("claude-code", "user-prompt", { session_id: "me" }, env());
  assert.equal(corrupt.code, 0);
  assert.match(context(corrupt.stdout), /1 new message from/);
  // A PEERPOST_HOME that is invalid: still silent.
  const invalid = await runHook("claude-code", "session-start", { session_id: "me" }, { ...env(), PEERPOST_HOME: "relative/path" });
  assert.deepEqual([invalid.code, invalid.stdout, invalid.stderr], [0, "", ""]);
  // Errors are logged for doctor, not printed.
  await runHook("claude-code", "user-prompt", "not json at all", env());
  const log = readFileSync(join(stateDir, "logs", "errors.log"), "utf8");
  assert.match(log, /not JSON/);
  assert.match(log, /EISDIR|state_io_error|illegal operation on a directory/);
});

test("a bad PEERPOST_* value in the hook's environment fails silently and is logged", async (t) => {
  const { env, stateDir } = setup(t);
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(stateDir, "mailbox.jsonl"), "", { mode: 0o600 });
  const result = await runHook("claude-code", "user-prompt", { session_id: "me" }, { ...env(), PEERPOST_REMINDER_LIMIT: "lots" });
  assert.deepEqual([result.code, result.stdout, result.stderr], [0, "", ""]);
  assert.match(readFileSync(join(stateDir, "logs", "errors.log"), "utf8"), /PEERPOST_REMINDER_LIMIT=\\"lots\\" is not valid/);
});

test("on an old log the index never covered, a new session's hooks tell only the newest mail at once and its first prompt starts the index build; the next hook tells all of it", async (t) => {
  const { env, home, stateDir, store } = setup(t);
  const peerpost = store();
  // Written directly, as a peerpost before the index would have left it: more than readers index on their way.
  oldLog(peerpost.mailbox.log.path, 10 * 1024 * 1024);
  await peerpost.mailbox.send({ from: "codex:a", fromVerified: true, to: "claude:me", body: "the older one", anticipation: "reply" });
  // More than the hook reads from the log's end: the older message lies before what it looks at.
  oldLog(peerpost.mailbox.log.path, 2 * 1024 * 1024);
  await peerpost.mailbox.send({ from: "codex:b", fromVerified: true, to: "claude:me", body: "the newest one", anticipation: "reply" });
  const logBytes = () => readFileSync(peerpost.mailbox.log.path).length;
  const before = logBytes();
  const indexFarBehind = () => openPeerpost({ env: env(), home }).mailbox.indexLag().farBehind;
  assert.equal(indexFarBehind(), true);

  const start = await runHook("claude-code", "session-start", { session_id: "me", hook_event_name: "SessionStart", source: "startup", cwd: home }, env());
  assert.equal(start.code, 0);
  // No fold of the whole log inside the hook: only the newest message, found in the log's last bytes.
  assert.match(context(start.stdout), /1 new message from other AI agents on this machine \(codex:b\)/);
  // The session's server, started beside SessionStart, starts the build (core-index.test.ts): the hook forks nothing.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.deepEqual([existsSync(join(stateDir, "index-run.pid")), indexFarBehind()], [false, true], "SessionStart started no index build");
  const prompt = { session_id: "me", hook_event_name: "UserPromptSubmit", prompt: "hi" };
  const first = await runHook("claude-code", "user-prompt", prompt, env());
  assert.match(context(first.stdout), /1 new message from other AI agents on this machine \(codex:b\)/);
  // A stop would mark the mail noticed, a decision the newest mail alone cannot make: it lets the turn end.
  const stop = await runHook("claude-code", "stop", { session_id: "me", hook_event_name: "Stop", stop_hook_active: false }, env());
  assert.deepEqual([stop.code, stop.stdout], [0, ""]);
  assert.equal(logBytes(), before, "nothing was appended to the mailbox");
  // The detached `server.mjs index-run` the first prompt started.
  await until(() => !indexFarBehind(), 60_000, "the index build the hook started");
  const next = await runHook("claude-code", "user-prompt", prompt, env());
  assert.match(context(next.stdout), /2 new messages from other AI agents on this machine \(codex:a, codex:b\)/);
});

test("a session whose snapshot the log left far behind, with the index within a reader's reach, is still told of its mail", async (t) => {
  const { env, store } = setup(t);
  const peerpost = store();
  await peerpost.mailbox.send({ from: "codex:a", fromVerified: true, to: "claude:me", body: "early", anticipation: "fyi" });
  await peerpost.mailbox.persist(peerpost.mailbox.view("claude:me"));
  // Others' mail past the snapshot: some of it indexed, the rest within what a reader indexes on its way.
  oldLog(peerpost.mailbox.log.path, 7_000_000);
  peerpost.mailbox.indexAll();
  await peerpost.mailbox.send({ from: "codex:a", fromVerified: true, to: "claude:me", body: "while you were away", anticipation: "reply" });
  oldLog(peerpost.mailbox.log.path, 5_000_000);
  assert.equal(store().mailbox.indexLag().farBehind, false);
  const result = await runHook("claude-code", "user-prompt", { session_id: "me", hook_event_name: "UserPromptSubmit", prompt: "hi" }, env());
  assert.match(context(result.stdout), /2 new messages from other AI agents on this machine \(codex:a \(2\)\)/);
});
