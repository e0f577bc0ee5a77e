// A fork's final answer comes back to the forked session however much the fork printed on its way: a Codex
// fork streams every command's output in its `--json` events, so a turn that read a big file prints more
// than the run log keeps (256 KiB), and its answer, the last event, still reaches the original.
// An answer in non-ASCII text over 64 KiB of UTF-8 comes back cut to the body limit, never inside a character.
// A Claude Code fork names its new session only in its final `result` line, after the whole answer: a long
// answer makes that line longer than a pipe's read, and the fork is still named and completes.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { standInOnPath } from "./helpers/stand-in-bin.js";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { openPeerpost } from "../core/peerpost.js";
import type { WakeState } from "../core/wake/wake-fold.js";
import { claudeResult, standInClaude } from "./helpers/stand-in-claude.js";

/** A stand-in `codex exec --json fork` printing `events` (lines of JS calling `out`), forked from a session; its answers back once the run is reconciled. */
async function codexForkAnswers(t: TestContext, prefix: string, events: string): Promise<{ run: WakeState; bodies: string[] }> {
  const { home, work: project, env } = standInOnPath(t, prefix, "codex", `const out = (event) => process.stdout.write(JSON.stringify(event) + "\\n");\nout({ type: "thread.started", thread_id: "forked-thread" });\n${events}\nout({ type: "turn.completed", usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 5 } });\n`);
  const store = () => openPeerpost({ env, home, create: true });
  const address = "codex:original";
  await store().sessions.register({ host: "codex", address, sessionId: "original", cwd: project, source: "startup" });
  const forked = await collect(spawn(process.execPath, [CLI, "fork", address, "What is the answer?", "--json"], { env, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(forked.code, 0, forked.stderr + forked.stdout);
  const runId = String((JSON.parse(forked.stdout) as { runId: string }).runId);
  await until(() => store().wakes.fold().runs.get(runId)?.reconciled !== undefined, 30_000, "the fork to end and answer");
  const answers = Object.values(store().mailbox.view(address).state.messages).filter((message) => message.to === address && message.from === "codex:forked-thread");
  return { run: store().wakes.fold().runs.get(runId)!, bodies: answers.map((message) => store().mailbox.body(message)) };
}

test("a Codex fork that printed more than the log keeps still sends its final answer back", { timeout: 120_000 }, async (t) => {
  // One command whose output is 300 KiB, then the answer.
  const { run, bodies } = await codexForkAnswers(
    t,
    "peerpost-fork-big-",
    `out({ type: "item.completed", item: { id: "item_0", type: "command_execution", command: "cat big.log", aggregated_output: "x".repeat(300 * 1024), exit_code: 0, status: "completed" } });
out({ type: "item.completed", item: { id: "item_1", type: "agent_message", text: "FORK ANSWER: 42" } });`,
  );
  assert.equal(run.ended?.outcome, "ok", JSON.stringify(run.ended));
  assert.equal(bodies.length, 1);
  assert.match(bodies[0]!, /FORK ANSWER: 42/, `the original was sent: ${bodies[0]!.slice(0, 300)}`);
});

test("a fork whose answer is 30,000 CJK characters (90 KB of UTF-8) still sends it back, cut to 64 KiB", { timeout: 120_000 }, async (t) => {
  const { bodies } = await codexForkAnswers(t, "peerpost-fork-cjk-", `out({ type: "item.completed", item: { id: "item_1", type: "agent_message", text: "答".repeat(30000) } });`);
  assert.equal(bodies.length, 1);
  const body = bodies[0]!;
  assert.match(body, /^<fork thread="codex:forked-thread"/);
  assert.ok(Buffer.byteLength(body, "utf8") <= 64 * 1024);
  assert.ok(!body.includes("\uFFFD"), "no character cut in half");
});

test("a Claude Code fork whose answer is 100 KB is named, completes, and answers", { timeout: 120_000 }, async (t) => {
  const { home, stateDir, project, path } = standInClaude(t, "peerpost-fork-long-line-", () => claudeResult(`FORK ANSWER ${"x".repeat(100 * 1024)}`, "forked-1"));
  const env = { HOME: home, PEERPOST_HOME: stateDir, PATH: path };
  const store = () => openPeerpost({ env, home, create: true });
  const address = "claude:original";
  await store().sessions.register({ host: "claude-code", address, sessionId: "original", cwd: project, source: "startup", hostPid: spawnSync("true").pid! });
  const forked = await collect(spawn(process.execPath, [CLI, "fork", address, "Write it all out", "--json"], { env, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(forked.code, 0, forked.stderr + forked.stdout);
  const runId = String((JSON.parse(forked.stdout) as { runId: string }).runId);
  await until(() => store().wakes.fold().runs.get(runId)?.reconciled !== undefined, 30_000, "the fork to end and answer");
  const run = store().wakes.fold().runs.get(runId)!;
  assert.equal(run.ended?.outcome, "ok", JSON.stringify(run.ended));
  assert.equal(run.forked?.address, "claude:forked-1");
  const answer = Object.values(store().mailbox.view(address).state.messages).find((message) => message.to === address && message.from === "claude:forked-1");
  assert.ok(answer, "the answer came from the fork's address");
  assert.match(store().mailbox.body(answer), /status="completed"\/>\n\nFORK ANSWER x/);
});
