// Waking a real Claude Code session offline: a headless `claude -p` run creates a session and ends; a
// request from a peer wakes it (`claude -p --resume`, started by peerpost's detached runner with the
// environment captured at the session's start); the fake model calls read and reply; the answer
// reaches the peer's `wait`. Then a host binary that fails: the message stays open with a receipt.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { CLI, connect } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { claudeAnswerMail } from "./helpers/answer-mail.js";
import { spawn } from "node:child_process";
import { startFakeAnthropic, type Script } from "./helpers/fake-anthropic.js";
import { claudeBinary, claudeSkipReason, installFromDirectoryMarketplace, isolatedClaudeEnv, parsePrintResult, repoRoot, runClaude } from "./helpers/claude-cli.js";
import { openPeerpost } from "../core/peerpost.js";

const skip = claudeSkipReason();
const ROOT = repoRoot();
const TIMEOUT_MS = 90_000;
const tool = (name: string) => `mcp__plugin_peerpost_peerpost__${name}`;

/** What a failed wait needs to be understood: each run's records and the tail of its output log. */
function diagnose(runs: Array<{ ended?: { logPath?: string } }>, waited: unknown): string {
  const logs = runs.map((run) => (run.ended?.logPath && existsSync(run.ended.logPath) ? readFileSync(run.ended.logPath, "utf8").slice(-3000) : "(no log)"));
  return JSON.stringify({ waited, runs, logs }, null, 2);
}

/**
 * A temp world for one wake test: a state dir, a project dir, a fake Messages API whose answers the test
 * swaps with `world.script = …`, and an isolated Claude environment with `claude` on its PATH, as a
 * user's shell has it (the wake runs it from there).
 */
async function claudeWorld(t: TestContext, prefix: string) {
  const base = tempDir(t, prefix);
  const stateDir = join(base, "peerpost");
  const cwd = join(base, "project");
  mkdirSync(cwd);
  const answers = { script: (() => ({ text: "HELLO" })) as Script };
  const fake = await startFakeAnthropic((request) => answers.script(request));
  onCleanup(t, () => fake.close());
  const env = isolatedClaudeEnv(base, fake.url, { PEERPOST_HOME: stateDir, PATH: `${dirname(claudeBinary())}:${process.env.PATH ?? ""}` });
  return Object.assign(answers, { base, stateDir, cwd, fake, env });
}

