// Settings a message changes, on a real Claude Code session woken offline: the session's override policy
// lets the peer change its model and effort; the wake that answers the message runs `claude --resume`
// with --model/--effort, so the fake model API is called with the new model name; a working-dir change
// is unsupported on Claude Code (a session lives under its project dir).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";
import { cli } from "./helpers/cli.js";
import { assertUsageAtLeast } from "./helpers/usage.js";
import { until } from "./helpers/poll.js";
import { claudeAnswerMail } from "./helpers/answer-mail.js";
import { startFakeAnthropic, type Script } from "./helpers/fake-anthropic.js";
import { claudeBinary, claudeSkipReason, installFromDirectoryMarketplace, isolatedClaudeEnv, parsePrintResult, repoRoot, runClaude } from "./helpers/claude-cli.js";
import { openPeerpost } from "../core/peerpost.js";

const skip = claudeSkipReason();
const TIMEOUT_MS = 90_000;

test("claude: an allowed model and effort change by message is used by the wake that answers it", { skip, timeout: 240_000 }, async (t) => {
  const base = tempDir(t, "peerpost-wake-settings-");
  const stateDir = join(base, "peerpost");
  const cwd = join(base, "project");
  mkdirSync(cwd);
  let script: Script = () => ({ text: "HELLO" });
  const fake = await startFakeAnthropic((request) => script(request));
  onCleanup(t, () => fake.close());
  const env = isolatedClaudeEnv(base, fake.url, { PEERPOST_HOME: stateDir, PATH: `${dirname(claudeBinary())}:${process.env.PATH ?? ""}` }) as Record<string, string>;
  await installFromDirectoryMarketplace(repoRoot(), "peerpost@peerpost", { env, cwd, timeoutMs: TIMEOUT_MS });
  const first = await runClaude(["-p", "hello", "--output-format", "json"], { env, cwd, timeoutMs: TIMEOUT_MS });
  assert.equal(first.code, 0, first.stderr + first.stdout);
  const address = `claude:${parsePrintResult(first.stdout).session_id}`;
  const firstModel = fake.modelRequests.at(-1)!.body.model;

  const peerEnv = { HOME: env.HOME!, PEERPOST_HOME: stateDir, PEERPOST_USER: "pat", PATH: env.PATH ?? "" };
  const peer = await connect(t, { ...peerEnv, PEERPOST_ADDRESS: "codex:peer" });
  await peer.call("health");
  assert.equal((await cli(peerEnv, "wake", "on", "claude-code")).code, 0);
  assert.equal((await cli(peerEnv, "override-policy", address, "--model", "codex:peer", "--effort", "codex:peer", "--cwd", "*")).code, 0);
  const cwdChange = await peer.call("message", { to: address, message: "move", anticipation: "reply", settings: { cwd } });
  assert.equal((cwdChange.error as { code: string }).code, "unsupported", JSON.stringify(cwdChange));
  assert.match((cwdChange.error as { message: string }).message, /project directory/);

  script = claudeAnswerMail((name) => `mcp__plugin_peerpost_peerpost__${name}`, "answer to");
  const before = fake.modelRequests.length;
  const asked = await peer.call("message", { to: address, message: "What is 6 times 7?", anticipation: "reply", settings: { model: "claude-override-test", effort: "low" } });
  assert.equal(asked.ok, true, JSON.stringify(asked));
  assert.equal(asked.wake, "started", JSON.stringify(asked));
  const waited = await peer.call("wait", { messageId: asked.messageId, timeoutMs: 60_000 });
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: env.HOME! });
  assert.equal(waited.outcome, "reply", JSON.stringify({ waited, runs: store().wakes.fold().runsFor({ address }), errors: fake.errors }));
  const woken = fake.modelRequests.slice(before);
  assert.ok(woken.length > 0);
  assert.notEqual(firstModel, "claude-override-test");
  assert.deepEqual([...new Set(woken.map((request) => request.body.model).filter((model) => model === "claude-override-test"))], ["claude-override-test"], `the woken turn called ${woken.map((r) => r.body.model).join(", ")}`);
  await until(() => store().wakes.fold().runsFor({ address })[0]?.ended !== undefined, 60_000, "the run to end");
  assert.deepEqual(store().wakes.fold().runsFor({ address })[0]!.claim.settings, { model: "claude-override-test", effort: "low" });
  const receipt = store().receipts.query({ kind: "wake" }).receipts[0];
  assert.deepEqual(receipt?.tags?.slice(0, 2), ["model=claude-override-test", "effort=low"]);
  // The run's receipt carries the tokens it spent (the fake answers 10 in, 5 out a call), and the next
  // model change states the cost in tokens: what that run read, now to be read again uncached.
  assertUsageAtLeast(receipt?.tags, 10, 5);
  const spent = store().wakes.fold().runsFor({ address })[0]!.ended!.usage!;
  const next = await peer.call("message", { to: address, message: "From now on, be brief.", anticipation: "fyi", settings: { model: "claude-override-next" } });
  const cost = (next.settings as { expectedCost: string[] }).expectedCost.join("\n");
  assert.match(cost, new RegExp(`its last headless run read ${spent.input} input tokens`), cost);
});
