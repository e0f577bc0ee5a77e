// The pure parts of typing into terminals: finding each host's input line on a captured screen (dim
// placeholder text blanked), following the person's keystrokes, the push switches, and choosing the
// first available transport.
import { test } from "node:test";
import assert from "node:assert/strict";
import { screenLines } from "../core/live/screen.js";
import { InputLine } from "../core/live/keystrokes.js";
import { FirstAvailable } from "../core/live/choose.js";
import { paneOf } from "../core/live/tmux.js";
import { PasteMode, PtyPush } from "../core/live/pty.js";
import { KeyRelay } from "../core/live/key-relay.js";
import { recordTurn } from "../core/live/turns.js";
import { tempPeerpost } from "./helpers/temp.js";
import { pushSetting } from "../core/wake/switches.js";
import { liveNote } from "../core/live/rules.js";
import { codexInputLine } from "../plugins/codex/terminal.js";
import { copilotInputLine } from "../plugins/copilot/terminal.js";
import { grokInputLine } from "../plugins/grok/terminal.js";
import { claudeInputLine } from "../plugins/claude-code/terminal.js";
import type { PushTransport } from "../core/server/adapter.js";
import type { MessageState } from "../core/mail/fold.js";

// Lines as `tmux capture-pane -p -e` gave them for codex-cli 0.171.0, Copilot CLI 1.0.102, Grok 1.0.41 and Claude Code 2.1.332.
const CODEX_EMPTY = "\u001b[1m›\u001b[0m\u001b[39m\u001b[49m \u001b[2mAsk Codex to do anything\n\u001b[0m\u001b[39m\u001b[49m\n  \u001b[38;5;223mgpt-5.1 default\u001b[39m · ~";
const CODEX_TYPED = "\u001b[1;2m\u001b[38;5;255m› \u001b[0m\u001b[38;5;255m\u001b[48;5;238mhello there\u001b[39m\n\u001b[1m›\u001b[0m\u001b[39m\u001b[49m hello again\n";
const COPILOT = " ❯ hello copilot                 14:04\n ● HELLO\n\u001b[2m────────\n\u001b[0m\u001b[39m\u001b[49m❯ draft\n\u001b[2m────────";
const CLAUDE = "❯\u00a0hello claude\n● HELLO\n\u001b[38;5;244m────\n\u001b[39m❯\u00a0\u001b[7m \n\u001b[0m\u001b[38;5;244m────";
const GROK = "     ❯ hello grok          2:04 PM\n  \u001b[38;5;239m╭────╮\n  \u001b[38;5;239m│\u001b[38;5;254m \u001b[38;5;251m❯ \u001b[38;5;254mnext                \u001b[38;5;239m│\u001b[39m\n  ╰────╯";

test("each host's input line is found on its screen; dim placeholder text and history lines do not count", () => {
  assert.equal(codexInputLine(screenLines(CODEX_EMPTY)), "");
  assert.equal(codexInputLine(screenLines(CODEX_TYPED)), "hello again", "the dim › of a history line is not the input line");
  assert.equal(copilotInputLine(screenLines(COPILOT)), "draft", "an indented ❯ is history");
  assert.equal(copilotInputLine(screenLines(COPILOT.replace("❯ draft", "❯"))), "");
  assert.equal(grokInputLine(screenLines(GROK)), "next");
  assert.equal(claudeInputLine(screenLines(CLAUDE)), "", "Claude Code 2.1.332: the last ❯ line is the input, its history shows the same");
  assert.equal(claudeInputLine(screenLines(CLAUDE.replace("❯\u00a0\u001b[7m ", "❯\u00a0draft\u001b[7m "))), "draft");
  assert.equal(grokInputLine(screenLines(GROK.replace("next", "    "))), "");
  assert.equal(codexInputLine(screenLines("Do you trust this folder?\n  1. Yes\n  2. No")), undefined, "a dialog has no input line");
  // A draft whose first line is empty (a line break first, or a paste that starts with one): its further lines follow, indented.
  assert.equal(codexInputLine(screenLines(CODEX_EMPTY.replace("\u001b[2mAsk Codex to do anything\n", "\n  my unfinished\n  draft\n"))), "my unfinished draft");
  assert.equal(claudeInputLine(screenLines(CLAUDE.replace("❯\u00a0\u001b[7m \n", "❯\u00a0\n  my unfinished draft\u001b[7m \n"))), "my unfinished draft");
});

