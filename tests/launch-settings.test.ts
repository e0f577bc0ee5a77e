// Launch settings on the real pinned CLIs, offline: `launch` with a model and an effort passes them with
// the host's own flags, so the fake model API is called with that model name; each launch with settings
// writes a `settings` receipt; a bad effort is refused before anything is written.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { spawn } from "node:child_process";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { CLI, connect } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { assertUsageAtLeast } from "./helpers/usage.js";
import { until } from "./helpers/poll.js";
import { claudeAnswerMail, responsesAnswerMail } from "./helpers/answer-mail.js";
import { startFakeAnthropic } from "./helpers/fake-anthropic.js";
import { startFakeResponses, type Script } from "./helpers/fake-openai-responses.js";
import { claudeBinary, claudeSkipReason, isolatedClaudeEnv } from "./helpers/claude-cli.js";
import { codexAvailable, codexBinary, isolatedCodexEnv, makeScratchDir, repoRoot } from "./helpers/codex-cli.js";
import { openPeerpost } from "../core/peerpost.js";

const claudeSkip = claudeSkipReason();
const codex = codexAvailable();

test("launch settings on Claude Code: --model and --effort reach the model API; a settings receipt names them; a bad effort changes nothing", { skip: claudeSkip, timeout: 180_000 }, async (t) => {
  const base = tempDir(t, "peerpost-launch-settings-");
  const stateDir = join(base, "peerpost");
  const work = join(base, "work");
  mkdirSync(work);
  const fake = await startFakeAnthropic(claudeAnswerMail((name) => `mcp__peerpost__${name}`, "tuned helper says"));
  onCleanup(t, () => fake.close());
  const env = isolatedClaudeEnv(base, fake.url, { PEERPOST_HOME: stateDir, PATH: `${dirname(claudeBinary())}:${process.env.PATH ?? ""}` }) as Record<string, string>;
  const boss = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:boss" });
  const on = await collect(spawn(process.execPath, [CLI, "launch", "on"], { env, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(on.code, 0, on.stderr);
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: env.HOME! });

  const bad = await boss.call("launch", { host: "claude-code", cwd: work, message: "x", effort: "ludicrous" });
  assert.equal((bad.error as { code: string }).code, "invalid_arguments", JSON.stringify(bad));
  assert.match(JSON.stringify(bad.error), /low, medium, high, xhigh, max/);
  assert.equal(store().wakes.fold().runs.size, 0, "no run was claimed");
  assert.equal(store().sessions.all().filter((s) => s.host === "claude-code").length, 0, "no session was registered");

  const launched = await boss.call("launch", { host: "claude-code", cwd: work, message: "Count the files here.", model: "claude-settings-test-model", effort: "high" });
  assert.equal(launched.ok, true, JSON.stringify(launched));
  const address = String(launched.address);
  const waited = await boss.call("wait", { messageId: launched.messageId, timeoutMs: 90_000 });
  assert.equal(waited.outcome, "reply", JSON.stringify({ waited, errors: fake.errors }));
  const models = new Set(fake.modelRequests.map((request) => request.body.model));
  assert.ok(models.has("claude-settings-test-model"), `the model API saw ${[...models].join(", ")}`);
  const run = () => store().wakes.fold().runsFor({ address })[0]!;
  assert.deepEqual(run().claim.settings, { model: "claude-settings-test-model", effort: "high" });
  const receipt = store().receipts.query({ kind: "settings" }).receipts[0]!;
  assert.equal(receipt.to, address);
  assert.deepEqual(receipt.tags, ["model=claude-settings-test-model", "effort=high", `cwd=${work}`.slice(0, 64)]);
  await until(() => run().ended !== undefined, 60_000, "the launched run to end");
  const launchReceipt = store().receipts.query({ kind: "launch" }).receipts[0];
  assert.deepEqual(launchReceipt?.tags?.slice(0, 2), ["model=claude-settings-test-model", "effort=high"]);
  // And the tokens the run spent (the fake answers 10 in, 5 out a call).
  assertUsageAtLeast(launchReceipt?.tags, 10, 5);
});

test("launch settings on Codex: -m and model_reasoning_effort reach the Responses API", { skip: codex.ok ? false : `codex CLI unavailable: ${codex.reason}`, timeout: 240_000 }, async (t) => {
  let script: Script = () => ({ text: "hi" });
  const fake = await startFakeResponses((request, index) => script(request, index));
  onCleanup(t, () => fake.close());
  const scratch = makeScratchDir("peerpost-launch-settings-codex-");
  onCleanup(t, () => rmSync(scratch, { recursive: true, force: true }));
  const stateDir = join(scratch, "peerpost");
  const work = join(scratch, "work");
  mkdirSync(work);
  const env = isolatedCodexEnv(scratch, fake.baseUrl, { env: { PEERPOST_HOME: stateDir, PATH: `${dirname(codexBinary()!)}:${process.env.PATH ?? ""}` } });
  const launcherEnv = { ...env.env, PEERPOST_ADDRESS: "claude:boss" };
  const boss = await connect(t, launcherEnv, join(repoRoot()!, "dist", "claude-code", "server.mjs"), []);
  const on = await collect(spawn(process.execPath, [CLI, "launch", "on"], { env: launcherEnv, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(on.code, 0, on.stderr);
  script = responsesAnswerMail(() => fake, "mcp__peerpost", "tuned codex says");
  const launched = await boss.call("launch", { host: "codex", cwd: work, message: "Count the files here.", model: "gpt-settings-test", effort: "high" });
  assert.equal(launched.ok, true, JSON.stringify(launched));
  const waited = await boss.call("wait", { messageId: launched.messageId, timeoutMs: 90_000 });
  assert.equal(waited.outcome, "reply", JSON.stringify(waited));
  const bodies = fake.requests().map((request) => request.body);
  assert.ok(bodies.some((body) => body.model === "gpt-settings-test"), `the model API saw ${bodies.map((body) => String(body.model)).join(", ")}`);
  assert.ok(bodies.some((body) => (body.reasoning as { effort?: string } | undefined)?.effort === "high"), JSON.stringify(bodies.map((body) => body.reasoning)));
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: env.home });
  assert.deepEqual(store().receipts.query({ kind: "settings" }).receipts[0]?.tags?.slice(0, 2), ["model=gpt-settings-test", "effort=high"]);
  // The helper still writes its session files after it answers: the scratch dir goes once its run has ended.
  const run = () => store().wakes.fold().runsFor({ address: String(launched.address) })[0]!;
  await until(() => run().ended !== undefined, 60_000, "the launched run to end");
  assert.equal(run().ended!.outcome, "ok");
  assert.deepEqual(store().receipts.query({ kind: "launch" }).receipts[0]?.tags?.slice(0, 2), ["model=gpt-settings-test", "effort=high"]);
});
