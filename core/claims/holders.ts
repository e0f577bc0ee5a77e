// Whether a claim's holder is gone: a session whose host process peerpost knows has ended, by the same
// check a wake makes before it resumes a session. A person, a role, a session peerpost cannot be sure
// about, or one on another machine keeps its claims until their TTL or a release.
import { parseAddress } from "../common/address.js";
import type { Peerpost } from "../peerpost.js";
import { sessionLiveness } from "../wake/liveness.js";

export function holderGone(peerpost: Peerpost, holder: string): boolean {
  const kind = parseAddress(holder, "holder").kind;
  if (kind === "user" || kind === "role") return false;
  const entry = peerpost.sessions.get(holder);
  if (!entry || !entry.local) return false;
  return sessionLiveness(peerpost, entry, undefined).state === "gone";
}

/**
 * Whether `holder` is a session that `address`'s Claude Code process ran before it: /clear and /resume
 * start a new session id in the same process, which goes on with the same work, so the claims made before
 * are still its own (it edits there and releases them). Only Claude Code: one process runs one session at a
 * time there, while an app-server (Codex's, in an IDE panel) runs several conversations side by side.
 */
export function heldBefore(peerpost: Peerpost, holder: string, address: string): boolean {
  if (holder === address) return false;
  const now = peerpost.sessions.get(address);
  const before = peerpost.sessions.get(holder);
  return (
    now?.host === "claude-code" &&
    before?.host === "claude-code" &&
    now.local &&
    before.local &&
    now.hostPid !== undefined &&
    now.hostPid === before.hostPid &&
    now.hostStart === before.hostStart &&
    // The process runs one session at a time: the one it registered last (a /resume of an older one included).
    before.lastSeen < now.lastSeen &&
    now.alive
  );
}