test("the person's keystrokes: typed text fills the line; Enter, Ctrl-C, Ctrl-U and erasing empty it; unknown edits count as typing", () => {
  const line = new InputLine();
  assert.equal(line.empty, true);
  line.observe("abc");
  assert.equal(line.empty, false);
  line.observe("\u007f\u007f\u007f");
  assert.equal(line.empty, true, "erased key by key");
  line.observe("x\u001b[D\u001b[C");
  line.observe("\r");
  assert.equal(line.empty, true, "submitted; cursor moves change nothing");
  line.observe("abc\u0015");
  assert.equal(line.empty, true, "Ctrl-U at the end of a one-line input clears");
  line.observe("\u001b[A");
  assert.equal(line.empty, false, "history recall puts unknown text in the line");
  line.observe("\u0015");
  assert.equal(line.empty, false, "a recalled entry may have several lines, and Ctrl-U kills only the last");
  line.observe("\u0003");
  assert.equal(line.empty, true, "Ctrl-C clears");
  line.observe("\u001b[200~pasted\ntext\u001b[201~");
  assert.equal(line.empty, false);
  line.observe("\u0003");
  assert.equal(line.empty, true, "Ctrl-C clears");
  line.observe("\u001b[I\u001b[O\u001b[<0;10;5M");
  assert.equal(line.empty, true, "focus and mouse reports are not typing");
});

test("an erasing key after the cursor left the line's end, a paste, a yank or a kill of one line of several leave the line not empty", () => {
  const cases: Array<[string, string[]]> = [
    ["Ctrl-U after Left kills only what is before the cursor", ["hello\u001b[D\u001b[D\u0015"]],
    ["Ctrl-U kills only the last line of several", ["first line\nsecond\u0015"]],
    ["Ctrl-U kills only the last line of several (Alt+Enter)", ["first line\u001b\rsecond\u0015"]],
    ["Backspace at the line's start (Home) erases nothing", ["ab", "\u001b[H", "\u007f", "\u007f"]],
    ["Backspace after Ctrl-A", ["ab\u0001\u007f\u007f"]],
    ["Backspace after Left (SS3)", ["ab\u001bOD\u007f\u007f"]],
    ["Ctrl-K after Left kills what is after the cursor, not all", ["abc\u001b[D\u001b[D\u000b\u007f"]],
    ["Ctrl-Y yanks back what Ctrl-U killed", ["draft", "\u0015", "\u0019"]],
    ["one Backspace after a paste may leave most of it", ["\u001b[200~hello world\u001b[201~", "\u007f"]],
    ["a paste whose end marker came in two reads, then erased once", ["\u001b[200~text\u001b[20", "1~", "\u007f"]],
    ["history search", ["\u0012fix"]],
  ];
  for (const [what, chunks] of cases) {
    const line = new InputLine();
    for (const chunk of chunks) line.observe(chunk);
    assert.equal(line.empty, false, what);
    line.observe("\u0003");
    assert.equal(line.empty, true, `${what}: Ctrl-C clears`);
  }
  const back = new InputLine();
  back.observe("ab\u001b[H\u001b[F\u007f\u007f");
  assert.equal(back.empty, true, "End brings the cursor back: erasing from there is followed again");
  const split = new InputLine();
  split.observe("\u001b[200~text\u001b[2");
  split.observe("01~\r");
  assert.equal(split.empty, true, "a paste's end marker split across reads ends the paste; Enter submits");
  const quiet = new InputLine();
  quiet.observe("\u000c\u0006\u0017\u0005");
  assert.equal(quiet.empty, true, "redraw, right, kill-word and end on an empty line edit nothing");
});

