// Typing a request into a real Claude Code TUI, offline (the Messages API on a loopback fake), with its
// own cross-session inbox off (CLAUDE_CODE_HARBOR_KITE=0), so the terminal is its live transport: in a
// tmux pane directly, and under `peerpost run claude` in one. After the person's first turn it is idle; a
// typed request is read and answered; text in the input line holds the typing; a stale request is never
// typed. A turn the person interrupts with Esc (Claude Code runs no stop hook then) leaves the session idle
// for typing, once the prompt it gives back is cleared. With a budget of one live turn an hour, the second
// request is not typed, and the sender is told.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "./helpers/mcp.js";
import { until } from "./helpers/poll.js";
import { claudeSkipReason } from "./helpers/claude-cli.js";
import { NO_TMUX } from "./helpers/tmux.js";
import { checkTypedDelivery, sessionIdle } from "./helpers/live-typing.js";
import { idleClaudeTui } from "./helpers/claude-tui.js";
import { claudeInputLine } from "../plugins/claude-code/terminal.js";
import { screenLines } from "../core/live/screen.js";
import { readTurn } from "../core/live/turns.js";

const skip = NO_TMUX || claudeSkipReason();

for (const via of ["tmux", "pty"] as const) {
  const how = via === "tmux" ? "in tmux" : "under peerpost run in tmux";
  test(`claude ${how}: an idle TUI gets a request typed, reads and replies; text in the input line holds the typing; a stale request is never typed`, { skip, timeout: 300_000 }, async (t) => {
    const { fake, env, stateDir, tmux, address } = await idleClaudeTui(t, via);
    await checkTypedDelivery(t, { tmux, inputLine: claudeInputLine, lineBreak: "C-j", stateDir, home: env["HOME"]!, address, via, modelRequests: () => fake.modelRequests.length, modelSaw: (needle) => fake.sawText(needle) }, "claude answers");
  });
}

for (const via of ["tmux", "pty"] as const) {
  test(`claude ${via === "tmux" ? "in tmux" : "under peerpost run"}: after the person interrupts a turn with Esc (no stop hook runs), the idle session still gets requests typed`, { skip, timeout: 300_000 }, async (t) => {
    let stalled = false;
    // The model takes its time on the person's long task; the person gives up on it.
    const { fake, env, stateDir, tmux, address } = await idleClaudeTui(t, via, {}, (request) => {
      if (stalled || !JSON.stringify(request.messages).includes("do the long task")) return undefined;
      stalled = true;
      return new Promise(() => undefined);
    });
    tmux.type("do the long task");
    await tmux.inputShows(claudeInputLine, "do the long task");
    tmux.sendKeys("Enter");
    await until(() => fake.modelRequests.some((request) => request.shownText.includes("long task")), 60_000, `the long task to reach the model\n${tmux.capture()}`);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // Esc interrupts the turn, and Claude Code puts the prompt back into the input line: nothing is typed into it.
    tmux.sendKeys("Escape");
    await tmux.inputShows(claudeInputLine, "do the long task");
    const peer = await connect(t, { HOME: env["HOME"]!, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "codex:peer" });
    const asked = await peer.call("message", { to: address, message: "Which branch are you on?", anticipation: "reply" });
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    assert.equal(claudeInputLine(screenLines(tmux.capture())), "do the long task", "the person's prompt, given back, is untouched");
    // The person drops the task: Ctrl-C clears the line, and the request is typed.
    tmux.sendKeys("C-c");
    const waited = await peer.call("wait", { messageId: asked.messageId, timeoutMs: 60_000 });
    assert.equal(waited.outcome, "reply", `the idle session's request was never typed (turn ${JSON.stringify(readTurn(stateDir, address))})\n${tmux.capture()}`);
  });
}

test("claude in tmux with PEERPOST_WAKE_PER_HOUR=1: the second request is not typed; a skipped receipt and the sender's message say push_over_budget", { skip, timeout: 300_000 }, async (t) => {
  const { fake, env, stateDir, address, store } = await idleClaudeTui(t, "tmux", { PEERPOST_WAKE_PER_HOUR: "1" });
  const peer = await connect(t, { HOME: env["HOME"]!, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "codex:peer", PEERPOST_PUSH_CONFIRM_MS: "20000" });
  const first = await peer.call("message", { to: address, message: "First question?", anticipation: "reply" });
  assert.deepEqual([first.delivery, first.deliveredVia], ["delivered", "tmux"], JSON.stringify(first));
  assert.equal((await peer.call("wait", { messageId: first.messageId, timeoutMs: 120_000 })).outcome, "reply");
  await until(() => sessionIdle(stateDir, address), 60_000, "the answering turn to end");

  const second = await peer.raw("message", { to: address, message: "Second question?", anticipation: "reply" });
  const result = second.structuredContent!;
  const warnings = (result["warnings"] ?? []) as Array<{ code: string; message: string }>;
  assert.ok(warnings.some((warning) => warning.code === "push_over_budget" && /PEERPOST_WAKE_PER_HOUR=1/.test(warning.message)), JSON.stringify(result));
  assert.equal(result["delivery"], "queued");
  const secondId = String(result["messageId"]);
  const skipped = store().receipts.query({ kind: "push", address }).receipts.find((receipt) => receipt.messageId === secondId);
  assert.equal(skipped?.delivery, "skipped", JSON.stringify(skipped));
  assert.match(skipped?.warnings[0] ?? "", /^push_over_budget: /);
  // Several passes of the push loop: still not typed, and it waits unread for the hooks and read.
  await new Promise((resolve) => setTimeout(resolve, 4_000));
  assert.ok(!fake.sawText(`(message ${secondId})`), "the second request's line never reached the model");
  const message = store().mailbox.view(address).state.messages[secondId]!;
  assert.equal(message.delivered, undefined);
  assert.equal(message.read, undefined);
});
