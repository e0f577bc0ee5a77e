// Mail at the end of a turn: every host's stop hook (Claude Code and Codex Stop, Copilot agentStop, Grok
// Stop) blocks once per unread request it has not told the session about, as a real child process.
// A stop hook that finds the mailbox lock busy still records the turn end and blocks nothing it could not mark.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { runHook, type HookHost } from "./helpers/hooks.js";
import { openPeerpost } from "../core/peerpost.js";
import { collect, spawnFixture, waitForOutput } from "./helpers/children.js";
import { readTurn, turnEnded } from "../core/live/turns.js";

const T0 = Date.parse("2026-03-01T10:00:00.000Z");

function setup(t: Parameters<typeof tempDir>[0]) {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(T0) };
  const store = () => openPeerpost({ env, home, now: () => T0 });
  return { env, store };
}

/** Each host's own stop event stdin, as its CLI sends it. */
const STOP_INPUT: Record<HookHost, (sessionId: string, active: boolean) => Record<string, unknown>> = {
  "claude-code": (id, active) => ({ session_id: id, hook_event_name: "Stop", stop_hook_active: active, last_assistant_message: "done" }),
  codex: (id, active) => ({ session_id: id, turn_id: "t1", hook_event_name: "Stop", model: "gpt-5.1", stop_hook_active: active, last_assistant_message: "done" }),
  copilot: (id, active) => ({ sessionId: id, timestamp: T0, cwd: "/w", transcriptPath: "/w/t.jsonl", stopReason: "end_turn", stop_hook_active: active }),
  grok: (id, active) => ({ hookEventName: "stop", hook_event_name: "Stop", sessionId: id, reason: "end_turn", stopHookActive: active }),
};
const KIND: Record<HookHost, string> = { "claude-code": "claude", codex: "codex", copilot: "copilot", grok: "grok" };

for (const host of Object.keys(STOP_INPUT) as HookHost[]) {
  test(`${host}: the stop hook blocks once for an unread request (count, senders, how to read; no body), never for fyi, never in a continued turn`, async (t) => {
    const { env, store } = setup(t);
    const me = `${KIND[host]}:s1`;
    const peerpost = store();
    await peerpost.mailbox.send({ from: "codex:asker", fromVerified: true, to: me, body: "just so you know SECRET-FYI" });
    const stop = (active = false) => runHook(host, "stop", STOP_INPUT[host]("s1", active), env);
    assert.equal((await stop()).stdout, "", "fyi mail waits for the next prompt");
    await peerpost.mailbox.send({ from: "codex:asker", fromVerified: true, to: me, body: "SECRET-QUESTION what is 2+2?", anticipation: "reply" });
    await peerpost.mailbox.send({ from: "grok:helper", fromVerified: true, to: me, body: "SECRET-TASK run it", anticipation: "action" });
    assert.equal((await stop(true)).stdout, "", "the host says it already continues from a block");
    const blocked = await stop();
    assert.equal(blocked.code, 0, blocked.stderr);
    const decision = JSON.parse(blocked.stdout) as Record<string, string>;
    // Codex accepts exactly these two keys in a Stop hook's output; the others read the same shape.
    assert.deepEqual(Object.keys(decision).sort(), ["decision", "reason"]);
    assert.equal(decision.decision, "block");
    assert.match(decision.reason!, /2 new messages/);
    assert.match(decision.reason!, /codex:asker, grok:helper/);
    assert.match(decision.reason!, /read tool/);
    assert.ok(!blocked.stdout.includes("SECRET"), "never a body");
    assert.equal((await stop()).stdout, "", "told once: the next turn end does not block again");
    const noticed = store().mailbox.view(me).state.messages;
    assert.equal(Object.values(noticed).filter((message) => message.noticed).length, 2);
    await peerpost.mailbox.send({ from: "codex:asker", fromVerified: true, to: me, body: "and another?", anticipation: "reply" });
    const again = JSON.parse((await stop()).stdout) as Record<string, string>;
    assert.match(again.reason!, /1 new message from/, "only the new request");
  });
}

test("stop hooks racing at one turn end block exactly once between them", async (t) => {
  const { env, store } = setup(t);
  await store().mailbox.send({ from: "codex:asker", fromVerified: true, to: "claude:race", body: "q?", anticipation: "reply" });
  const runs = await Promise.all(Array.from({ length: 4 }, () => runHook("claude-code", "stop", STOP_INPUT["claude-code"]("race", false), env)));
  for (const run of runs) assert.equal(run.code, 0, run.stderr);
  assert.equal(runs.filter((run) => run.stdout.includes('"block"')).length, 1, runs.map((run) => run.stdout).join("|"));
  const events = store().mailbox.log;
  let noticed = 0;
  events.scan(0, ({ record }) => void (record.type === "noticed" && noticed++));
  assert.equal(noticed, 1, "one noticed event in the log");
});

