// Roles at run time: a person (or an agent whose server was started with PEERPOST_ROLE_ADMIN=1) gives a
// role to a holder or clears it; each change is a `role` event in the mailbox log, and the fold moves the
// role's open mail. Roles from PEERPOST_ROLES still answer for names no run-time event ever set.
import { ID_PATTERN, parseAddress } from "../common/address.js";
import { PeerpostError } from "../common/errors.js";
import { idFactory } from "../common/ids.js";
import { expectsResolution, type MailboxState } from "../mail/fold.js";
import { defaultProcedurePath, readProcedure, type Procedure } from "./procedure.js";
import type { Peerpost } from "../peerpost.js";
import type { RoleEvent } from "../records/schemas.js";
import type { SessionEntry } from "../sessions/registry.js";
import type { DiscoveredSession } from "../sessions/discovery.js";
import { findUnseen, registerDiscovered } from "../sessions/unseen.js";
import { personKnown } from "../sessions/people.js";
import { isPerson } from "../sessions/user.js";

/** The view that folds role events and role mail only (no address is ever "roles"). */
export const ROLES_SCOPE = "roles";

export interface RoleRow {
  role: string;
  holder: string | null;
  /** "runtime" for `peerpost role set`, "env" for sessions that took the role from PEERPOST_ROLES. */
  source: "runtime" | "env";
  since: string | null;
  by: string | null;
  procedure: { version: string; bytes: number; source: string } | null;
  /** Open reply/action requests to the role waiting on its holder, and mail waiting for a holder. */
  open: number;
  queued: number;
}

export function checkRoleName(role: string, field = "role"): void {
  if (!ID_PATTERN.test(role))
    throw new PeerpostError("invalid_arguments", `${field} ${JSON.stringify(role.slice(0, 200))} is not a role name.`, {
      details: { field, value: role.slice(0, 200) },
      hint: "Role names are letters, digits, '.', '_' and '-' (up to 128), starting with a letter or digit.",
    });
}

export function roleState(peerpost: Peerpost): MailboxState {
  return peerpost.mailbox.view(ROLES_SCOPE).state;
}

/**
 * Checks that a holder is a session peerpost knows (or one its host's files show), or a person; nothing
 * else can take a role. Returns the unseen session to register once everything else is valid.
 */
function checkHolder(peerpost: Peerpost, holder: string): DiscoveredSession | undefined {
  const address = parseAddress(holder, "holder");
  if (address.kind === "user") return undefined;
  if (address.kind === "role")
    throw new PeerpostError("invalid_arguments", "A role cannot hold another role.", { details: { field: "holder", value: holder }, hint: { model: "Give the exact address of a session, as the agents tool lists it.", cli: "Give the exact address of a session, as `peerpost agents` lists it." } });
  return peerpost.sessions.resolveRecipient(holder, () => findUnseen(peerpost, holder)).discovered;
}

export interface RoleChange {
  role: string;
  /** Undefined clears the role. */
  holder?: string | undefined;
  by: string;
  /** A procedure file; without one, roles/<name>.md in the state dir when it exists. */
  procedureFile?: string | undefined;
}

/** When the new holder is a person no one has used before: a name likely mistyped, as a send to one warns. */
export function holderWarning(peerpost: Peerpost, holder: string | undefined): { code: "unknown_person"; message: string } | undefined {
  if (holder === undefined || !isPerson(holder) || personKnown(peerpost, holder)) return undefined;
  return { code: "unknown_person", message: `No one has used ${holder} before: check the name (the role's mail now waits for \`peerpost inbox ${holder}\`).` };
}

