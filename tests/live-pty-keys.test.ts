// `peerpost run` follows the person's keys to tell whether their input line is empty. Keys the hosts give
// a meaning of their own leave it unsure, never sure it is empty: Enter on the @file menu (it picks a
// file and submits nothing) and on a slash command (it may open a picker, where Enter picks an entry) until
// a hook shows a turn after it, and Esc twice (the rewind or backtrack view). It follows the host it started, not a headless host that host runs as a tool; and a host that is
// not on PATH ends it with 127 and a plain message, as without a terminal.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fsModule from "node:fs";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { InputLine } from "../core/live/keystrokes.js";
import { KeyRelay } from "../core/live/key-relay.js";
import { PtyPush } from "../core/live/pty.js";
import { recordTurn } from "../core/live/turns.js";
import { tempPeerpost, onCleanup } from "./helpers/temp.js";
import { until } from "./helpers/poll.js";
import { CLI } from "./helpers/mcp.js";
import { makeScratchDir } from "./helpers/codex-cli.js";
import { NO_TMUX, startTmux } from "./helpers/tmux.js";

const address = "codex:wrapped";

function wrapped(t: Parameters<typeof tempPeerpost>[0], now?: () => number) {
  const { peerpost, stateDir } = tempPeerpost(t);
  peerpost.config.now = Date.now;
  const input = new InputLine(now);
  const written: string[] = [];
  const relay = new KeyRelay(input, (data) => written.push(data.toString("utf8")));
  const push = new PtyPush(peerpost, "codex", { pid: process.pid, write: (data) => void written.push(data), bracketedPaste: () => true, holdKeys: () => relay.hold() }, input);
  push.bind({ address, sessionId: "wrapped", source: "registry", detail: "test", verified: false });
  return { push, input, stateDir, relay };
}

test("Enter that picks an entry of the host's file menu (@file) does not leave the line counted empty", async (t) => {
  // The person typed `@src/fo`, and Enter took `@src/foo.ts` from the file menu: the line now reads
  // `explain @src/foo.ts `, nothing was submitted, no prompt hook ran; they pause for more than 5 s.
  const { push, input, stateDir } = wrapped(t, () => Date.now() - 6_000);
  input.observe("explain @src/fo");
  input.observe("\r");
  assert.notEqual(await push.ready(), undefined, "the request would be typed after the person's draft and submitted with it");
  // A prompt that was submitted is seen as such once its prompt hook ran: typing goes on after its turn.
  recordTurn(stateDir, address, "prompt", new Date().toISOString());
  recordTurn(stateDir, address, "stop", new Date(Date.now() + 1).toISOString());
  assert.equal(await push.ready(), undefined, "a submitted prompt (its hook ran), its turn over: idle again");
});

test("a host without a prompt hook (Grok): the stop that ends the turn after the Enter shows the @file line was submitted", async (t) => {
  const { push, input, stateDir } = wrapped(t, () => Date.now() - 6_000);
  input.observe("explain @src/foo.ts");
  input.observe("\r");
  assert.notEqual(await push.ready(), undefined);
  recordTurn(stateDir, address, "stop", new Date().toISOString());
  assert.equal(await push.ready(), undefined);
});

test("Enter on a slash command (/model opens a picker, and runs no prompt hook) does not leave the line counted empty", async (t) => {
  const { push, input, stateDir } = wrapped(t, () => Date.now() - 6_000);
  input.observe("/model");
  input.observe("\r");
  assert.notEqual(await push.ready(), undefined, "the request would be pasted into the picker, and its Enter would pick the highlighted model");
  input.observe("\u0003");
  assert.equal(await push.ready(), undefined, "Ctrl-C closes the picker: idle again");
  input.observe("/clear\r");
  assert.notEqual(await push.ready(), undefined);
  // The person's next prompt runs its hook: typing goes on after its turn.
  input.observe("go on\r");
  recordTurn(stateDir, address, "prompt", new Date().toISOString());
  recordTurn(stateDir, address, "stop", new Date(Date.now() + 1).toISOString());
  assert.equal(await push.ready(), undefined);
  // A slash typed and erased leaves a plain prompt.
  input.observe("/\u007fexplain this\r");
  assert.equal(await push.ready(), undefined, "a plain prompt, submitted more than 5 s ago, its turn not seen: idle");
});

test("Esc twice on an empty line (the host's rewind / edit-previous-message view) is not an empty input line", async (t) => {
  const { push, relay } = wrapped(t);
  assert.equal(await push.ready(), undefined);
  // Two key presses, two reads of the person's terminal.
  relay.keys(Buffer.from("\u001b"));
  relay.keys(Buffer.from("\u001b"));
  assert.notEqual(await push.ready(), undefined, "the request and its Enter would go into the rewind view: Enter picks a message to rewind to");
  relay.keys(Buffer.from("\u0003"));
  assert.equal(await push.ready(), undefined, "Ctrl-C closes it: idle again");
});

test("peerpost run with the host missing from PATH exits 127 with a plain message, as without a terminal", { skip: NO_TMUX, timeout: 120_000 }, async (t) => {
  const scratch = makeScratchDir("peerpost-run-missing-");
  onCleanup(t, () => rmSync(scratch, { recursive: true, force: true }));
  const bin = join(scratch, "bin");
  mkdirSync(bin);
  const tmux = startTmux(t, scratch);
  tmux.start("/bin/sh", ["-c", `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} run codex; echo "wrapper exit $?"; sleep 600`], { PATH: `${bin}:/usr/bin:/bin`, HOME: scratch, PEERPOST_HOME: join(scratch, "state"), TERM: "xterm-256color" }, scratch);
  await until(() => tmux.capture().includes("wrapper exit"), 30_000, `the wrapper to exit\n${tmux.capture()}`);
  const screen = tmux.capture();
  assert.match(screen, /wrapper exit 127/, screen);
  assert.match(screen, /peerpost run: cannot start codex/, screen);
});

test("peerpost run follows the host it started, not a headless host that host runs as a tool (a nested session seen later)", async (t) => {
  const { spawn } = await import("node:child_process");
  const { sessionUnder } = await import("../core/live/pty.js");
  const { hostStartField } = await import("../core/sessions/process-tree.js");
  const { peerpost, clock } = tempPeerpost(t);
  // The wrapper's child is the TUI's host process; a tool call of its session runs `codex exec …`, a host of its own, under it.
  const outer = spawn("/bin/sh", ["-c", "sleep 60 & wait"], { stdio: "ignore" });
  onCleanup(t, () => outer.kill("SIGKILL"));
  let nestedPid: number | undefined;
  await until(() => {
    nestedPid = fsModule.readFileSync(`/proc/${outer.pid}/task/${outer.pid}/children`, "utf8").trim().split(" ").map(Number).find((pid: number) => pid > 0);
    return nestedPid !== undefined;
  }, 5_000, "the nested host process");
  onCleanup(t, () => void (nestedPid && process.kill(nestedPid, "SIGKILL")));
  await peerpost.sessions.register({ host: "codex", address: "codex:the-tui", sessionId: "the-tui", hostPid: outer.pid!, ...hostStartField(outer.pid!), source: "server", push: "none" });
  clock.now += 60_000;
  await peerpost.sessions.register({ host: "codex", address: "codex:nested-exec", sessionId: "nested-exec", hostPid: nestedPid!, ...hostStartField(nestedPid!), source: "server", push: "none" });
  assert.equal(sessionUnder(peerpost, "codex", outer.pid!)?.address, "codex:the-tui", "requests to the nested run would be typed into the person's TUI, and the TUI's own would no longer be");
});

