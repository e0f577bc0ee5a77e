// Sessions peerpost has not seen yet, as each host's own session files describe them. The readers live
// in plugins/<host>/discovery.ts; an entry point hands them in, so core never knows a host's files.
import type { SessionHost } from "./schemas.js";

export interface DiscoveredSession {
  address: string;
  host: SessionHost;
  sessionId: string;
  cwd?: string;
  /** The host's own title for the session (or its last prompt); untrusted text. */
  title?: string;
  /** ISO time of the session's last write. */
  lastActivity: string;
}

/** Reads every host's session files; bounded, and never throws for a missing or unreadable store. */
export type Discover = (env: NodeJS.ProcessEnv) => DiscoveredSession[];

/** Sessions whose host files peerpost has not registered, newest first. */
export function unseenSessions(discover: Discover | undefined, env: NodeJS.ProcessEnv, known: Iterable<string>): DiscoveredSession[] {
  if (!discover) return [];
  const seen = new Set(known);
  return discover(env)
    .filter((session) => !seen.has(session.address))
    .sort((a, b) => (a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0));
}
