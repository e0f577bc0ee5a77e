// Sessions peerpost has not seen yet, as each host's own session files describe them. The readers live
// in plugins/<host>/discovery.ts; an entry point hands them in, so core never knows a host's files.
import type { SessionHost } from "../records/schemas.js";

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

export interface HostView<T extends { address: string; title?: string }> {
  /** The registered sessions, each given its host's title when it has none of its own. */
  sessions: T[];
  /** Sessions whose host files peerpost has not registered, newest first. */
  unseen: DiscoveredSession[];
}

/** Reads the hosts' session files once for `agents --all`: titles for known sessions, and the unseen ones. */
export function withHostFiles<T extends { address: string; title?: string }>(discover: Discover | undefined, env: NodeJS.ProcessEnv, sessions: T[], known: Iterable<string>): HostView<T> {
  const found = new Map((discover?.(env) ?? []).map((session) => [session.address, session]));
  const titled = sessions.map((session) => {
    const title = found.get(session.address)?.title;
    return session.title === undefined && title !== undefined ? { ...session, title } : session;
  });
  for (const address of known) found.delete(address);
  const unseen = [...found.values()].sort((a, b) => (a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0));
  return { sessions: titled, unseen };
}
