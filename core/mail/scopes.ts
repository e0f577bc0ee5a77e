// Which addresses a message and its events concern: the scopes a scoped read returns them for, and the
// scopes the per-address index files them under. A message concerns its sender, its recipient and the
// role it came through; every other event concerns its message's addresses. The index also files each
// line under the keys it is about (its message, conversation, idempotency slot) for lookups of one message.
import { EVERY_SCOPE } from "../store/file/scope-index.js";
import type { MailboxEvent, MsgEvent } from "../records/schemas.js";
import { fnv1a64 } from "../common/hash.js";
import { idempotencySlot } from "./fold.js";
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
export function indexScopes(event: MailboxEvent, scopesOfMessage: (id: string) => readonly string[] | undefined): { id?: string; scopes: readonly string[]; about?: readonly string[] } {
  if (event.type === "role") return { scopes: [EVERY_SCOPE] };
  const work = workScope(event);
  if (work !== undefined) return { scopes: [work] };
  if (event.type === "msg") return { id: event.id, scopes: event.via === undefined ? scopesOf(event) : [...scopesOf(event), EVERY_SCOPE], about: aboutMessage(event) };
  return { scopes: scopesOfMessage(event.id) ?? [EVERY_SCOPE], about: [event.id] };
}

/**
 * The index key of an idempotency slot (fold.ts): a hash, as keys are user text. Two slots sharing one
 * only make a lookup read more lines, which the fold passes over; no ULID starts with "=".
 */
export function slotKey(from: string, key: string): string {
  return `=${fnv1a64(idempotencySlot(from, key))}`;
}

/**
 * Every key a lookup of one message finds a line by (what indexScopes files it under, its message's id
 * included): a send's id, conversation and idempotency slot, an event's message; none for role and work lines.
 */
export function lookupKeys(event: MailboxEvent): readonly string[] {
  if (event.type === "role" || workScope(event) !== undefined) return [];
  return event.type === "msg" ? [event.id, ...aboutMessage(event)] : [event.id];
}

/**
 * The keys a message's line is filed under besides its id: its conversation (a thread's lookup finds its
 * messages) and its idempotency slot (a repeat that the fold drops is told from the first send).
 */
function aboutMessage(message: MsgEvent): string[] {
  const about: string[] = [];
  if (message.conversationId !== message.id) about.push(message.conversationId);
  if (message.idempotencyKey !== undefined) about.push(slotKey(message.from, message.idempotencyKey));
  return about;
}
