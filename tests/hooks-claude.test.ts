// The built Claude Code hook program (dist/claude-code/hooks.cjs) as Claude Code runs it: a child
// process with the stdin JSON the CLI sends (shapes recorded from claude 2.1.332) and the stdout
// contract it reads back: hookSpecificOutput.additionalContext for context, decision "block" for Stop.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import type { TestContext } from "node:test";
import { tempDir } from "./helpers/temp.js";
import { collect, type Collected } from "./helpers/children.js";
import { REPO_ROOT } from "./helpers/mcp.js";
import { openPeerpost, type Peerpost } from "../core/peerpost.js";

const HOOKS = join(REPO_ROOT, "dist", "claude-code", "hooks.cjs");
const T0 = Date.parse("2026-03-01T09:00:00.000Z");
const SECOND = 1000;

type Event = "session-start" | "user-prompt" | "stop";

interface Session {
  id: string;
  address: string;
  home: string;
  stateDir: string;
  cwd: string;
  /** Runs the hook for one event, with Claude Code's stdin for it and the clock at `now`. */
  hook(event: Event, now?: number, extra?: Record<string, unknown>): Promise<Collected>;
  /** The state dir opened in this process, its clock at `now`. */
  open(now: number): Peerpost;
}

/** Claude Code's stdin for each event, as the CLI sends it. */
function stdinFor(event: Event, sessionId: string, cwd: string, extra: Record<string, unknown>): Record<string, unknown> {
  const common = { session_id: sessionId, transcript_path: `/home/u/.claude/projects/-p/${sessionId}.jsonl`, cwd };
  if (event === "session-start") return { ...common, hook_event_name: "SessionStart", source: "startup", ...extra };
  const turn = { ...common, prompt_id: randomUUID(), permission_mode: "default" };
  if (event === "user-prompt") return { ...turn, hook_event_name: "UserPromptSubmit", prompt: "what next?", ...extra };
  return { ...turn, effort: { level: "medium" }, hook_event_name: "Stop", stop_hook_active: false, last_assistant_message: "done", background_tasks: [], session_crons: [], ...extra };
}

function runHook(event: Event, stdin: string, env: NodeJS.ProcessEnv, cwd: string): Promise<Collected> {
  const child = spawn(process.execPath, [HOOKS, event], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  const done = collect(child);
  child.stdin.end(stdin);
  return done;
}

function claudeSession(t: TestContext): Session {
  const home = tempDir(t, "peerpost-hooks-claude-");
  const stateDir = join(home, "peerpost");
  const id = randomUUID();
  const cwd = home;
  const env = (now: number): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? "", HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(now), CLAUDE_CODE_SESSION_ID: id, CLAUDECODE: "1" });
  return {
    id,
    address: `claude:${id}`,
    home,
    stateDir,
    cwd,
    hook: (event, now = T0, extra = {}) => runHook(event, JSON.stringify(stdinFor(event, id, cwd, extra)), env(now), cwd),
    open: (now) => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home, now: () => now }),
  };
}

function quiet(result: Collected): void {
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "");
}

function contextOf(result: Collected, hookEventName: string): string {
  assert.equal(result.code, 0, result.stderr);
  const output = JSON.parse(result.stdout) as { hookSpecificOutput?: { hookEventName?: string; additionalContext?: string } };
  assert.equal(output.hookSpecificOutput?.hookEventName, hookEventName);
  assert.equal(typeof output.hookSpecificOutput?.additionalContext, "string");
  return output.hookSpecificOutput!.additionalContext!;
}

async function send(peerpost: Peerpost, from: string, to: string, body: string, anticipation: "reply" | "fyi"): Promise<string> {
  return (await peerpost.mailbox.send({ from, fromVerified: true, to, body, anticipation })).message.id;
}

