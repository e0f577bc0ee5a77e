// How the tmux transport presses Enter: as a paste of one carriage return to the pane's program, never
// through the pane's key handling, which copies a key into every pane of a window with synchronize-panes
// on (a command half-typed in the person's shell there would run) and gives it to copy mode while the
// person scrolls back (the note would be left in the input line, unsubmitted, counted as delivered).
// And typing is only for the host that reads the pane's terminal: a headless host that the TUI there
// runs as a tool inherits TMUX_PANE, not the terminal.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { until } from "./helpers/poll.js";
import { NO_TMUX, startTmux, tuiInTmux, type TmuxServer } from "./helpers/tmux.js";
import { submittedLines } from "./helpers/fake-tui.js";
import { inputRefusal, TmuxPush } from "../core/live/tmux.js";
import { codexInputLine } from "../plugins/codex/terminal.js";
import { openPeerpost, type Peerpost } from "../core/peerpost.js";
import { PushLoop } from "../core/server/push.js";
import { updateSwitches } from "../core/wake/switches.js";
import { screenLines } from "../core/live/screen.js";

async function setUp(t: Parameters<typeof tempDir>[0]): Promise<{ server: TmuxServer; log: string; scratch: string; peerpost: Peerpost; address: string; loop: (hostPid?: number) => PushLoop }> {
  const { server, log, scratch } = tuiInTmux(t, "peerpost-tmux-enter-");
  const stateDir = join(scratch, "state");
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: scratch });
  onCleanup(t, () => peerpost.backend.close());
  updateSwitches(stateDir, (switches) => void (switches.push = { tmux: { all: true } }));
  await server.inputShows(codexInputLine, "");
  const address = "codex:tmux-enter";
  const loop = (hostPid = server.panePid()) => {
    const created = new PushLoop(peerpost, new TmuxPush(peerpost, "codex", server.pane(), codexInputLine, hostPid), "codex");
    onCleanup(t, () => created.stop());
    created.start({ address, sessionId: "tmux-enter", source: "registry", detail: "test", verified: false });
    return created;
  };
  return { server, log, scratch, peerpost, address, loop };
}

test("typing a request into a pane of a synchronized window never presses Enter in the window's other panes", { skip: NO_TMUX, timeout: 120_000 }, async (t) => {
  const { server, log, scratch, peerpost, address, loop } = await setUp(t);
  const hostPane = server.pane().pane;
  // The person's shell next to the host, a command typed and not yet run.
  const shellPane = server.command("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", hostPane, "sh").trim();
  const marker = join(scratch, "PWNED");
  await until(() => server.command("capture-pane", "-p", "-t", shellPane).match(/[$#] *$/m) !== null, 10_000, "the shell prompt");
  server.command("send-keys", "-t", shellPane, "-l", `touch ${marker}`);
  server.command("set-window-option", "-t", hostPane, "synchronize-panes", "on");
  loop();
  const { message } = await peerpost.mailbox.send({ from: "claude:asker", fromVerified: false, to: address, body: "hello", anticipation: "reply" });
  await until(() => submittedLines(log).some((line) => line.text.includes(message.id)), 20_000, `the request to be typed\n${server.capture()}`);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.equal(existsSync(marker), false, "the Enter of the delivery ran the command half-typed in the person's other pane");
});

test("a request typed while the person scrolls back in copy mode is submitted, or not typed at all: never left in the input line", { skip: NO_TMUX, timeout: 120_000 }, async (t) => {
  const { server, log, peerpost, address, loop } = await setUp(t);
  const hostPane = server.pane().pane;
  server.command("copy-mode", "-t", hostPane);
  assert.equal(server.command("display-message", "-p", "-t", hostPane, "#{pane_in_mode}").trim(), "1");
  const pushLoop = loop();
  const { message } = await peerpost.mailbox.send({ from: "claude:asker", fromVerified: false, to: address, body: "hello", anticipation: "reply" });
  // Long enough for a pass, its typing, and the 2 s it waits to press Enter again.
  await new Promise((resolve) => setTimeout(resolve, 6000));
  await pushLoop.stop();
  server.command("send-keys", "-t", hostPane, "-X", "cancel");
  const delivered = peerpost.mailbox.view(address).state.messages[message.id]?.delivered;
  const submitted = submittedLines(log).some((line) => line.text.includes(message.id));
  const input = codexInputLine(screenLines(server.capture()));
  assert.ok(submitted || (delivered === undefined && input === ""), JSON.stringify({ delivered, submitted, input }));
});

test("a headless host started from the pane's TUI (TMUX_PANE inherited, no terminal) never has its requests typed into that TUI", { skip: NO_TMUX, timeout: 120_000 }, async (t) => {
  const { log, peerpost, address, loop } = await setUp(t);
  // What `codex exec` run as a tool of the TUI is: a process with the pane's environment, and pipes for stdio.
  const nested = spawn("sleep", ["60"], { stdio: ["pipe", "ignore", "ignore"] });
  onCleanup(t, () => nested.kill("SIGKILL"));
  const pushLoop = loop(nested.pid!);
  const { message } = await peerpost.mailbox.send({ from: "claude:asker", fromVerified: false, to: address, body: "hello", anticipation: "reply" });
  await new Promise((resolve) => setTimeout(resolve, 4000));
  await pushLoop.stop();
  assert.equal(submittedLines(log).some((line) => line.text.includes(message.id)), false, "typed into the TUI of another session");
  assert.equal(peerpost.mailbox.view(address).state.messages[message.id]?.delivered, undefined);
});

test("nothing is typed while the foot of the pane shows a turn running (esc to interrupt), though the input line is empty; the same words higher up are the conversation's", { skip: NO_TMUX, timeout: 60_000 }, async (t) => {
  const scratch = tempDir(t, "peerpost-tmux-running-");
  const server = startTmux(t, scratch);
  // Codex at the person's Enter: the input cleared, "Working" drawn above it, before the prompt hook records the turn.
  const screen = join(scratch, "screen.txt");
  writeFileSync(screen, "• Working (0s • esc to interrupt)\n\n\u203a \n");
  server.start("/bin/sh", ["-c", `cat ${JSON.stringify(screen)}; sleep 600`], { PATH: "/usr/bin:/bin" }, scratch);
  await until(() => server.capture().includes("Working"), 10_000, "the screen");
  assert.match((await inputRefusal(server.pane(), codexInputLine)) ?? "", /shows a turn running/);
  // The words in the conversation, the turn over: the input line decides.
  server.command("respawn-pane", "-k", "-t", "host", "/bin/sh", "-c", `printf 'the model said: press esc to interrupt\\n'; for i in 1 2 3 4 5 6 7 8 9 10; do echo; echo line $i; done; printf '\\n\u203a \\n'; sleep 600`);
  await until(() => server.capture().includes("line 10"), 10_000, "the new screen");
  assert.equal(await inputRefusal(server.pane(), codexInputLine), undefined, server.capture());
});
