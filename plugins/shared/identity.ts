// Identity helpers the host adapters share: a session from the registry by host process, or from a
// host's session variable.
import { formatAddress, type SessionKind } from "../../core/address.js";
import type { Identity, IdentityContext } from "../../core/server/adapter.js";
import { sessionIdFromEnv } from "../../core/server/adapter.js";
import type { SessionHost } from "../../core/schemas.js";

/** The session the host's SessionStart hook registered for this host process (updated on clear/resume). */
export function identityFromRegistry(context: IdentityContext, host: SessionHost): Identity | undefined {
  if (!context.hostProcess) return undefined;
  const entry = context.sessions.byHostPid(host, context.hostProcess.pid);
  if (!entry) return undefined;
  return { address: entry.address, sessionId: entry.sessionId, source: "registry", detail: `sessions registry, host pid ${context.hostProcess.pid}`, verified: true };
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
