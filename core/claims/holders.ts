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