/** A clear of a role no run-time event gave: nobody holds it, or only sessions started with it in PEERPOST_ROLES. */
function nothingToClear(peerpost: Peerpost, role: string): PeerpostError {
  const started = listRoles(peerpost).filter((row) => row.role === role && row.source === "env").map((row) => row.holder!);
  if (started.length === 0) return new PeerpostError("not_found", `Nobody holds the role ${role}, so there is nothing to clear.`, { details: { role }, hint: { model: "The roles tool lists the roles and their holders.", cli: "`peerpost roles` lists the roles and their holders." } });
  return new PeerpostError("not_found", `The role ${role} was not given at run time, so there is nothing to clear: ${started.join(", ")} ${started.length === 1 ? "holds" : "hold"} it from PEERPOST_ROLES, which is set when a session starts.`, {
    details: { role, startedWith: started },
    hint: "Start those sessions without the role in PEERPOST_ROLES, or give it to one holder at run time (`peerpost role set`), which then stands over PEERPOST_ROLES.",
  });
}

/** Validates everything first, then appends one role event; bad input changes nothing stored. */
export async function changeRole(peerpost: Peerpost, change: RoleChange): Promise<RoleRow> {
  checkRoleName(change.role);
  parseAddress(change.by, "by");
  let procedure: Procedure | undefined;
  let unseen: DiscoveredSession | undefined;
  if (change.holder !== undefined) {
    unseen = checkHolder(peerpost, change.holder);
    procedure = change.procedureFile !== undefined ? readProcedure(change.procedureFile) : readProcedure(defaultProcedurePath(peerpost.stateDir.path, change.role), true);
  } else if (change.procedureFile !== undefined) {
    throw new PeerpostError("invalid_arguments", "A procedure goes with a holder; clearing a role takes none.", { details: { field: "procedure" }, hint: "Use `peerpost role set NAME ADDR --procedure FILE`." });
  }
  if (unseen) await registerDiscovered(peerpost, unseen);
  const newId = await idFactory();
  await peerpost.mailbox.appendFor(ROLES_SCOPE, (view) => {
    if (change.holder === undefined && view.state.roles[change.role]?.holder === undefined) throw nothingToClear(peerpost, change.role);
    const event: RoleEvent = { v: 1, type: "role", id: newId(peerpost.config.now()), role: change.role, by: change.by, at: new Date(peerpost.config.now()).toISOString() };
    if (change.holder !== undefined) event.holder = change.holder;
    if (procedure) event.procedure = procedure;
    return [event];
  });
  return listRoles(peerpost).find((row) => row.role === change.role && row.source === "runtime")!;
}

/** Every role: run-time ones, then PEERPOST_ROLES names no run-time event set (one row per live holder). */
export function listRoles(peerpost: Peerpost): RoleRow[] {
  const state = roleState(peerpost);
  const messages = Object.values(state.messages);
  const rows: RoleRow[] = Object.entries(state.roles).map(([role, held]) => {
    const mail = messages.filter((message) => message.via === `role:${role}` && !message.resolved);
    return {
      role,
      holder: held.holder ?? null,
      source: "runtime",
      since: held.since,
      by: held.by,
      procedure: held.procedure ?? null,
      open: mail.filter((message) => held.holder !== undefined && message.to === held.holder && expectsResolution(message)).length,
      queued: mail.filter((message) => message.to === `role:${role}`).length,
    };
  });
  for (const session of peerpost.sessions.list())
    for (const role of session.roles)
      if (!state.roles[role]) {
        const open = messages.filter((message) => message.via === `role:${role}` && message.to === session.address && !message.resolved && expectsResolution(message)).length;
        rows.push({ role, holder: session.address, source: "env", since: session.firstSeen, by: null, procedure: null, open, queued: 0 });
      }
  return rows.sort((a, b) => (a.role < b.role ? -1 : a.role > b.role ? 1 : 0));
}

/** The roles a session holds now: run-time ones it was given, and PEERPOST_ROLES names not set at run time. */
export function rolesOf(state: MailboxState, session: Pick<SessionEntry, "address" | "roles">): string[] {
  const runtime = Object.entries(state.roles).filter(([, held]) => held.holder === session.address).map(([role]) => role);
  return [...new Set([...runtime, ...session.roles.filter((role) => !state.roles[role])])].sort();
}