test("claude: a request wakes an ended session headless; the model reads and replies; the answer reaches the sender's wait", { skip, timeout: 240_000 }, async (t) => {
  const world = await claudeWorld(t, "peerpost-wake-claude-");
  const { base, stateDir, cwd, env, fake } = world;
  await installFromDirectoryMarketplace(ROOT, "peerpost@peerpost", { env, cwd, timeoutMs: TIMEOUT_MS });
  const first = await runClaude(["-p", "hello", "--output-format", "json"], { env, cwd, timeoutMs: TIMEOUT_MS });
  assert.equal(first.code, 0, first.stderr + first.stdout);
  const sessionId = parsePrintResult(first.stdout).session_id;
  const address = `claude:${sessionId}`;
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: env.HOME! });
  assert.equal(store().sessions.all().find((entry) => entry.address === address)?.alive, false, "the run ended");

  // The requester's PATH has the host binary: a run without the session's own capture starts the one found there.
  const peerEnv = { HOME: env.HOME!, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "codex:peer", PATH: env.PATH ?? "" };
  const peer = await connect(t, peerEnv);
  await peer.call("health");
  const off = await peer.call("message", { to: address, message: "are you there?", anticipation: "reply" });
  assert.equal(off.wake, undefined, "waking is off by default");
  await peer.call("message", { to: address, message: "never mind", anticipation: "fyi" });
  const cli = (args: string[]) => collect(spawn(process.execPath, [CLI, ...args], { env: peerEnv, stdio: ["ignore", "pipe", "pipe"] }));
  // Answer the first request by hand, so the wake carries only the new one.
  assert.equal((await cli(["reply", String(off.messageId), "--as", address, "--done"])).code, 0);
  assert.equal((await cli(["wake", "on", "claude-code"])).code, 0);

  world.script = claudeAnswerMail(tool, "answer to");
  const before = fake.modelRequests.length;
  const asked = await peer.call("message", { to: address, message: "What is 6 times 7?", anticipation: "reply" });
  assert.equal(asked.ok, true, JSON.stringify(asked));
  assert.equal(asked.wake, "started", JSON.stringify(asked));
  const second = await peer.call("message", { to: address, message: "And 7 times 8?", anticipation: "reply" });
  assert.equal(second.wake, "running", "a second sender during the wake starts no second process");
  const waited = await peer.call("wait", { messageId: asked.messageId, timeoutMs: 60_000 });
  assert.equal(waited.outcome, "reply", diagnose(store().wakes.fold().runsFor({ address }), waited));
  assert.match(String((waited.reply as { envelope: string }).envelope), new RegExp(`answer to ${String(asked.messageId)}`));
  assert.match(String((waited.reply as { envelope: string }).envelope), new RegExp(`from="${address}" fromVerified="true"`));
  // The woken turn's answer spends a hop of the conversation, like any send.
  const reply = waited.reply as { hop: number; conversationId: string };
  assert.deepEqual([reply.hop, reply.conversationId], [2, asked.conversationId]);
  const woken = fake.modelRequests.slice(before);
  assert.ok(woken[0]!.shownText.includes("peerpost woke this session"), "the prompt carries the wake note");
  assert.ok(woken[0]!.shownText.includes("What is 6 times 7?"), "and the envelope");
  assert.deepEqual(fake.errors, []);

  // The second request was read by that run or carried by the next one; runs never overlapped.
  const secondAnswer = await peer.call("wait", { messageId: second.messageId, timeoutMs: 60_000 });
  assert.equal(secondAnswer.outcome, "reply", diagnose(store().wakes.fold().runsFor({ address }), secondAnswer));
  await until(() => store().wakes.fold().runsFor({ address }).every((run) => run.ended !== undefined), 30_000, "the runs to end");
  const runs = store().wakes.fold().runsFor({ address }).reverse();
  assert.ok(runs.length === 1 || runs.length === 2, `${runs.length} runs`);
  assert.ok(runs.every((run) => run.ended?.outcome === "ok"));
  if (runs.length === 2) assert.ok(Date.parse(runs[1]!.started!.at) >= Date.parse(runs[0]!.ended!.at), "runs never overlap");
  assert.match(runs[0]!.ended!.report ?? "", /^success, \d+ turn\(s\): ANSWERED/);
  const status = await peer.call("status", { messageId: asked.messageId });
  assert.equal((status.wakes as Array<{ state: string }>)[0]?.state, "ok");
  assert.equal(store().receipts.query({ kind: "wake" }).receipts.filter((receipt) => receipt.delivery === "delivered").length, runs.length);

  // Over budget: the send is stored, no run starts, and the result says why.
  const over = await collect(spawn(process.execPath, [CLI, "send", "--json", "--from", "codex:peer", "--to", address, "--anticipation", "reply", "one more?"], { env: { ...peerEnv, PEERPOST_WAKE_PER_HOUR: "1" }, stdio: ["ignore", "pipe", "pipe"] }));
  const overResult = JSON.parse(over.stdout) as { wake: string; warnings: Array<{ code: string; message: string }> };
  assert.equal(overResult.wake, "over_budget");
  assert.match(overResult.warnings.find((entry) => entry.code === "wake_over_budget")?.message ?? "", /PEERPOST_WAKE_PER_HOUR=1/);
  assert.equal(store().wakes.fold().runsFor({ address }).length, runs.length, "no run started");
  assert.equal((await cli(["reply", (JSON.parse(over.stdout) as { messageId: string }).messageId, "--as", address, "--done"])).code, 0);
  // A host binary that fails: the message stays open, and the receipt says why.
  const broken = join(base, "broken-bin");
  mkdirSync(broken);
  writeFileSync(join(broken, "claude"), "#!/bin/sh\necho 'claude: cannot reach the API' >&2\nexit 7\n");
  chmodSync(join(broken, "claude"), 0o755);
  // The session runs once more with that PATH (a user's shell changed): its SessionStart captures it.
  world.script = () => ({ text: "HELLO" });
  const resumed = await runClaude(["-p", "hello", "--output-format", "json", "--resume", sessionId], { env: { ...env, PATH: `${broken}:${env.PATH}` }, cwd, timeoutMs: TIMEOUT_MS });
  assert.equal(resumed.code, 0, resumed.stderr);
  const doomed = await peer.call("message", { to: address, message: "Still there?", anticipation: "reply" });
  assert.equal(doomed.wake, "started");
  await until(() => store().wakes.fold().runsFor({ messageId: String(doomed.messageId) })[0]?.ended !== undefined, 30_000, "the failing run to end");
  const failed = await peer.call("status", { messageId: doomed.messageId });
  assert.equal((failed.message as { status: string }).status, "queued", "the message stays open");
  const [run] = failed.wakes as Array<{ state: string; exitCode: number; reason: string }>;
  assert.equal(run?.state, "failed");
  assert.equal(run?.exitCode, 7);
  assert.match(run!.reason, /claude exited 7: claude: cannot reach the API/);
  const receipt = store().receipts.query({ kind: "wake" }).receipts.find((entry) => entry.messageId === doomed.messageId);
  assert.equal(receipt?.delivery, "failed");
});

