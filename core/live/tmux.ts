// Live push into a host TUI that runs in a tmux pane: one line pasted with `tmux paste-buffer`, then
// Enter. The pane comes from the host process's own environment (TMUX names the server's socket,
// TMUX_PANE the pane). It types only while the switch is on (`peerpost push on tmux …`), the session's
// turn has ended, the person's input line is empty, and the request is a fresh one (rules.ts). Commands go
// through one tmux control client per tmux server (tmux-control.ts), or their own tmux process when it is gone.
import { execFile } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import type { Peerpost } from "../peerpost.js";
import type { MessageState } from "../mail/fold.js";
import { PeerpostError } from "../common/errors.js";
import type { SessionHost } from "../records/schemas.js";
import { screenLines, type InputLineReader } from "./screen.js";
import { busyRefusal, liveNote } from "./rules.js";
import { TerminalPush } from "./terminal-push.js";
import { readTurn, recordTurn, turnEnded } from "./turns.js";
import { ControlClientGone, TmuxCommandUnsure, controlClientFor } from "./tmux-control.js";
import { DeliveryUnsure } from "../server/adapter.js";

export const TMUX_VIA = "tmux" as const;
/** A tmux call that has not answered by then is given up (the message waits for the next pass). */
const TMUX_TIMEOUT_MS = 5_000;
/** What Codex and Claude Code draw while a turn runs, just above their input box. */
const RUNNING = /\besc to interrupt\b/i;
/** The lines at the foot of the screen where that shows: the same words higher up are the conversation's. */
const RUNNING_LINES = 8;
/** The hosts whose TUI shows RUNNING for as long as a turn runs (codex-cli 0.171.0, Claude Code 2.1.332). */
const SHOWS_RUNNING: ReadonlySet<SessionHost> = new Set(["codex", "claude-code"]);
/** How long after a turn's start its TUI surely shows it running. */
const RUNNING_SHOWN_MS = 5_000;
/** How long the TUI is given to take the typed line (its input line empties) before Enter is pressed again. */
const SUBMIT_WAIT_MS = 2_000;

export interface TmuxPane {
  /** The tmux server's socket, the first field of TMUX. */
  socket: string;
  /** e.g. %3 */
  pane: string;
}

/** The pane a process runs in, from its environment; undefined outside tmux. */
export function paneOf(env: Record<string, string | undefined>): TmuxPane | undefined {
  const socket = env["TMUX"]?.split(",")[0];
  const pane = env["TMUX_PANE"];
  return socket && pane && /^%\d+$/.test(pane) ? { socket, pane } : undefined;
}

/**
 * Runs a tmux command (several, with `;` between them) for the pane: through the control client, or its own
 * process when that is gone. A command the client took but never answered may have run: it is run again
 * only when `once` is not set (a look at the pane); `once` (typing) rejects with TmuxCommandUnsure instead.
 */
export async function tmux(target: TmuxPane, args: string[], options: { once?: boolean } = {}): Promise<string> {
  try {
    const answer = await controlClientFor(target.socket).run(args, target.pane, TMUX_TIMEOUT_MS);
    if (answer.failed) throw tmuxFailed(args, answer.output);
    return answer.output;
  } catch (error) {
    if (!(error instanceof ControlClientGone || (error instanceof TmuxCommandUnsure && !options.once))) throw error;
    return tmuxProcess(target, args);
  }
}

function tmuxProcess(target: TmuxPane, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    // SIGKILL: a tmux client waiting on a stalled server takes SIGTERM as a cue to tell that server goodbye, and waits on.
    execFile("tmux", ["-S", target.socket, ...args], { timeout: TMUX_TIMEOUT_MS, killSignal: "SIGKILL", encoding: "utf8" }, (error, stdout, stderr) => {
      // Killed for its time, it may have reached the server, which may still run it.
      if (error) reject(error.killed ? new TmuxCommandUnsure(`tmux did not answer within ${TMUX_TIMEOUT_MS} ms`) : tmuxFailed(args, stderr || error.message));
      else resolve(stdout);
    });
  });
}

function tmuxFailed(args: string[], said: string): PeerpostError {
  return new PeerpostError("unsupported", `tmux ${args[0]} failed: ${said.trim()}`, { hint: "The pane may have closed; the message stays unread for read and the hooks." });
}

/** The text in the pane's input line; undefined when the screen shows none (a dialog, a pager, another program). */
export async function paneInput(target: TmuxPane, inputLine: InputLineReader): Promise<string | undefined> {
  return (await paneState(target, inputLine)).input;
}

