// Role enforcement: when one role holder messages another by its session address instead of by
// role:<name>, the coordination bypasses the role (and follows no handover). PEERPOST_ROLE_ENFORCEMENT
// decides: off lets it pass, warn sends it with a `direct_coordination` warning and receipt tag, enforce
// refuses it before anything is stored.
import { parseAddress } from "../common/address.js";
import { PeerpostError } from "../common/errors.js";
import type { Peerpost } from "../peerpost.js";
import type { Warning } from "../server/results.js";
import { roleState, rolesOf } from "./roles.js";
import { mayRun } from "../sessions/registry.js";

export const DIRECT_COORDINATION = "direct_coordination";

/** The roles an address holds now: run-time ones, and (for a session) those it took from PEERPOST_ROLES. */
function rolesHeldBy(peerpost: Peerpost, address: string): string[] {
  const entry = peerpost.sessions.get(address);
  // PEERPOST_ROLES count while the session may run, as role:<name> reaches only such holders.
  // Not one its Claude Code process left (/clear, /resume): role:<name> reaches the session it runs now.
  return rolesOf(roleState(peerpost), { address, roles: entry && mayRun(entry) && peerpost.sessions.leftFor(entry) === undefined ? entry.roles : [] });
}

export interface DirectCoordination {
  warning: Warning;
  /** Tags for the send's receipt. */
  tags: string[];
}

/**
 * Checks a send from `from` to `to` (as the sender wrote it) reaching `recipient`. Returns the warning and
 * receipt tag under warn, throws permission_denied under enforce, and returns undefined when the send is
 * not direct coordination between role holders or enforcement is off.
 */
export function checkDirectCoordination(peerpost: Peerpost, from: string, to: string, recipient: string): DirectCoordination | undefined {
  const { mode } = peerpost.config.roleEnforcement;
  if (mode === "off" || parseAddress(to, "to").kind === "role" || from === recipient) return undefined;
  const fromRoles = rolesHeldBy(peerpost, from);
  if (fromRoles.length === 0) return undefined;
  const toRoles = rolesHeldBy(peerpost, recipient);
  if (toRoles.length === 0) return undefined;
  const roleAddresses = toRoles.map((role) => `role:${role}`);
  const said = `${from} (${fromRoles.map((role) => `role:${role}`).join(", ")}) messages ${recipient} by its session address, but ${recipient} holds ${roleAddresses.join(", ")}`;
  if (mode === "enforce")
    throw new PeerpostError("permission_denied", `${said}; role holders coordinate through the role's address (PEERPOST_ROLE_ENFORCEMENT=enforce). Nothing was sent.`, {
      details: { reason: "role_address_required", from, to: recipient, fromRoles, toRoles, use: roleAddresses },
      hint: `Send to ${roleAddresses[0]} instead.`,
    });
  return { warning: { code: DIRECT_COORDINATION, message: `${said}; prefer ${roleAddresses[0]}, which follows the role when it moves (PEERPOST_ROLE_ENFORCEMENT=warn).` }, tags: [DIRECT_COORDINATION] };
}
