// Sessions known only from their hosts' own files (discovery), looked up by address and registered at
// their first message. Shared by recipients and roles, which both reach sessions peerpost has not seen yet.
import type { Peerpost } from "../peerpost.js";
import type { DiscoveredSession } from "./discovery.js";

export function findUnseen(peerpost: Peerpost, to: string): DiscoveredSession | undefined {
  return peerpost.discover?.(peerpost.env).find((session) => session.address === to);
}

/** A session known from its host's files becomes a registered one at its first message. */
export async function registerDiscovered(peerpost: Peerpost, session: DiscoveredSession): Promise<void> {
  await peerpost.sessions.register({
    host: session.host,
    address: session.address,
    sessionId: session.sessionId,
    source: "discovered",
    ...(session.cwd !== undefined ? { cwd: session.cwd } : {}),
    ...(session.title !== undefined ? { title: session.title } : {}),
  });
}
