// `peerpost run claude` beside what the session's own server does, with a real Claude Code TUI offline:
// Claude's own cross-session inbox comes first (the wrapper types nothing while the session's server reports
// it, and so the recipient's own policy holds: a session that refuses cross-session messages gets none
// typed either), and a picker the person opened with a slash command (/model) never gets a request pasted
// into it, nor the Enter that would pick its highlighted entry.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect } from "./helpers/mcp.js";
import { until } from "./helpers/poll.js";
import { claudeSkipReason } from "./helpers/claude-cli.js";
import { NO_TMUX } from "./helpers/tmux.js";
import { sessionIdle } from "./helpers/live-typing.js";
import { idleClaudeTui } from "./helpers/claude-tui.js";

const skip = NO_TMUX || claudeSkipReason();

test("claude under peerpost run, its own inbox on: the inbox comes first, no request is typed as the person's prompt", { skip, timeout: 300_000 }, async (t) => {
  const { env, stateDir, address, store } = await idleClaudeTui(t, "pty", { CLAUDE_CODE_HARBOR_KITE: "1" });
  const peer = await connect(t, { HOME: env["HOME"]!, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "codex:peer", PEERPOST_PUSH_CONFIRM_MS: "8000" });
  const vias: string[] = [];
  for (let i = 0; i < 3; i++) {
    const asked = await peer.call("message", { to: address, message: `Question ${i}?`, anticipation: "reply" });
    assert.equal((await peer.call("wait", { messageId: asked.messageId, timeoutMs: 120_000 })).outcome, "reply");
    await until(() => sessionIdle(stateDir, address), 60_000, "the answering turn to end");
    vias.push(String(store().mailbox.view(address).state.messages[String(asked.messageId)]?.delivered?.via));
    await new Promise((resolve) => setTimeout(resolve, 1500));
  }
  assert.deepEqual(vias, ["claude-inbox", "claude-inbox", "claude-inbox"], "requests typed into the terminal as the person's prompt, though Claude's own inbox was there");
});

test("claude under peerpost run with crossSessionInbound refuse in its settings: no request is typed, the sender is warned", { skip, timeout: 300_000 }, async (t) => {
  const { fake, env, stateDir, tmux, address, store } = await idleClaudeTui(t, "pty", { CLAUDE_CODE_HARBOR_KITE: "1" });
  const settingsPath = join(env["CLAUDE_CONFIG_DIR"]!, "settings.json");
  writeFileSync(settingsPath, JSON.stringify({ ...JSON.parse(readFileSync(settingsPath, "utf8")), crossSessionInbound: "refuse" }));
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const peer = await connect(t, { HOME: env["HOME"]!, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "codex:peer", PEERPOST_PUSH_CONFIRM_MS: "8000" });
  const asked = await peer.call("message", { to: address, message: "Which branch are you on?", anticipation: "reply" });
  await new Promise((resolve) => setTimeout(resolve, 6000));
  const id = String(asked.messageId);
  const receipts = store().receipts.query({ kind: "push", address, limit: 50 }).receipts.filter((r) => r.messageId === id).map((r) => `${r.via}:${r.delivery}:${r.warnings[0] ?? ""}`);
  const state = store().mailbox.view(address).state.messages[id];
  assert.ok(!fake.sawText(`(message ${id})`) && state?.delivered === undefined, `the person refused cross-session messages (crossSessionInbound: "refuse"), yet the request was typed into their session as their own prompt: ${JSON.stringify({ delivery: asked.delivery, deliveredVia: asked.deliveredVia, warnings: asked.warnings, claim: state?.delivered, read: state?.read, receipts })}\n${tmux.capture()}`);
});

test("claude under peerpost run: a request is not typed into a picker the person opened with a slash command (/model)", { skip, timeout: 300_000 }, async (t) => {
  const { fake, env, stateDir, tmux, address, store } = await idleClaudeTui(t, "pty");
  tmux.type("/model");
  await new Promise((resolve) => setTimeout(resolve, 1500));
  tmux.sendKeys("Enter");
  await until(() => /Select model/.test(tmux.capture()), 30_000, `the /model picker\n${tmux.capture()}`);
  // The person reads the choices for a while (no hook ran for the slash command).
  await new Promise((resolve) => setTimeout(resolve, 6000));
  const picker = tmux.capture();
  const requests = fake.modelRequests.length;
  const peer = await connect(t, { HOME: env["HOME"]!, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "codex:peer", PEERPOST_PUSH_CONFIRM_MS: "8000" });
  const asked = await peer.call("message", { to: address, message: "Which branch are you on?", anticipation: "reply" });
  await new Promise((resolve) => setTimeout(resolve, 6000));
  const after = tmux.capture();
  const id = String(asked.messageId);
  const delivered = store().mailbox.view(address).state.messages[id]?.delivered;
  assert.ok(!/Set model to/.test(after), `peerpost's Enter confirmed the person's open /model picker (sender told ${JSON.stringify({ delivery: asked.delivery, deliveredVia: asked.deliveredVia })}):\n--- picker ---\n${picker}\n--- after ---\n${after}`);
  assert.ok(fake.sawText(`(message ${id})`) || delivered === undefined, `the request is claimed as delivered (${JSON.stringify(delivered)}) but its model never saw it (${fake.modelRequests.length - requests} model requests since)`);
});
