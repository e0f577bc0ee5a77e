// A host TUI in a tmux pane that the person suspended (Ctrl-Z, `fg` later) still reads the pane's terminal,
// and its session's server may still run. When the person starts another program (another TUI of the same
// host) from their shell in that pane, its input line is the one on the screen: a request to the suspended
// session is never typed there. (live-tmux-suspended-codex.test.ts: the same with real Codex TUIs.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { until } from "./helpers/poll.js";
import { NO_TMUX, startTmux } from "./helpers/tmux.js";
import { writeFakeTui, submittedLines } from "./helpers/fake-tui.js";
import { TmuxPush } from "../core/live/tmux.js";
import { codexInputLine } from "../plugins/codex/terminal.js";
import { openPeerpost } from "../core/peerpost.js";
import { PushLoop } from "../core/server/push.js";
import { updateSwitches } from "../core/wake/switches.js";

function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ").filter(Boolean).map(Number);
}

test("a request to a host suspended (Ctrl-Z) in a tmux pane is never typed into the program the person started there next", { skip: NO_TMUX, timeout: 120_000 }, async (t) => {
  const scratch = tempDir(t, "peerpost-live-suspended-");
  const log = join(scratch, "submitted.log");
  const tmux = startTmux(t, scratch);
  const tui = writeFakeTui(scratch);
  // The person's shell in the pane, with job control; the host TUI started from it.
  tmux.start("/bin/bash", ["--norc", "--noprofile", "-i"], { PATH: process.env.PATH ?? "", PS1: "$ ", HOME: scratch, HISTFILE: join(scratch, "history") }, scratch);
  await until(() => /^\$/m.test(tmux.capture()), 10_000, "the shell prompt");
  tmux.type(`${process.execPath} ${tui} ${log}`);
  tmux.sendKeys("Enter");
  await tmux.inputShows(codexInputLine, "");
  let hostPid: number | undefined;
  await until(() => (hostPid = childrenOf(tmux.panePid())[0]) !== undefined, 10_000, "the host process");
  // The person suspends the host (Ctrl-Z: Codex 0.171.0 does it, and keeps its MCP servers running), and
  // starts another session of the same host from the shell, in the same pane.
  process.kill(hostPid!, "SIGTSTP");
  await until(() => /Stopped/.test(tmux.capture()), 10_000, `the shell to report the stopped job\n${tmux.capture()}`);
  const otherLog = join(scratch, "other.log");
  tmux.type(`${process.execPath} ${tui} ${otherLog}`);
  tmux.sendKeys("Enter");
  await tmux.inputShows(codexInputLine, "");

  const stateDir = join(scratch, "state");
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: scratch });
  onCleanup(t, () => peerpost.backend.close());
  updateSwitches(stateDir, (switches) => void (switches.push = { tmux: { all: true } }));
  const address = "codex:suspended";
  const loop = new PushLoop(peerpost, new TmuxPush(peerpost, "codex", tmux.pane(), codexInputLine, hostPid!), "codex");
  onCleanup(t, () => loop.stop());
  loop.start({ address, sessionId: "suspended", source: "registry", detail: "test", verified: false });
  const { message } = await peerpost.mailbox.send({ from: "claude:asker", fromVerified: false, to: address, body: "hello", anticipation: "reply" });
  await new Promise((resolve) => setTimeout(resolve, 5000));
  await loop.stop();
  const delivered = peerpost.mailbox.view(address).state.messages[message.id]?.delivered;
  const typedIntoOther = submittedLines(otherLog).some((line) => line.text.includes(message.id));
  assert.equal(typedIntoOther, false, `the request to the suspended session was typed into the other program in the pane (claim: ${JSON.stringify(delivered)})`);
  assert.equal(delivered, undefined, "the request counts as delivered, and never reaches its session");
});