/** What the pane shows: whether a turn runs (RUNNING at its foot), and the input line's text (undefined: none shows). */
async function paneState(target: TmuxPane, inputLine: InputLineReader): Promise<{ running: boolean; input: string | undefined }> {
  const captured = await tmux(target, ["capture-pane", "-p", "-e", "-t", target.pane]);
  const foot = captured.replace(/\u001b\[[0-9;:]*m/g, "").trimEnd().split("\n").slice(-RUNNING_LINES);
  return { running: foot.some((line) => RUNNING.test(line)), input: inputLine(screenLines(captured)) };
}

/** Why the person's input line does not allow typing now, if it does not. */
export async function inputRefusal(target: TmuxPane, inputLine: InputLineReader): Promise<string | undefined> {
  const { running, input } = await paneState(target, inputLine);
  // A turn shows itself before its prompt hook records it (Codex clears the input and draws "Working … esc to
  // interrupt" at the person's Enter; Claude Code shows "esc to interrupt"): a line typed then joins that turn.
  if (running) return `tmux pane ${target.pane} shows a turn running`;
  if (input === undefined) return `tmux pane ${target.pane} shows no input line (a dialog or another screen is open)`;
  return input === "" ? undefined : `the person is typing in tmux pane ${target.pane}`;
}

/** The pane's terminal device, e.g. /dev/pts/3. */
async function paneTty(target: TmuxPane): Promise<string> {
  return (await tmux(target, ["display-message", "-p", "-t", target.pane, "#{pane_tty}"])).trim();
}

/**
 * Why the host process cannot be typed into through the pane's terminal now, if it cannot. A headless host
 * that the TUI in the pane runs as a tool (`codex exec`, `claude -p`) inherits TMUX and TMUX_PANE, not the
 * terminal: its requests are never typed into the TUI. A host the person suspended (Ctrl-Z) still reads the
 * terminal, and its last frame stays on the screen, but the shell owns the terminal: what is typed goes there.
 */
function hostRefusal(tty: string, hostPid: number, pane: string): string | undefined {
  try {
    if (tty === "" || readlinkSync(`/proc/${hostPid}/fd/0`) !== tty) return `the host process ${hostPid} does not read tmux pane ${pane}'s terminal (a headless run started from the program there)`;
    // After the name's closing parenthesis: state, ppid, pgrp, session, tty, the terminal's foreground group.
    const stat = readFileSync(`/proc/${hostPid}/stat`, "utf8");
    const [state, , pgrp, , , foreground] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (state === "T" || state === "t" || pgrp !== foreground) return `the host process ${hostPid} is not in the foreground of tmux pane ${pane} (suspended, or another program runs there)`;
    return undefined;
  } catch {
    return `the host process ${hostPid} is gone`;
  }
}

/**
 * Enter, written to the pane's program as a paste of one carriage return: `send-keys Enter` goes through
 * the pane's key handling, which copies it into every other pane of a window with synchronize-panes on,
 * and gives it to copy mode while the person scrolls back.
 */
function enter(target: TmuxPane, message: MessageState): string[] {
  const buffer = `peerpost-enter-${message.id}`;
  return ["set-buffer", "-b", buffer, "\r", ";", "paste-buffer", "-d", "-b", buffer, "-t", target.pane];
}

export class TmuxPush extends TerminalPush {
  readonly name = TMUX_VIA;

  /** The pane's terminal device, once known. */
  private tty: string | undefined;

  constructor(peerpost: Peerpost, host: SessionHost, private readonly target: TmuxPane, private readonly inputLine: InputLineReader, private readonly hostPid: number) {
    super(peerpost, host);
    controlClientFor(target.socket).acquire();
  }

  close(): void {
    controlClientFor(this.target.socket).release();
  }

  protected where(): string {
    return `the host runs in tmux pane ${this.target.pane}`;
  }

  protected async typingRefusal(): Promise<string | undefined> {
    this.tty ??= await paneTty(this.target);
    // Checked at every look: the person may suspend the host and get their shell back at any time.
    return hostRefusal(this.tty, this.hostPid, this.target.pane) ?? inputRefusal(this.target, this.inputLine);
  }

  /** A turn whose TUI, well after it started, shows it no longer running and its input line back, has ended. */
  protected async noteInterruptedTurn(address: string): Promise<void> {
    const stateDir = this.peerpost.stateDir.path;
    const turn = readTurn(stateDir, address);
    const now = this.peerpost.config.now();
    if (!SHOWS_RUNNING.has(this.host) || turnEnded(turn) || now - Date.parse(turn.prompt!) < RUNNING_SHOWN_MS) return;
    const { running, input } = await paneState(this.target, this.inputLine);
    if (!running && input !== undefined) recordTurn(stateDir, address, "stop", new Date(now).toISOString());
  }

  async deliver(message: MessageState): Promise<void> {
    const target = this.target;
    // Checked again right before typing: the person may have started to type since the claim.
    // The turn too: the person's prompt hook may have recorded their Enter since the look before the claim.
    const refusal = busyRefusal(this.peerpost.stateDir.path, message.to) ?? (await this.typingRefusal());
    if (refusal !== undefined) throw new PeerpostError("unsupported", `Not typed: ${refusal}.`, { hint: "The message stays unread and is typed once the input line is empty again." });
    recordTurn(this.peerpost.stateDir.path, message.to, "prompt", new Date(this.peerpost.config.now()).toISOString());
    // The line goes in as a paste (bracketed, where the TUI asked for that), so a TUI that takes fast
    // keys for a paste does not keep the Enter inside it; then Enter. One tmux command line does it all.
    const buffer = `peerpost-${message.id}`;
    try {
      await tmux(target, ["set-buffer", "-b", buffer, liveNote(message), ";", "paste-buffer", "-p", "-d", "-b", buffer, "-t", target.pane, ";", ...enter(target, message)], { once: true });
    } catch (error) {
      if (error instanceof TmuxCommandUnsure) throw new DeliveryUnsure(`tmux took the typing command for pane ${target.pane} and did not answer (${error.message}): the request may have been typed`);
      throw error;
    }
    // The request went in: nothing that fails from here may give it back to be typed again.
    try {
      // An Enter the TUI still took for part of a paste leaves the line in the input: press it once more.
      await this.untilInput((text) => text === "");
      const left = await paneInput(target, this.inputLine);
      if (left !== undefined && left !== "" && liveNote(message).startsWith(left)) await tmux(target, enter(target, message), { once: true });
    } catch {
      // The pane closed or tmux stopped answering after the request was typed: it was delivered.
    }
  }

  /** Polls the input line (briefly) until `done` holds; gives up quietly after SUBMIT_WAIT_MS. */
  private async untilInput(done: (text: string | undefined) => boolean): Promise<void> {
    const deadline = Date.now() + SUBMIT_WAIT_MS;
    while (!done(await paneInput(this.target, this.inputLine)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
