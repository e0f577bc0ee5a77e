// Live push into a host TUI that `peerpost run` started in its own pseudo-terminal: the wrapper finds
// the session its host registered (a host process under the wrapper's child) and runs a push loop that
// types one line, then Enter, into the terminal, on the same rules as tmux, with the person's own
// keystrokes telling whether their input line is empty.
import type { Peerpost } from "../peerpost.js";
import type { MessageState } from "../mail/fold.js";
import type { Identity } from "../server/adapter.js";
import type { SessionHost } from "../records/schemas.js";
import { PeerpostError } from "../common/errors.js";
import { ancestors } from "../sessions/process-tree.js";
import { PushLoop } from "../server/push.js";
import { liveNote } from "./rules.js";

import { readTurn, recordTurn, turnEnded } from "./turns.js";
import type { InputLine } from "./keystrokes.js";
import { TerminalPush } from "./terminal-push.js";
import { isHostProtocol, PTY_VIA } from "../sessions/push-kinds.js";

const FIND_SESSION_MS = 500;
/**
 * The pause between the typed line and its Enter. Codex takes keys that arrive close together for a
 * paste and holds an Enter that follows within ~120 ms as part of it (verified on codex-cli 0.171.0:
 * the line stayed in the input); a separate Enter after the pause submits it.
 */
const ENTER_AFTER_MS = 200;
/**
 * How long after the person submits a prompt the session counts as starting a turn, until its prompt hook
 * records it (a host without the hook, or a command that runs none, is idle again after this).
 */
const TURN_START_WAIT_MS = 5_000;
/** How long a typed turn's prompt hook is given to run before Enter is pressed again. */
const PROMPT_HOOK_WAIT_MS = 2_000;

export interface WrappedTerminal {
  pid: number;
  write(data: string): void;
  /** Whether the TUI turned bracketed paste on (ESC [ ? 2004 h in its output). */
  bracketedPaste(): boolean;
  /** Holds the person's keys until the returned release (key-relay.ts). */
  holdKeys(): () => void;
}

/** Follows the TUI's output for its bracketed-paste mode (the last switch seen wins). */
export class PasteMode {
  private on = false;
  /** The end of the last chunk, so a switch split between two chunks is still seen. */
  private tail = "";

  observe(output: string): void {
    const text = this.tail + output;
    const enabled = text.lastIndexOf("\u001b[?2004h");
    const disabled = text.lastIndexOf("\u001b[?2004l");
    if (enabled !== disabled) this.on = enabled > disabled;
    this.tail = text.slice(-7);
  }

  get enabled(): boolean {
    return this.on;
  }
}

export class PtyPush extends TerminalPush {
  readonly name = PTY_VIA;

  constructor(peerpost: Peerpost, host: SessionHost, private readonly terminal: WrappedTerminal, private readonly input: InputLine) {
    super(peerpost, host);
  }

  protected where(): string {
    return "the host runs under peerpost run";
  }

  /**
   * The session's own server may reach it through the host's own protocol (Claude Code's inbox, its
   * channel), which comes first and applies the recipient's own policy: the wrapper types only when that
   * server reports none. (In the server, tmux typing sits behind the host's protocol the same way: transports.ts.)
   */
  override availability(): { available: boolean; reason: string } {
    const own = this.address === undefined ? undefined : this.peerpost.sessions.get(this.address)?.push;
    if (isHostProtocol(own)) return { available: false, reason: `the session's own server reaches it through ${own}, which comes first` };
    return super.availability();
  }

  /**
   * Esc in a Claude Code turn interrupts it: no stop hook runs, and the turn's prompt comes back into the
   * input line (Claude Code 2.1.332), which the keys followed here do not show.
   */
  protected async noteInterruptedTurn(address: string): Promise<void> {
    const escaped = this.input.escapedAt;
    if (this.host !== "claude-code" || escaped === undefined) return;
    const turn = readTurn(this.peerpost.stateDir.path, address);
    if (turnEnded(turn) || escaped < Date.parse(turn.prompt!)) return;
    this.input.refilled();
    recordTurn(this.peerpost.stateDir.path, address, "stop", new Date(escaped).toISOString());
  }

  protected async typingRefusal(): Promise<string | undefined> {
    // An Enter that may have picked from the host's @file menu submitted the line only if a turn began
    // (the prompt hook) or ended (the stop hook: Grok has no prompt hook) after it.
    const pending = this.input.pendingSubmitAt;
    if (pending !== undefined && this.address !== undefined) {
      const turn = readTurn(this.peerpost.stateDir.path, this.address);
      if ([turn.prompt, turn.stop].some((at) => at !== undefined && Date.parse(at) >= pending)) this.input.confirmSubmitted();
    }
    if (!this.input.empty) return "the person is typing in the session";
    // Between the person's Enter and their prompt hook's record of the turn, the session looks idle.
    const submitted = this.input.submittedAt;
    if (submitted === undefined || this.address === undefined || Date.now() - submitted > TURN_START_WAIT_MS) return undefined;
    const prompt = readTurn(this.peerpost.stateDir.path, this.address).prompt;
    return prompt !== undefined && Date.parse(prompt) >= submitted ? undefined : "the person just submitted a prompt, and its turn has not started yet";
  }

