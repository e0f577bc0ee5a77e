// Typing a request into a real Codex TUI in a tmux pane, offline: the TUI runs in a pane of the test's
// own tmux server against a loopback fake model, and after one turn it is idle. A request is typed as
// one line; the fake model calls read and reply; the sender's wait gets the answer. Text in the input
// line holds the typing until it is cleared, and a request that went stale meanwhile is never typed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { spawn } from "node:child_process";
import { CLI, connect } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { onCleanup } from "./helpers/temp.js";
import { until } from "./helpers/poll.js";
import { requestIds } from "./helpers/answer-mail.js";
import { startFakeResponses, type FakeResponses, type Script } from "./helpers/fake-openai-responses.js";
import { codexAvailable, codexBinary, isolatedCodexEnv, makeScratchDir, repoRoot, runCodex } from "./helpers/codex-cli.js";
import { NO_TMUX, startTmux } from "./helpers/tmux.js";
import { codexInputLine } from "../plugins/codex/terminal.js";
import { openPeerpost } from "../core/peerpost.js";
import { readTurn, turnEnded } from "../core/live/turns.js";

const availability = codexAvailable();
const skip = NO_TMUX || (availability.ok ? false : `codex CLI unavailable: ${availability.reason}`);
const NAMESPACE = "mcp__peerpost";
const PLUGIN = "peerpost@peerpost";

/**
 * The model: the person's "hello" gets a call to health (so the server learns its thread); a typed
 * peerpost line gets read, then a reply to each request the read showed, one per step.
 */
function typedTurns(fake: () => FakeResponses, answer: string): Script {
  const replied = new Set<string>();
  return (request) => {
    const shown = fake().shown(request);
    const prompts = shown.map((item, index) => (item.source === "user" && (item.text.includes("peerpost:") || item.text.includes("hello")) ? index : -1));
    const promptAt = Math.max(-1, ...prompts);
    const outputs = shown.slice(promptAt + 1).filter((item) => item.source === "tool_output");
    if (promptAt < 0 || !shown[promptAt]!.text.includes("peerpost:")) return outputs.length === 0 && promptAt >= 0 ? call("health") : { text: "DONE" };
    const read = outputs.find((item) => item.text.includes('"messages"'));
    if (!read) return call("read");
    const next = requestIds(read.text).find((id) => !replied.has(id));
    if (next === undefined) return { text: "DONE" };
    replied.add(next);
    return call("reply", { messageId: next, resolution: "reply", message: `${answer} ${next}` });
  };
}

function call(name: string, args: Record<string, unknown> = {}): { toolCall: { namespace: string; name: string; arguments: unknown } } {
  return { toolCall: { namespace: NAMESPACE, name, arguments: args } };
}

