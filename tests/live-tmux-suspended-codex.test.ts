// With real Codex 0.171.0 TUIs (offline): the person runs one from their shell in a tmux pane, suspends it
// with Ctrl-Z (Codex clears its screen, and its peerpost server, in a process group of its own, keeps
// running), and starts another Codex session in the same pane. A request to the suspended session is not
// typed into the other one.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { CLI, connect } from "./helpers/mcp.js";
import { until } from "./helpers/poll.js";
import { codexAvailable, codexBinary } from "./helpers/codex-cli.js";
import { NO_TMUX } from "./helpers/tmux.js";
import { idleCodexTui } from "./helpers/codex-tui.js";
import { codexInputLine } from "../plugins/codex/terminal.js";

const availability = codexAvailable();

test("codex in tmux suspended with Ctrl-Z, another codex started in the pane: a request to the suspended session is not typed into the other", { skip: NO_TMUX || (availability.ok ? false : availability.reason), timeout: 300_000 }, async (t: TestContext) => {
  const { fake, codex, stateDir, tmux, address } = await idleCodexTui(t, "codex answers", "shell");
  assert.equal(spawnSync(process.execPath, [CLI, "push", "on", "tmux", "codex"], { env: codex.env }).status, 0);

  tmux.sendKeys("C-z");
  await until(() => /Stopped/.test(tmux.capture()), 30_000, `the shell to report the stopped job\n${tmux.capture()}`);
  // The person starts another Codex session in the same pane, and leaves it idle.
  tmux.type(`${codexBinary()} --dangerously-bypass-approvals-and-sandbox --dangerously-bypass-hook-trust`);
  tmux.sendKeys("Enter");
  await tmux.inputShows(codexInputLine, "");
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const requests = fake.requests().length;
  const peer = await connect(t, { HOME: codex.home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "claude:peer", PEERPOST_PUSH_CONFIRM_MS: "8000" });
  const asked = await peer.call("message", { to: address, message: "Which branch are you on?", anticipation: "reply" });
  await new Promise((resolve) => setTimeout(resolve, 6000));
  const screen = tmux.capture();
  const typedInto = fake.requests().slice(requests).some((request) => fake.shown(request).some((item) => item.source === "user" && item.text.includes(String(asked.messageId))));
  assert.equal(typedInto, false, `the request to the suspended session ${address} was typed into the other Codex session in the pane, and its model got it (sender told ${JSON.stringify({ delivery: asked.delivery, deliveredVia: asked.deliveredVia })}):\n${screen}`);
  assert.notEqual(asked.delivery, "delivered", JSON.stringify(asked));
});
