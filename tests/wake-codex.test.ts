// Waking a real Codex thread offline: `codex exec` creates a thread (its SessionStart hook registers it)
// and ends; a request from a peer wakes it with `codex exec --json resume <id> <prompt>`, run by
// peerpost's detached runner with the environment captured from the codex process at its start; the
// fake model calls read and reply; the answer reaches the peer's `wait`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { CLI, connect } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { onCleanup } from "./helpers/temp.js";
import { responsesAnswerMail } from "./helpers/answer-mail.js";
import { until } from "./helpers/poll.js";
import { spawn } from "node:child_process";
import { startFakeResponses, type Script } from "./helpers/fake-openai-responses.js";
import { codexAvailable, codexBinary, isolatedCodexEnv, jsonLines, makeScratchDir, repoRoot, runCodex } from "./helpers/codex-cli.js";
import { openPeerpost } from "../core/peerpost.js";

const availability = codexAvailable();
const skip = availability.ok ? false : `codex CLI unavailable: ${availability.reason}`;
const NAMESPACE = "mcp__peerpost";
const PLUGIN = "peerpost@peerpost";

test("codex: a request wakes an ended thread headless; the model reads and replies; the answer reaches the sender's wait", { skip, timeout: 240_000 }, async (t) => {
  let script: Script = () => ({ text: "hi" });
  const fake = await startFakeResponses((request, index) => script(request, index));
  onCleanup(t, () => fake.close());
  const scratch = makeScratchDir("peerpost-wake-codex-");
  onCleanup(t, () => rmSync(scratch, { recursive: true, force: true }));
  const stateDir = join(scratch, "peerpost");
  // `codex` on the session's PATH: the wake runs it from there.
  const codex = isolatedCodexEnv(scratch, fake.baseUrl, { env: { PEERPOST_HOME: stateDir, PATH: `${dirname(codexBinary()!)}:${process.env.PATH ?? ""}` } });
  const root = repoRoot()!;
  for (const args of [["plugin", "marketplace", "add", root, "--json"], ["plugin", "add", PLUGIN, "--json"]]) {
    const run = await runCodex(args, { env: codex.env });
    assert.equal(run.code, 0, run.stderr);
  }
  // peerpost's reply is not read-only: this lets it run without an approval prompt (see plugins/codex/README.md).
  appendFileSync(codex.configPath, `\n[plugins."${PLUGIN}".mcp_servers.peerpost]\ndefault_tools_approval_mode = "approve"\n`);
  const first = await runCodex(["exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "-s", "read-only", "hello"], { env: codex.env, timeoutMs: 60_000 });
  assert.equal(first.code, 0, first.stderr.slice(-2000));
  const threadId = String(jsonLines(first.stdout).find((event) => event["type"] === "thread.started")?.["thread_id"]);
  const address = `codex:${threadId}`;
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: codex.home });
  const entry = store().sessions.all().find((session) => session.address === address);
  assert.equal(entry?.source, "startup", "the SessionStart hook registered the thread");
  assert.equal(entry?.alive, false);

  const peerEnv = { HOME: codex.home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "claude:peer" };
  const peer = await connect(t, peerEnv);
  await peer.call("health");
  const on = await collect(spawn(process.execPath, [CLI, "wake", "on", address], { env: { PATH: process.env.PATH ?? "", ...peerEnv }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(on.code, 0, on.stderr);
  script = responsesAnswerMail(() => fake, NAMESPACE, "codex answers");
  const asked = await peer.call("message", { to: address, message: "Which branch are you on?", anticipation: "reply" });
  assert.equal(asked.wake, "started", JSON.stringify(asked));
  const waited = await peer.call("wait", { messageId: asked.messageId, timeoutMs: 40_000 });
  const runs = () => store().wakes.fold().runsFor({ address });
  const toolOutputs = fake.requests().flatMap((request) => fake.shown(request).filter((shown) => shown.source === "tool_output").map((shown) => shown.text.slice(0, 600)));
  assert.equal(waited.outcome, "reply", JSON.stringify({ waited, runs: runs(), toolOutputs }, null, 1));
  assert.match(String((waited.reply as { envelope: string }).envelope), new RegExp(`from="${address}" fromVerified="true"[\\s\\S]*codex answers ${String(asked.messageId)}`));
  await until(() => runs()[0]?.ended !== undefined, 60_000, "the woken run to end");
  const ended = runs()[0]!.ended;
  assert.equal(ended?.outcome, "ok", JSON.stringify(ended));
  assert.match(ended?.report ?? "", /agent: ANSWERED/);
  assert.ok(fake.modelSaw("peerpost woke this session"), "the prompt carried the wake note");
});