test("codex in tmux: an idle TUI gets a request typed, reads and replies; text in the input line holds the typing; a stale request is never typed", { skip, timeout: 300_000 }, async (t) => {
  let script: Script = () => ({ text: "hi" });
  const fake = await startFakeResponses((request, index) => script(request, index));
  onCleanup(t, () => fake.close());
  const scratch = makeScratchDir("peerpost-tmux-codex-");
  onCleanup(t, () => rmSync(scratch, { recursive: true, force: true }));
  const stateDir = join(scratch, "peerpost");
  const codex = isolatedCodexEnv(scratch, fake.baseUrl, { env: { PEERPOST_HOME: stateDir, PATH: `${dirname(codexBinary()!)}:${process.env.PATH ?? ""}`, TERM: "xterm-256color" } });
  delete codex.env.NO_COLOR;
  for (const args of [["plugin", "marketplace", "add", repoRoot()!, "--json"], ["plugin", "add", PLUGIN, "--json"]]) {
    const run = await runCodex(args, { env: codex.env });
    assert.equal(run.code, 0, run.stderr);
  }
  appendFileSync(codex.configPath, `\n[plugins."${PLUGIN}".mcp_servers.peerpost]\ndefault_tools_approval_mode = "approve"\n`);
  script = typedTurns(() => fake, "codex answers");

  const tmux = startTmux(t, scratch);
  tmux.start(codexBinary()!, ["--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust"], codex.env, codex.home);
  await tmux.inputShows(codexInputLine, "");
  // The person's first turn: the session registers, and its stop hook marks it idle.
  tmux.type("hello");
  tmux.sendKeys("Enter");
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: codex.home });
  await until(() => store().sessions.list({ host: "codex" }).some((session) => session.alive), 60_000, "the codex session to register");
  const address = store().sessions.list({ host: "codex" }).find((session) => session.alive)!.address;
  await until(() => readTurnEnded(stateDir, address) && fake.requests().some((request) => fake.shown(request).some((item) => item.source === "tool_output")), 60_000, "the first turn's health call");

  const peerEnv = { HOME: codex.home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "claude:peer" };
  const peer = await connect(t, peerEnv);
  await peer.call("health");
  const on = await collect(spawn(process.execPath, [CLI, "push", "on", "tmux", "codex"], { env: { PATH: process.env.PATH ?? "", ...peerEnv }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(on.code, 0, on.stderr);

  const asked = await peer.call("message", { to: address, message: "Which branch are you on?", anticipation: "reply" });
  const waited = await peer.call("wait", { messageId: asked.messageId, timeoutMs: 90_000 });
  assert.equal(waited.outcome, "reply", JSON.stringify({ waited, screen: tmux.capture() }));
  assert.match(String((waited.reply as { envelope: string }).envelope), new RegExp(`codex answers ${String(asked.messageId)}`));
  const first = store().mailbox.view(address).state.messages[String(asked.messageId)]!;
  assert.equal(first.delivered?.via, "tmux");
  assert.ok(fake.modelSaw(`peerpost: claude:peer asks for a reply (message ${String(asked.messageId)})`), "the typed line reached the model as the person's prompt");
  const pushed = store().receipts.query({ kind: "push", address }).receipts.find((receipt) => receipt.messageId === String(asked.messageId));
  assert.equal(pushed?.via, "tmux", JSON.stringify(pushed));
  assert.equal(pushed?.delivery, "delivered");

  // The person starts typing: a new request waits; one that goes stale meanwhile is never typed.
  await until(() => store().mailbox.view(address).state.messages[String(asked.messageId)]?.resolved !== undefined, 60_000, "the reply to land");
  await tmux.inputShows(codexInputLine, "");
  await until(() => readTurnEnded(stateDir, address), 60_000, "the answering turn to end");
  tmux.type("half a thought");
  await tmux.inputShows(codexInputLine, "half a thought");
  const soonStale = await peer.call("message", { to: address, message: "Quick: yes or no?", anticipation: "reply", replyBy: new Date(Date.now() + 4_000).toISOString() });
  const later = await peer.call("message", { to: address, message: "And which tests fail?", anticipation: "reply" });
  const requestsBefore = fake.requests().length;
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  const held = store().mailbox.view(address).state.messages;
  assert.equal(held[String(later.messageId)]?.delivered, undefined, "nothing is typed while the input line has text");
  assert.equal(fake.requests().length, requestsBefore, "no turn started while the person was typing");
  assert.match(tmux.capture(), /half a thought/);
  for (let i = 0; i < "half a thought".length; i++) tmux.sendKeys("BSpace");
  const answered = await peer.call("wait", { messageId: later.messageId, timeoutMs: 90_000 });
  assert.equal(answered.outcome, "reply", JSON.stringify({ answered, screen: tmux.capture() }));
  const after = store().mailbox.view(address).state.messages;
  assert.equal(after[String(later.messageId)]?.delivered?.via, "tmux");
  assert.equal(after[String(soonStale.messageId)]?.delivered, undefined, "the stale request was never typed");
  assert.ok(!fake.modelSaw(`(message ${String(soonStale.messageId)})`), "the stale request's line never reached the model");
});

function readTurnEnded(stateDir: string, address: string): boolean {
  return turnEnded(readTurn(stateDir, address));
}
