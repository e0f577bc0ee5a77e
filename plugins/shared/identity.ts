// Identity helpers the host adapters share: a session from the registry by host process, or from a
// host's session variable.
import { formatAddress, type SessionKind } from "../../core/common/address.js";
import type { Identity, IdentityContext } from "../../core/server/adapter.js";
import { sessionIdFromEnv } from "../../core/server/adapter.js";
import type { SessionHost } from "../../core/records/schemas.js";

/**
 * The session the host's SessionStart hook registered for this host process (updated on clear/resume).
 * A more recent record naming a session whose own host still runs is a claim: anything running inside
 * this host (an agent's shell tool too) can write one, so it is returned unverified, with the reason.
 */
export function identityFromRegistry(context: IdentityContext, host: SessionHost): Identity | undefined {
  if (!context.hostProcess) return undefined;
  const pid = context.hostProcess.pid;
  const found = context.sessions.byHostPid(host, pid);
  // A record whose start time names another process is an ended session whose pid was handed out again.
  const entry = found?.alive ? found : undefined;
  const claimed = context.sessions.claimedBy(host, pid);
  if (claimed?.claim && (!entry || claimed.claim.at > entry.lastSeen))
    return {
      address: claimed.address,
      sessionId: claimed.sessionId,
      source: "registry",
      detail: `sessions registry, host pid ${pid}`,
      verified: false,
      claim: `${claimed.address} was registered for host pid ${pid} at ${claimed.claim.at} while its own host (pid ${claimed.claim.ownerPid}) was still running`,
    };
  if (!entry) return undefined;
  return { address: entry.address, sessionId: entry.sessionId, source: "registry", detail: `sessions registry, host pid ${pid}`, verified: true };
}

export function identityFromEnv(context: IdentityContext, kind: SessionKind, variable: string): Identity | undefined {
  const id = sessionIdFromEnv(context.env, variable);
  if (id === undefined) return undefined;
  return { address: formatAddress(kind, id), sessionId: id, source: "host-env", detail: variable, verified: true };
}

/** Matches a host CLI process by its short name or by a fragment of its command line. */
export function processMatcher(names: string[], commandFragments: string[]): (info: { name: string; command: string }) => boolean {
  return (info) => names.includes(info.name) || commandFragments.some((fragment) => info.command.includes(fragment));
}
