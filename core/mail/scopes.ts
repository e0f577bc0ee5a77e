// Which addresses a message and its events concern: the scopes a scoped read returns them for, and the
// scopes the per-address index files them under. A message concerns its sender, its recipient and the
// role it came through; every other event concerns its message's addresses.
import { EVERY_SCOPE } from "../store/file/scope-index.js";
import type { MailboxEvent } from "../records/schemas.js";
import { workScope } from "../records/work-scope.js";

/** The addresses a scoped read must return a message's records for. */
export function scopesOf(message: { to: string; from: string; via?: string | undefined }): string[] {
  return message.via === undefined ? [message.to, message.from] : [message.to, message.from, message.via];
}

/** A scoped read without an index: a message is in scope by its addresses, an event by its message. */
export function mailboxScopeFilter(scope: string): (event: MailboxEvent) => boolean {
  const inScope = new Set<string>();
  return (event) => {
    if (event.type !== "msg") return inScope.has(event.id);
    if (!scopesOf(event).includes(scope)) return false;
    inScope.add(event.id);
    return true;
  };
}

/**
 * Index scopes: a message by its addresses, an event by its message's. Role events and role mail are in
 * every view (a role can move to any address), so they go to the scope every lookup includes, as do
 * events about a message this log does not hold (one the archive holds, resolved after it moved there):
 * a fold that holds the message applies them, every other fold ignores them. Work events have their own.
 */
export function indexScopes(event: MailboxEvent, scopesOfMessage: (id: string) => readonly string[] | undefined): { id?: string; scopes: readonly string[] } {
  if (event.type === "role") return { scopes: [EVERY_SCOPE] };
  const work = workScope(event);
  if (work !== undefined) return { scopes: [work] };
  if (event.type === "msg") return { id: event.id, scopes: event.via === undefined ? scopesOf(event) : [...scopesOf(event), EVERY_SCOPE] };
  return { scopes: scopesOfMessage(event.id) ?? [EVERY_SCOPE] };
}