test("SessionStart registers the session with its cwd and prints nothing when no mail waits", async (t) => {
  const session = claudeSession(t);
  quiet(await session.hook("session-start"));
  const records = readFileSync(join(session.stateDir, "sessions.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.equal(records.length, 1);
  assert.deepEqual({ address: records[0]!.address, host: records[0]!.host, sessionId: records[0]!.sessionId, source: records[0]!.source, cwd: records[0]!.cwd }, { address: session.address, host: "claude-code", sessionId: session.id, source: "startup", cwd: session.cwd });
  quiet(await session.hook("session-start", T0, { source: "resume" }));
  assert.match(readFileSync(join(session.stateDir, "sessions.jsonl"), "utf8"), /"source":"resume"/);
});

test("SessionStart and UserPromptSubmit add a note with counts and senders, never the bodies", async (t) => {
  const session = claudeSession(t);
  quiet(await session.hook("session-start"));
  const peerpost = session.open(T0);
  await send(peerpost, "codex:peer", session.address, "BODY-ONE is secret", "reply");
  await send(peerpost, "codex:peer", session.address, "BODY-TWO is secret", "fyi");
  await send(peerpost, "grok:other", session.address, "BODY-THREE is secret", "fyi");
  const expected = "peerpost: 3 new messages from other AI agents on this machine (codex:peer (2), grok:other), 1 expecting an answer.";
  for (const [event, name] of [["session-start", "SessionStart"], ["user-prompt", "UserPromptSubmit"]] as const) {
    const note = contextOf(await session.hook(event), name);
    assert.ok(note.startsWith(expected), note);
    assert.match(note, /not from the user/);
    assert.doesNotMatch(note, /BODY-/);
  }
  // The note only tells: the messages stay unread for the read tool.
  assert.equal(session.open(T0).mailbox.inbox(session.address).filter((entry) => !entry.message.read).length, 3);
});

test("UserPromptSubmit and Stop print nothing and create no state dir when peerpost was never used", async (t) => {
  const session = claudeSession(t);
  quiet(await session.hook("user-prompt"));
  quiet(await session.hook("stop"));
  assert.equal(existsSync(session.stateDir), false);
});

test("Stop blocks for a read request that is due a reminder, once per interval, and never when stop_hook_active", async (t) => {
  const session = claudeSession(t);
  quiet(await session.hook("session-start"));
  const id = await send(session.open(T0), "codex:peer", session.address, "BODY: what is 6*7?", "reply");
  await session.open(T0).mailbox.markRead(session.address, [id]);

  // Read only a moment ago: nothing to remind yet.
  quiet(await session.hook("stop", T0 + 5 * SECOND));
  // Claude Code says this stop already follows a block: never block again, even with a reminder due.
  quiet(await session.hook("stop", T0 + 31 * SECOND, { stop_hook_active: true }));

  const blocked = await session.hook("stop", T0 + 31 * SECOND);
  assert.equal(blocked.code, 0, blocked.stderr);
  const output = JSON.parse(blocked.stdout) as { decision?: string; reason?: string };
  assert.equal(output.decision, "block");
  assert.equal(output.reason, `peerpost reminder: 1 request from other AI agents (codex:peer) still waits for your answer (${id}). Resolve each with the peerpost reply tool: resolution reply, decline (with a reason) or done.`);
  // The next reminder waits a full interval (default 30 s).
  quiet(await session.hook("stop", T0 + 40 * SECOND));
  assert.equal(session.open(T0 + 40 * SECOND).mailbox.view(session.address).state.messages[id]!.reminders.count, 1);
  assert.equal(JSON.parse((await session.hook("stop", T0 + 62 * SECOND)).stdout).decision, "block");
  // A resolved request is never reminded.
  await session.open(T0 + 70 * SECOND).mailbox.resolve({ by: session.address, id, resolution: "done" });
  quiet(await session.hook("stop", T0 + 200 * SECOND));
});

test("stdin that is not Claude Code's never breaks the prompt: exit 0, no output", async (t) => {
  const session = claudeSession(t);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "", HOME: session.home, PEERPOST_HOME: session.stateDir };
  for (const stdin of ["", "not json", "[]", JSON.stringify({ hook_event_name: "Stop" }), JSON.stringify({ session_id: "../../etc", hook_event_name: "SessionStart" })])
    quiet(await runHook("session-start", stdin, env, session.cwd));
  quiet(await runHook("not-an-event" as Event, JSON.stringify({ session_id: session.id }), env, session.cwd));
});