test("claude: a session known only from its transcript is woken once peerpost is sure nothing holds it; the reply reaches wait", { skip, timeout: 240_000 }, async (t) => {
  const world = await claudeWorld(t, "peerpost-wake-discovered-");
  const { stateDir, cwd, env } = world;
  // The session runs before peerpost is installed: only its transcript tells of it.
  const first = await runClaude(["-p", "hello", "--output-format", "json"], { env, cwd, timeoutMs: TIMEOUT_MS });
  assert.equal(first.code, 0, first.stderr + first.stdout);
  const sessionId = parsePrintResult(first.stdout).session_id;
  const address = `claude:${sessionId}`;
  const projects = join(env.CLAUDE_CONFIG_DIR!, "projects");
  const transcript = readdirSync(projects).map((slug) => join(projects, slug, `${sessionId}.jsonl`)).find((path) => existsSync(path))!;
  assert.ok(transcript, "the transcript exists");
  await installFromDirectoryMarketplace(ROOT, "peerpost@peerpost", { env, cwd, timeoutMs: TIMEOUT_MS });

  const peerEnv = { ...(env as Record<string, string>), PEERPOST_ADDRESS: "codex:peer" };
  const peer = await connect(t, peerEnv);
  const on = await collect(spawn(process.execPath, [CLI, "wake", "on", "claude-code"], { env: peerEnv, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(on.code, 0, on.stderr);
  const codes = (result: Record<string, unknown>) => (result.warnings as Array<{ code: string; message: string }>).map((warning) => warning.code);
  const why = (result: Record<string, unknown>) => (result.warnings as Array<{ code: string; message: string }>).find((warning) => warning.code === "wake_unsure")?.message ?? "";

  // Just written: its host may still hold it.
  const fresh = await peer.call("message", { to: address, message: "Which files changed?", anticipation: "reply" });
  assert.equal(fresh.wake, "unsure", JSON.stringify(fresh));
  assert.match(why(fresh), /session file was written \d+ s ago/);
  assert.equal(openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: env.HOME! }).sessions.all().find((entry) => entry.address === address)?.source, "discovered");
  // Quiet for an hour, but a process names the session (as a live host's children do): still not woken.
  const old = new Date(Date.now() - 3_600_000);
  utimesSync(transcript, old, old);
  const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)", sessionId], { stdio: "ignore" });
  onCleanup(t, () => void holder.kill("SIGKILL"));
  await until(() => existsSync(`/proc/${holder.pid}/cmdline`) && readFileSync(`/proc/${holder.pid}/cmdline`, "utf8").includes(sessionId), 10_000, "the holder to start");
  const named = await peer.call("message", { to: address, message: "And which tests?", anticipation: "reply" });
  assert.equal(named.wake, "unsure");
  assert.match(why(named), new RegExp(`process ${holder.pid} names the session`));
  holder.kill("SIGKILL");
  await until(() => !existsSync(`/proc/${holder.pid}`), 10_000, "the holder to exit");

  // Nothing holds it: the wake starts and carries every open request.
  world.script = claudeAnswerMail(tool, "discovered answers");
  const asked = await peer.call("message", { to: address, message: "Summarise, please.", anticipation: "reply" });
  assert.equal(asked.wake, "started", JSON.stringify(asked));
  assert.ok(codes(asked).includes("recipient_waking"));
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: env.HOME! });
  const waited = await peer.call("wait", { messageId: asked.messageId, timeoutMs: 90_000 });
  assert.equal(waited.outcome, "reply", diagnose(store().wakes.fold().runsFor({ address }), waited));
  assert.match(String((waited.reply as { envelope: string }).envelope), new RegExp(`from="${address}" fromVerified="true"[\\s\\S]*discovered answers ${String(asked.messageId)}`));
  const [run] = store().wakes.fold().runsFor({ address });
  assert.deepEqual(new Set(run!.claim.messageIds), new Set([fresh.messageId, named.messageId, asked.messageId]));
  await until(() => store().wakes.fold().runsFor({ address })[0]?.ended !== undefined, 60_000, "the woken run to end");
  assert.equal(store().wakes.fold().runsFor({ address })[0]!.ended!.outcome, "ok");
});
