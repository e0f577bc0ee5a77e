// Typing a request into a real Codex TUI in a tmux pane, offline: the TUI runs in a pane of the test's
// own tmux server against a loopback fake model, and after one turn it is idle. A request is typed as
// one line; the fake model calls read and reply; the sender's wait gets the answer. Text in the input
// line holds the typing until it is cleared, and a request that went stale meanwhile is never typed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { codexAvailable } from "./helpers/codex-cli.js";
import { NO_TMUX } from "./helpers/tmux.js";
import { idleCodexTui } from "./helpers/codex-tui.js";
import { checkTypedDelivery } from "./helpers/live-typing.js";
import { codexInputLine } from "../plugins/codex/terminal.js";

const availability = codexAvailable();
const skip = NO_TMUX || (availability.ok ? false : `codex CLI unavailable: ${availability.reason}`);

test("codex in tmux: an idle TUI gets a request typed, reads and replies; text in the input line holds the typing; a stale request is never typed", { skip, timeout: 300_000 }, async (t) => {
  const { fake, codex, stateDir, tmux, address } = await idleCodexTui(t, "codex answers");
  const on = await collect(spawn(process.execPath, [CLI, "push", "on", "tmux", "codex"], { env: { PATH: process.env.PATH ?? "", HOME: codex.home, PEERPOST_HOME: stateDir }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(on.code, 0, on.stderr);
  await checkTypedDelivery(t, { tmux, inputLine: codexInputLine, lineBreak: "C-j", stateDir, home: codex.home, address, via: "tmux", modelRequests: () => fake.requests().length, modelSaw: (needle) => fake.modelSaw(needle) }, "codex answers");
});
