// What core needs from a host to run it headless: the command that resumes a session with a prompt,
// and the one that starts a new session. Each host plugin provides one (plugins/<host>/wake.ts); core
// never imports them: the entry points hand them in.
import type { SessionHost } from "../records/schemas.js";
import type { ProcessInfo } from "../sessions/process-tree.js";
import type { Discover } from "../sessions/discovery.js";

export interface HostCommand {
  command: string;
  args: string[];
}

/**
 * A headless run: its prompt is written to the host's stdin, which is then closed. Mail never goes in
 * `args`, which every user of the machine can read (/proc/<pid>/cmdline).
 */
export interface RunCommand extends HostCommand {
  stdin: string;
}

/** A model and a reasoning effort for one headless run, passed with the host's own flags. */
export interface RunSettings {
  model?: string | undefined;
  effort?: string | undefined;
}

/** Tokens a headless run spent, as its host reported them: all input (cached included), the cached part, output. */
export interface TokenUsage {
  input: number;
  cachedInput: number;
  output: number;
}

/** Which settings a host's CLI can change, and the effort words it takes (absent: the host checks them). */
export interface SettingSupport {
  model: boolean;
  effort: boolean;
  efforts?: readonly string[];
  /** Whether a session can be resumed from another directory than the one it started in. */
  cwdOnResume: boolean;
  /** Why cwdOnResume is false, for the `unsupported` answer. */
  cwdWhy?: string;
}

export interface LaunchInput {
  /** The new session's id, chosen by peerpost so the address is known before the host starts. */
  sessionId: string;
  prompt: string;
  settings?: RunSettings | undefined;
  /** The peerpost MCP server to pass on the host's command line, so the new session has the tools without the plugin. */
  server: { command: string; args: string[]; env: Record<string, string> };
}

export interface Waker {
  host: SessionHost;
  /** The host CLI's command name, looked for on the run's PATH before a run is claimed. */
  binary: string;
  /**
   * Resumes a session with a prompt. `server`: the session was launched by peerpost, whose server came on
   * its command line (LaunchInput) and must come again, or the woken turn has no peerpost tools.
   */
  resume(input: { sessionId: string; prompt: string; settings?: RunSettings | undefined; server?: LaunchInput["server"] | undefined }): RunCommand;
  /** What `settings` a run of this host may carry. */
  settings: SettingSupport;
  /** Starts a new session with the given id (only hosts that let the caller choose it). */
  launch?(input: LaunchInput): RunCommand;
  /**
   * For a host that picks a new session's id itself and names it in its output (Codex's `thread.started`):
   * the command that starts one, and how one line of its stdout names the id.
   */
  launchNamedByHost?: {
    command(input: Omit<LaunchInput, "sessionId">): RunCommand;
    sessionIdIn(line: string): string | undefined;
  };
  /**
   * Runs a prompt on a copy of a session's history (the original's transcript untouched). `forkSessionId`
   * is the fork's id where peerpost chooses it; else `forkNamed` reads it from the output.
   */
  fork?: {
    command(input: { sessionId: string; forkSessionId?: string | undefined; prompt: string; settings?: RunSettings | undefined }): RunCommand;
    /** Whether peerpost chooses the fork's id (else forkNamed reads it). */
    choosesId: boolean;
    forkNamed?(line: string): string | undefined;
  };
  /** Archives a session with the host's own command (where it has one; else housekeeping is read-only). */
  archive?(sessionId: string): HostCommand;
  /** Why this host has no archive, for the `unsupported` answer. */
  archiveMissing?: string;
  /** Why this host cannot fork, for the `unsupported` answer. */
  forkMissing?: string;
  /** The model's final answer in the run's output, whole (for a fork's answer). */
  finalAnswer?(stdout: string): string | undefined;
  /** Whether a process is this host's CLI (for a session with no known host pid: is one running in its dir?). */
  isHostProcess?(info: ProcessInfo): boolean;
  /** What the host reported about the turn, from its output (e.g. its final result line). */
  report?(stdout: string): string | undefined;
  /** The run's token usage, from the tail of its output (where the host reports it). */
  usage?(stdout: string): TokenUsage | undefined;
}

export type Wakers = Partial<Record<SessionHost, Waker>>;

/** What a server or the CLI hands core so a send can wake its recipient. */
export interface WakeDeps {
  wakers: Wakers;
  /** The bundle this process runs from: detached runs (`wake-run <claim id>`, `index-run`) start it again. */
  runnerEntry: string;
  /** The hosts' session files, so the runner checks a discovered session as the sender did. */
  discover?: Discover;
}
