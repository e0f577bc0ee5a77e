// Launching a helper on real Codex, offline and without the plugin installed: `codex exec --json` picks
// the new thread's id itself, so the launch starts it detached with peerpost's server on its command line
// (`-c mcp_servers.peerpost…`), learns the id from `thread.started`, sends the task to that address and
// only then returns it. The fake model's first call is `read`, which finds the task; its reply reaches
// the launcher's `wait`. A follow-up wakes the thread with peerpost's server on the command line again (a
// resume does not keep it), and it answers that too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { spawn } from "node:child_process";
import { CLI, connect } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { onCleanup } from "./helpers/temp.js";
import { responsesAnswerMail } from "./helpers/answer-mail.js";
import { until } from "./helpers/poll.js";
import { startFakeResponses, type Script } from "./helpers/fake-openai-responses.js";
import { codexAvailable, codexBinary, isolatedCodexEnv, makeScratchDir, repoRoot } from "./helpers/codex-cli.js";
import { openPeerpost } from "../core/peerpost.js";

const availability = codexAvailable();
const skip = availability.ok ? false : `codex CLI unavailable: ${availability.reason}`;

test("launch on codex: the call returns once codex names its thread; the model's first read finds the task and its reply reaches wait; woken for a follow-up, it has peerpost's tools again", { skip, timeout: 360_000 }, async (t) => {
  let script: Script = () => ({ text: "hi" });
  const fake = await startFakeResponses((request, index) => script(request, index));
  onCleanup(t, () => fake.close());
  const scratch = makeScratchDir("peerpost-launch-codex-");
  onCleanup(t, () => rmSync(scratch, { recursive: true, force: true }));
  const stateDir = join(scratch, "peerpost");
  const work = join(scratch, "work");
  mkdirSync(work);
  // No codex session was seen yet, so the launch runs with the launcher's environment: codex on PATH.
  const codex = isolatedCodexEnv(scratch, fake.baseUrl, { env: { PEERPOST_HOME: stateDir, PATH: `${dirname(codexBinary()!)}:${process.env.PATH ?? ""}` } });
  const launcherEnv = { ...codex.env, PEERPOST_ADDRESS: "claude:boss" };
  // The launcher is Claude Code's plugin server: the Codex session gets that bundle, told to serve Codex.
  const boss = await connect(t, launcherEnv, join(repoRoot()!, "dist", "claude-code", "server.mjs"), []);
  const on = await collect(spawn(process.execPath, [CLI, "launch", "on"], { env: launcherEnv, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(on.code, 0, on.stderr);
  const answerMail = responsesAnswerMail(() => fake, "mcp__peerpost", "codex helper says");
  script = answerMail;

  const launched = await boss.call("launch", { host: "codex", cwd: work, message: "Count the files here." });
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: codex.home });
  assert.equal(launched.ok, true, JSON.stringify({ launched, runs: store().wakes.fold().runsFor({}) }));
  const address = String(launched.address);
  assert.match(address, /^codex:[0-9a-f-]{36}$/);
  const run = () => store().wakes.fold().runs.get(String(launched.runId))!;
  assert.equal(run().bound?.address, address, "bound to the thread codex named");
  assert.deepEqual(run().claim.messageIds, [launched.messageId]);
  const waited = await boss.call("wait", { messageId: launched.messageId, timeoutMs: 90_000 });
  assert.equal(waited.outcome, "reply", JSON.stringify({ waited, run: run() }));
  assert.match(String((waited.reply as { envelope: string }).envelope), new RegExp(`from="${address}" fromVerified="true"[\\s\\S]*codex helper says ${String(launched.messageId)}`));
  // The model's very first call was read, and it already showed the task.
  const firstToolOutput = fake.requests().flatMap((request) => fake.shown(request).filter((shown) => shown.source === "tool_output")).at(0);
  assert.match(firstToolOutput?.text ?? "", /Count the files here\./);
  assert.ok(fake.modelSaw("peerpost started this session"), "the prompt carried the launch note");
  await until(() => run().ended !== undefined, 60_000, "the launched run to end");
  assert.equal(run().ended?.outcome, "ok", JSON.stringify(run().ended));
  assert.equal(run().claim.kind, "launch");
  assert.equal(store().receipts.query({ kind: "launch" }).receipts[0]?.to, address);

  // The resumed thread's history shows the launch's read: the woken turn reads first, then answers what that read shows.
  let readAgain = false;
  script = (request, index) => (readAgain ? answerMail(request, index) : ((readAgain = true), { toolCall: { namespace: "mcp__peerpost", name: "read", arguments: {} } }));
  const wakeOn = await collect(spawn(process.execPath, [CLI, "wake", "on", address], { env: launcherEnv, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(wakeOn.code, 0, wakeOn.stderr);
  const asked = await boss.call("message", { to: address, message: "And how many of them are empty?", anticipation: "reply" });
  assert.equal(asked.wake, "started", JSON.stringify(asked));
  const followUp = await boss.call("wait", { messageId: asked.messageId, timeoutMs: 90_000 });
  assert.equal(followUp.outcome, "reply", JSON.stringify({ followUp, runs: store().wakes.fold().runsFor({ address }).map((each) => each.ended) }));
});
