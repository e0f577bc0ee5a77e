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

export interface LaunchInput {
  /** The new session's id, chosen by peerpost so the address is known before the host starts. */
  sessionId: string;
  prompt: string;
  /** The peerpost MCP server to pass on the host's command line, so the new session has the tools without the plugin. */
  server: { command: string; args: string[]; env: Record<string, string> };
}

export interface Waker {
  host: SessionHost;
  /** The host CLI's command name, looked for on the run's PATH before a run is claimed. */
  binary: string;
  resume(input: { sessionId: string; prompt: string }): HostCommand;
  /** Starts a new session with the given id (only hosts that let the caller choose it). */
  launch?(input: LaunchInput): HostCommand;
  /**
   * For a host that picks a new session's id itself and names it in its output (Codex's `thread.started`):
   * the command that starts one, and how one line of its stdout names the id.
   */
  launchNamedByHost?: {
    command(input: Omit<LaunchInput, "sessionId">): HostCommand;
    sessionIdIn(line: string): string | undefined;
  };
  /** Whether a process is this host's CLI (for a session with no known host pid: is one running in its dir?). */
  isHostProcess?(info: ProcessInfo): boolean;
  /** What the host reported about the turn, from its output (e.g. its final result line). */
  report?(stdout: string): string | undefined;
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