test("the person's keys reach the wrapped host whole across reads: a UTF-8 character split between two reads is one character", () => {
  const written: Buffer[] = [];
  const input = new InputLine();
  const relay = new KeyRelay(input, (data) => written.push(data));
  relay.keys(Buffer.from([0xc3]));
  relay.keys(Buffer.from([0xa9, 0x20, 0xf0, 0x9f]));
  relay.keys(Buffer.from([0x98, 0x80]));
  // The bytes go on as they came: the host's own decoder joins the character.
  assert.equal(Buffer.concat(written).toString("utf8"), "é 😀");
  assert.ok(!Buffer.concat(written).toString("utf8").includes("\ufffd"));
  assert.equal(input.empty, false);
});

test("keys the person types while a request is typed under peerpost run reach the host after its Enter, and no second Enter follows them", async (t) => {
  const { peerpost } = tempPeerpost(t);
  const { message } = await peerpost.mailbox.send({ from: "claude:asker", fromVerified: true, to: "codex:wrapped", body: "a request", anticipation: "reply" });
  const written: string[] = [];
  const input = new InputLine();
  const relay = new KeyRelay(input, (text) => written.push(`person:${text}`));
  const terminal = { pid: process.pid, write: (data: string) => void written.push(data), bracketedPaste: () => false, holdKeys: () => relay.hold() };
  const push = new PtyPush(peerpost, "codex", terminal, input);
  const delivery = push.deliver(message);
  // In the pause between the typed line and its Enter.
  await new Promise((resolve) => setTimeout(resolve, 50));
  relay.keys(Buffer.from("rm -rf"));
  await delivery;
  assert.deepEqual(written, [liveNote(message), "\r", "person:rm -rf"], "the request alone is submitted; the person's keys follow it");
});

test("under peerpost run, nothing is typed between the person's Enter and their prompt hook's record of the turn", async (t) => {
  const { peerpost, stateDir } = tempPeerpost(t);
  peerpost.config.now = Date.now;
  const address = "codex:wrapped";
  const terminal = (input: InputLine) => ({ pid: process.pid, write: () => undefined, bracketedPaste: () => false, holdKeys: () => new KeyRelay(input, () => undefined).hold() });
  const input = new InputLine();
  const push = new PtyPush(peerpost, "codex", terminal(input), input);
  push.bind({ address, sessionId: "wrapped", source: "registry", detail: "test", verified: false });
  assert.equal(await push.ready(), undefined, "idle, nothing typed");
  input.observe("\r");
  assert.equal(await push.ready(), undefined, "an Enter on an empty line submits nothing");
  input.observe("fix the tests\r");
  assert.match((await push.ready()) ?? "", /just submitted a prompt/);
  recordTurn(stateDir, address, "prompt", new Date().toISOString());
  assert.match((await push.ready()) ?? "", /is in a turn/, "the prompt hook ran: the turn is under way");
  recordTurn(stateDir, address, "stop", new Date(Date.now() + 1).toISOString());
  assert.equal(await push.ready(), undefined, "the turn ended");
  // A prompt no hook records (a host command, a host without the hook): idle again after a few seconds.
  const earlier = new InputLine(() => Date.now() - 6_000);
  const late = new PtyPush(peerpost, "codex", terminal(earlier), earlier);
  late.bind({ address, sessionId: "wrapped", source: "registry", detail: "test", verified: false });
  earlier.observe("/status\r");
  assert.equal(await late.ready(), undefined);
});

