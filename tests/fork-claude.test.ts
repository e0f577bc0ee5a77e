// Forking a real Claude Code session offline: `peerpost fork` runs `claude -p --resume <id> --fork-session
// --model M` detached; the fake model is called with M and sees the original history; the original's
// transcript is unchanged; the fork's final answer comes back to the original session as one message.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { cli, json } from "./helpers/cli.js";
import { assertUsageAtLeast } from "./helpers/usage.js";
import { until } from "./helpers/poll.js";
import { startFakeAnthropic, type Script } from "./helpers/fake-anthropic.js";
import { claudeBinary, claudeSkipReason, installFromDirectoryMarketplace, isolatedClaudeEnv, parsePrintResult, repoRoot, runClaude } from "./helpers/claude-cli.js";
import { openPeerpost } from "../core/peerpost.js";
import { sweepRuns } from "../core/wake/sweeper.js";
import { wakeDeps } from "../plugins/wakers.js";

const skip = claudeSkipReason();
const TIMEOUT_MS = 90_000;

function transcriptOf(configDir: string, sessionId: string): string {
  const projects = join(configDir, "projects");
  for (const project of readdirSync(projects)) if (readdirSync(join(projects, project)).includes(`${sessionId}.jsonl`)) return join(projects, project, `${sessionId}.jsonl`);
  throw new Error(`no transcript for ${sessionId}`);
}

const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

test("claude: a fork runs on the forked history under the new model, leaves the original transcript unchanged, and its answer returns once", { skip, timeout: 240_000 }, async (t) => {
  const base = tempDir(t, "peerpost-fork-claude-");
  const stateDir = join(base, "peerpost");
  const cwd = join(base, "project");
  mkdirSync(cwd);
  let script: Script = () => ({ text: "NOTED" });
  const fake = await startFakeAnthropic((request) => script(request));
  onCleanup(t, () => fake.close());
  const env = isolatedClaudeEnv(base, fake.url, { PEERPOST_HOME: stateDir, PEERPOST_USER: "pat", PATH: `${dirname(claudeBinary())}:${process.env.PATH ?? ""}` }) as Record<string, string>;
  await installFromDirectoryMarketplace(repoRoot(), "peerpost@peerpost", { env, cwd, timeoutMs: TIMEOUT_MS });
  const first = await runClaude(["-p", "Remember the word PINEAPPLE.", "--output-format", "json"], { env, cwd, timeoutMs: TIMEOUT_MS });
  assert.equal(first.code, 0, first.stderr + first.stdout);
  const sessionId = parsePrintResult(first.stdout).session_id;
  const address = `claude:${sessionId}`;
  const transcript = transcriptOf(env.CLAUDE_CONFIG_DIR!, sessionId);
  const before = sha(transcript);
  const originalModel = fake.modelRequests.at(-1)!.body.model;

  script = () => ({ text: "FORK ANSWER: the word was PINEAPPLE" });
  const asked = fake.modelRequests.length;
  const forked = await cli(env, "fork", address, "Which word did I ask you to remember?", "--model", "claude-fork-model", "--effort", "high", "--json");
  assert.equal(forked.code, 0, forked.stderr + forked.stdout);
  const runId = String(json(forked).runId);
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: env.HOME! })!;
  await until(() => store().wakes.fold().runs.get(runId)?.reconciled !== undefined, 120_000, "the fork to end and answer");
  const run = store().wakes.fold().runs.get(runId)!;
  assert.equal(run.ended?.outcome, "ok", JSON.stringify(run.ended));
  const forkAddress = run.forked?.address;
  assert.ok(forkAddress && forkAddress !== address && forkAddress.startsWith("claude:"), `the fork is a new session: ${forkAddress}`);

  const forkCalls = fake.modelRequests.slice(asked).filter((request) => request.shownText.includes("Which word did I ask you to remember?"));
  assert.ok(forkCalls.length > 0, "the fork called the model");
  assert.equal(forkCalls[0]!.body.model, "claude-fork-model");
  assert.notEqual(originalModel, "claude-fork-model");
  assert.ok(forkCalls[0]!.shownText.includes("Remember the word PINEAPPLE."), "the fork sees the original history");
  assert.equal(sha(transcript), before, "the original transcript is unchanged");
  assert.notEqual(transcriptOf(env.CLAUDE_CONFIG_DIR!, forkAddress.slice("claude:".length)), transcript);

  const answers = () => Object.values(store().mailbox.view(address).state.messages).filter((message) => message.to === address && message.from === forkAddress);
  assert.equal(answers().length, 1);
  const body = store().mailbox.body(answers()[0]!);
  assert.equal(body.split("\n")[0], `<fork thread="${forkAddress}" model="claude-fork-model" effort="high" status="completed"/>`);
  assert.match(body, /FORK ANSWER: the word was PINEAPPLE/);
  // Exactly once: a sweep after the runner reconciled sends nothing more.
  assert.equal(await sweepRuns(store(), wakeDeps()), 0);
  assert.equal(answers().length, 1);
  // Claude Code has no archive: housekeeping there is read-only, and a completed fork stays.
  const archive = await cli(env, "sessions", "archive", forkAddress, "--json");
  assert.notEqual(archive.code, 0);
  assert.match(archive.stdout + archive.stderr, /unsupported[\s\S]*no archive command/);
  const listed = json(await cli(env, "sessions", "list", "--host", "claude-code", "--json")).sessions as Array<{ address: string; archive: string }>;
  assert.deepEqual(listed.map((row) => row.address).sort(), [address, forkAddress].sort());
  assert.ok(listed.every((row) => row.archive === "unsupported"));
  // Receipts: the fork's start, its run (delivered, with its settings) and its answer.
  const receipts = store().receipts.query({ kind: "fork" }).receipts.reverse();
  assert.deepEqual(receipts.map((receipt) => receipt.tags?.[0]), ["status=started", "model=claude-fork-model", "status=completed"]);
  assert.equal(receipts[1]!.delivery, "delivered");
  // The run's and the answer's receipts carry the tokens the fork spent (the fake answers 10 in, 5 out a call).
  assertUsageAtLeast(receipts[1]!.tags, 10, 5);
  assertUsageAtLeast(receipts[2]!.tags, 10, 5);
});