test("a request already read does not block as new mail, and a shutdown stop (Grok) never blocks", async (t) => {
  const { env, store } = setup(t);
  const peerpost = store();
  const { message } = await peerpost.mailbox.send({ from: "codex:asker", fromVerified: true, to: "claude:r", body: "q?", anticipation: "reply" });
  await peerpost.mailbox.markRead("claude:r", [message.id]);
  assert.equal((await runHook("claude-code", "stop", STOP_INPUT["claude-code"]("r", false), env)).stdout, "");
  await peerpost.mailbox.send({ from: "codex:asker", fromVerified: true, to: "grok:g", body: "q?", anticipation: "reply" });
  const shutdown = await runHook("grok", "stop", { ...STOP_INPUT.grok("g", false), reason: "shutdown" }, env);
  assert.equal(shutdown.stdout, "");
});

test("a request still unread a reminder interval later blocks one more turn end, at most the reminder limit more times", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const settings = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_REMINDER_INTERVAL_MS: "60000", PEERPOST_REMINDER_LIMIT: "2" };
  const at = (ms: number) => ({ ...settings, PEERPOST_NOW: String(T0 + ms) });
  const stop = (ms: number) => runHook("codex", "stop", STOP_INPUT.codex("late", false), at(ms));
  const blocks = async (ms: number) => (await stop(ms)).stdout.includes('"block"');
  await openPeerpost({ env: settings, home, now: () => T0 }).mailbox.send({ from: "claude:asker", fromVerified: true, to: "codex:late", body: "q?", anticipation: "reply" });
  assert.equal(await blocks(0), true, "first turn end");
  assert.equal(await blocks(59_000), false, "within the interval: once");
  assert.equal(await blocks(60_000), true, "an interval later, still unread: once more");
  assert.equal(await blocks(61_000), false);
  assert.equal(await blocks(120_000), true, "the limit's second time again");
  assert.equal(await blocks(300_000), false, "past the limit (2 more after the first): no more blocks");
  let noticed = 0;
  openPeerpost({ env: settings, home, now: () => T0 }).mailbox.log.scan(0, ({ record }) => void (record.type === "noticed" && noticed++));
  assert.equal(noticed, 3);
  // Once read, it is a reminder's business, not a turn end's.
  const fresh = await openPeerpost({ env: settings, home, now: () => T0 }).mailbox.send({ from: "claude:asker", fromVerified: true, to: "codex:late", body: "q2?", anticipation: "reply" });
  assert.equal(await blocks(400_000), true);
  await openPeerpost({ env: settings, home, now: () => T0 + 400_001 }).mailbox.markRead("codex:late", [fresh.message.id]);
  const later = (await stop(500_000)).stdout;
  assert.doesNotMatch(later, /new message/, "read mail does not block as new mail (only as a due reminder)");
});

test("a stop hook that finds the mailbox lock busy still records the turn end, exits 0 and blocks nothing it could not mark", { timeout: 60_000 }, async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const T0 = Date.parse("2026-03-01T10:00:00.000Z");
  const env = (now: number) => ({ HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(now), PEERPOST_LOCK_STALE_MS: "10000", TMUX: "/tmp/tmux-0/default,1,0" });
  const { mailbox } = openPeerpost({ env: env(T0), home, now: () => T0 });
  await mailbox.send({ from: "codex:asker", fromVerified: true, to: "claude:me", body: "need an answer", anticipation: "reply" });
  const prompt = await runHook("claude-code", "user-prompt", { session_id: "me", hook_event_name: "UserPromptSubmit", prompt: "hi" }, env(T0 + 1000));
  assert.match(prompt.stdout, /1 new message/);
  assert.equal(turnEnded(readTurn(stateDir, "claude:me")), false, "the prompt hook recorded the turn's start");

  const holder = spawnFixture("lock-holder", [stateDir, "4000"], { PEERPOST_LOCK_STALE_MS: "10000" });
  const held = collect(holder);
  t.after(() => holder.kill("SIGKILL"));
  await waitForOutput(holder, "locked");
  const stop = await runHook("claude-code", "stop", { session_id: "me", hook_event_name: "Stop", stop_hook_active: false }, env(T0 + 2000));
  const released = waitForOutput(holder, "released");
  assert.ok(stop.stdout !== undefined);
  await released;
  await held;
  assert.equal(stop.code, 0, stop.stderr);
  assert.equal(stop.stdout, "", "nothing marked noticed, so no block");
  assert.equal(turnEnded(readTurn(stateDir, "claude:me")), true, `the turn end was not recorded: ${JSON.stringify(readTurn(stateDir, "claude:me"))}`);

  // Not lost: once the lock is free, the next turn end blocks for it.
  const later = await runHook("claude-code", "stop", { session_id: "me", hook_event_name: "Stop", stop_hook_active: false }, env(T0 + 3000));
  assert.match(later.stdout, /"decision":"block"/);
});