test("the terminal's answers to the TUI's queries, on the same bytes as the keys, are not typing; Alt with a key still is", () => {
  const line = new InputLine();
  // As tmux 3.3a answered Claude Code 2.1.332's start-up queries, after the person's Enter: XTVERSION, then device attributes.
  line.observe("\u001bP>|tmux 3.3a\u001b\\");
  line.observe("\u001b[?1;2c");
  assert.equal(line.empty, true, "XTVERSION and DA1 answers");
  line.observe("\u001bP>|tmux 3.3a\u001b\\\u001b[?1;2c\u001b[>84;0;0c\u001b[12;1R\u001b[0n\u001b[?997;1n\u001b[8;40;120t\u001b[?2026;2$y\u001b[?1u");
  line.observe("\u001b]11;rgb:1e1e/1e1e/1e1e\u0007\u001b]10;rgb:ffff/ffff/ffff\u001b\\\u001b_Gi=1;OK\u001b\\");
  assert.equal(line.empty, true, "device attributes, the cursor's place, status, colour scheme, window size, mode and keyboard reports; colours and graphics answers");
  line.observe("ab\u001b[?1;2c");
  line.observe("\u001b]11;rgb:0/0/0\u0007");
  line.observe("\u007f\u007f");
  assert.equal(line.empty, true, "answers between the person's keys leave their count as it was");
  line.observe("\u001bP");
  assert.equal(line.empty, false, "Alt+P alone is a key");
  line.observe("\r");
  line.observe("\u001bPdraft");
  assert.equal(line.empty, false, "Alt+P and typing, with no end of a control string, are typing");
  line.observe("\u0015");
  line.observe("\u001b[97u");
  assert.equal(line.empty, false, "a key in the kitty keyboard protocol, unlike its flags answer (CSI ? … u), is typing");
});

test("tmux panes come from TMUX and TMUX_PANE; the push switches: tmux off and pty on by default, the most specific rule wins", () => {
  assert.deepEqual(paneOf({ TMUX: "/tmp/tmux-0/default,1234,0", TMUX_PANE: "%3" }), { socket: "/tmp/tmux-0/default", pane: "%3" });
  assert.equal(paneOf({ TMUX_PANE: "%3" }), undefined);
  assert.equal(paneOf({ TMUX: "/tmp/tmux-0/default,1,0", TMUX_PANE: "3; rm -rf /" }), undefined);
  const session = { address: "codex:abc", host: "codex" as const };
  const switches = (push: Record<string, Record<string, boolean>>) => ({ wake: {}, launch: false, push });
  assert.deepEqual(pushSetting(switches({}), "tmux", session), { on: false, rule: "default" });
  assert.deepEqual(pushSetting(switches({}), "pty", session), { on: true, rule: "default" });
  assert.deepEqual(pushSetting(switches({ tmux: { all: true, codex: false } }), "tmux", session), { on: false, rule: "codex" });
  assert.deepEqual(pushSetting(switches({ tmux: { codex: false, "codex:abc": true } }), "tmux", session), { on: true, rule: "codex:abc" });
});

test("the first available transport delivers, and only a transport that reminds is offered reminders", async () => {
  const delivered: string[] = [];
  const transport = (name: string, available: boolean, remind: boolean): PushTransport => ({
    name,
    availability: () => ({ available, reason: `${name} ${available ? "up" : "down"}` }),
    deliver: async (message) => void delivered.push(`${name}:${message.id}`),
    ...(remind ? { remind: async () => undefined } : {}),
  });
  const message = { id: "M1", from: "claude:peer", anticipation: "reply" } as MessageState;
  const both = new FirstAvailable([transport("codex-turn", false, true), transport("tmux", true, false)]);
  assert.equal(both.availability().available, true);
  assert.equal(both.name, "tmux");
  assert.equal(both.remind, undefined);
  await both.deliver(message, "");
  const none = new FirstAvailable([transport("codex-turn", false, true), transport("tmux", false, false)]);
  assert.deepEqual(none.availability(), { available: false, reason: "codex-turn: codex-turn down; tmux: tmux down" });
  assert.equal(none.name, "codex-turn");
  assert.deepEqual(delivered, ["tmux:M1"]);
  assert.doesNotMatch(liveNote(message), /\n/, "one line, typed as one");
});

test("the wrapped TUI's bracketed-paste mode follows its output, also when a switch is split between two chunks", () => {
  const paste = new PasteMode();
  assert.equal(paste.enabled, false);
  paste.observe("\u001b[2J\u001b[?20");
  paste.observe("04h› ");
  assert.equal(paste.enabled, true);
  paste.observe("\u001b[?2004l\u001b[?2004h\u001b[?2004l");
  assert.equal(paste.enabled, false, "the last switch wins");
});
