// Locks that must not block: a lock dir dated in the future, and a hook that finds the lock busy.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { tempDir, tempPeerpost } from "./helpers/temp.js";
import { collect, spawnFixture, waitForOutput } from "./helpers/children.js";
import { runHook } from "./helpers/hooks.js";
import { openPeerpost } from "../core/peerpost.js";

test("a lock dir with a future mtime is taken over at once instead of blocking deciding appends", async (t) => {
  // A stale window and a wait that a lock dated an hour ahead would outlast many times over.
  const { stateDir, reopen } = tempPeerpost(t, { PEERPOST_LOCK_STALE_MS: "600000", PEERPOST_LOCK_TIMEOUT_MS: "1000" });
  const store = reopen();
  await store.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "before" });
  const lock = join(stateDir, "mailbox.jsonl.lock");
  mkdirSync(lock);
  const future = new Date(Date.now() + 3_600_000);
  utimesSync(lock, future, future);
  const { message, created } = await store.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "after", idempotencyKey: "k" });
  assert.equal(created, true);
  assert.deepEqual(reopen().mailbox.inbox("codex:b").map((entry) => entry.body), ["before", "after"]);
  assert.equal((await store.mailbox.resolve({ id: message.id, by: "codex:b", resolution: "done" })).message.resolved?.resolution, "done");
});

test("a prompt hook that finds the lock busy still prints its note and postpones the reminder it could not record", { timeout: 60_000 }, async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const T0 = Date.parse("2026-03-01T10:00:00.000Z");
  const env = (now: number) => ({ HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(now), PEERPOST_REMINDER_INTERVAL_MS: "30000", PEERPOST_LOCK_STALE_MS: "2000" });
  const store = (now = T0) => openPeerpost({ env: env(now), home, now: () => now });
  const { mailbox } = store();
  const { message: request } = await mailbox.send({ from: "codex:asker", fromVerified: true, to: "claude:me", body: "need an answer", anticipation: "reply" });
  await mailbox.markRead("claude:me", [request.id]);
  await mailbox.send({ from: "codex:other", fromVerified: true, to: "claude:me", body: "new mail" });
  // A live holder that keeps the lock fresh far longer than any hook may wait.
  const holder = spawnFixture("lock-holder", [stateDir, "20000"], { PEERPOST_LOCK_STALE_MS: "2000" });
  const held = collect(holder);
  t.after(() => holder.kill("SIGKILL"));
  await waitForOutput(holder, "locked");
  // Judged stale only after 10 s: a holder descheduled past its 1 s refresh on a busy machine is still live.
  const busy = await runHook("claude-code", "user-prompt", { session_id: "me", hook_event_name: "UserPromptSubmit" }, { ...env(T0 + 30_000), PEERPOST_LOCK_STALE_MS: "10000" });
  assert.equal(busy.code, 0, busy.stderr);
  assert.match(busy.stdout, /codex:other/, "the note about new mail is printed");
  assert.doesNotMatch(busy.stdout, /reminder/, "no reminder is claimed without recording it");
  assert.equal(store(T0 + 30_000).mailbox.view("claude:me").state.messages[request.id]!.reminders.count, 0);
  holder.kill("SIGKILL");
  await held;
  // The lock's holder died: a later hook records the postponed reminder (a dead lock goes stale, a live one is not stolen).
  const later = await runHook("claude-code", "user-prompt", { session_id: "me", hook_event_name: "UserPromptSubmit" }, { ...env(T0 + 30_000), PEERPOST_LOCK_TIMEOUT_MS: "4000" });
  assert.match(later.stdout, /reminder/);
  assert.equal(store(T0 + 30_000).mailbox.view("claude:me").state.messages[request.id]!.reminders.count, 1);
});