  async deliver(message: MessageState): Promise<void> {
    // The person's keys wait from the last look at their line until the request's Enter: a key typed
    // meanwhile reaches the host after it, never inside the request or submitted with it.
    const release = this.terminal.holdKeys();
    let typedAt: number;
    let bracketed = false;
    try {
      const refusal = await this.typingRefusal();
      if (refusal !== undefined) throw new PeerpostError("unsupported", `Not typed: ${refusal}.`, { hint: "The message stays unread and is typed once the input line is empty again." });
      typedAt = this.peerpost.config.now();
      recordTurn(this.peerpost.stateDir.path, message.to, "prompt", new Date(typedAt).toISOString());
      bracketed = this.terminal.bracketedPaste();
      if (bracketed) {
        // A paste the TUI knows as one, then Enter: nothing for it to take for a burst of keys.
        this.terminal.write(`\u001b[200~${liveNote(message)}\u001b[201~`);
      } else {
        this.terminal.write(liveNote(message));
        // Enter as a key of its own, after a pause: a TUI may take text and Enter in one burst for a paste.
        await new Promise((resolve) => setTimeout(resolve, ENTER_AFTER_MS));
      }
      this.terminal.write("\r");
    } finally {
      release();
    }
    // Typed plain, a TUI may have kept that Enter inside what it took for a paste: when no prompt hook ran,
    // press it once more, unless the person has started to type meanwhile. Never after a bracketed paste,
    // whose Enter is a key of its own: by then the turn may show a dialog (a tool's approval) that an
    // Enter would answer with its first choice, unseen here.
    if (!bracketed && !(await this.promptHookRan(message.to, typedAt)) && this.input.empty) this.terminal.write("\r");
  }

  /** Whether the session's prompt hook recorded a turn start after `since` (waits up to PROMPT_HOOK_WAIT_MS). */
  private async promptHookRan(address: string, since: number): Promise<boolean> {
    const deadline = Date.now() + PROMPT_HOOK_WAIT_MS;
    for (;;) {
      const prompt = readTurn(this.peerpost.stateDir.path, address).prompt;
      if (prompt !== undefined && Date.parse(prompt) > since) return true;
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** The session whose host process runs under the wrapper's child (the host's launcher may start it as a grandchild). */
export function sessionUnder(peerpost: Peerpost, host: SessionHost, childPid: number): Identity | undefined {
  // How far below the wrapper's child the host process runs: the TUI's own host is the nearest; a host it
  // runs as a tool (`codex exec`, `claude -p`) is further down, and is never the session typed into.
  const depth = (hostPid: number): number | undefined => {
    if (hostPid === childPid) return 0;
    const at = ancestors(hostPid).findIndex((info) => info.pid === childPid);
    return at < 0 ? undefined : at + 1;
  };
  const found = peerpost.sessions
    .list({ host })
    .filter((session) => session.alive && session.local && session.hostPid !== undefined)
    .map((session) => ({ session, depth: depth(session.hostPid!) }))
    .filter((candidate): candidate is { session: typeof candidate.session; depth: number } => candidate.depth !== undefined)
    .sort((a, b) => a.depth - b.depth || (a.session.lastSeen < b.session.lastSeen ? 1 : -1))[0]?.session;
  return found && { address: found.address, sessionId: found.sessionId, source: "registry", detail: "peerpost run", verified: false };
}

/**
 * Records in the registry that the session is reachable through this wrapper (`pty`), so senders and
 * `agents` see it; `none` when the wrapper can no longer type. Written as a person's record (`cli`): it
 * changes only the push, not when the session was last seen.
 */
async function reportWrapped(peerpost: Peerpost, identity: Identity, push: string): Promise<void> {
  const entry = peerpost.sessions.get(identity.address);
  // Written whatever the session's own server reported: the registry's fold puts a host protocol first (registry.ts).
  if (entry) await peerpost.sessions.register({ host: entry.host, address: entry.address, sessionId: entry.sessionId, source: "cli", push });
}

/** Follows the wrapped host to its current session and types requests into it; stopped when the host exits. */
export function deliverIntoTerminal(peerpost: Peerpost, host: SessionHost, terminal: WrappedTerminal, input: InputLine): { stop(): Promise<void> } {
  const loop = new PushLoop(peerpost, new PtyPush(peerpost, host, terminal, input), host, {
    refreshIdentity: async () => follow(),
    onReachability: (identity, push) => reportWrapped(peerpost, identity, push),
  });
  const follow = (): void => {
    const identity = sessionUnder(peerpost, host, terminal.pid);
    if (identity) loop.start(identity);
  };
  const timer = setInterval(() => {
    try {
      follow();
    } catch {
      // The store is unreadable now: the host runs on, and the next look may find it.
    }
  }, FIND_SESSION_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await loop.stop();
    },
  };
}
