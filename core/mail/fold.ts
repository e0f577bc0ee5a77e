// The pure fold of mailbox events into per-message state, and the status a message has at a given time.
import type { Anticipation, MailboxEvent, MsgEvent, Resolution, RoleEvent } from "../records/schemas.js";

export interface MessageState {
  id: string;
  from: string;
  fromVerified: boolean;
  to: string;
  via?: string;
  sentAt: string;
  anticipation: Anticipation;
  replyBy?: string;
  inReplyTo?: string;
  conversationId: string;
  hop: number;
  idempotencyKey?: string;
  bodyBytes: number;
  /** Offset of the `msg` line in the mailbox, so the body can be read without folding. */
  offset: number;
  delivered?: { via: string; at: string };
  read?: { by: string; at: string };
  /** When a turn-end hook last told the session about it, and how many times it did (missing count: once). */
  noticed?: { via: string; at: string; count?: number };
  resolved?: { resolution: Resolution; replyId?: string; reason?: string; by: string; at: string };
  reminders: { count: number; lastAt?: string };
  /** Each time the message followed its role to another holder (or to nobody, `role:<name>` itself). */
  handovers?: Array<{ from: string; to: string; at: string }>;
  /** The role procedure this message carries to its holder: the first message of each version each holder gets. */
  procedure?: { role: string; version: string; offset: number };
}

/** A role given at run time (`role` events); the latest event wins. */
export interface RoleState {
  /** Undefined while nobody holds it: its mail waits, addressed to `role:<name>`. */
  holder?: string;
  since: string;
  by: string;
  /** Offset of the role event, so the procedure text is read only when shown. */
  offset: number;
  procedure?: { version: string; bytes: number; source: string };
  /** `${holder}\n${version}` for every procedure version a holder has been given. */
  shown: string[];
}

export type MessageStatus = "queued" | "delivered" | "read" | "replied" | "declined" | "done" | "unresolved" | "expired";

export interface ReminderSettings {
  intervalMs: number;
  limit: number;
}

/** A fold of the mailbox restricted to the messages a filter keeps (an address's inbox and outbox, or all). */
export interface MailboxState {
  messages: Record<string, MessageState>;
  /** `${from}\n${idempotencyKey}` → id of the first message sent with that key. */
  idempotency: Record<string, string>;
  /** Roles set at run time, by name. Every view folds every role event and keeps all role mail. */
  roles: Record<string, RoleState>;
}

/** Oldest first: ULID ids sort by time. */
export function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Maps keyed by what callers pass in (ids, role names) hold no prototype: `constructor` is no message. */
export function emptyState(): MailboxState {
  return { messages: Object.create(null), idempotency: Object.create(null), roles: Object.create(null) };
}

function messageFrom(event: MsgEvent, offset: number): MessageState {
  const state: MessageState = {
    id: event.id,
    from: event.from,
    fromVerified: event.fromVerified,
    to: event.to,
    sentAt: event.sentAt,
    anticipation: event.anticipation,
    conversationId: event.conversationId,
    hop: event.hop,
    bodyBytes: Buffer.byteLength(event.body, "utf8"),
    offset,
    reminders: { count: 0 },
  };
  if (event.via !== undefined) state.via = event.via;
  if (event.replyBy !== undefined) state.replyBy = event.replyBy;
  if (event.inReplyTo !== undefined) state.inReplyTo = event.inReplyTo;
  if (event.idempotencyKey !== undefined) state.idempotencyKey = event.idempotencyKey;
  return state;
}

/** The key of `state.idempotency`: a key is one sender's, so the same key from two senders names two messages. */
export function idempotencySlot(from: string, key: string): string {
  return `${from}\n${key}`;
}

/**
 * Applies one event. `keep` decides which messages this state tracks; events about untracked messages
 * are ignored. The first event of each kind wins in log order: a repeated `delivered`, `read` or `resolved`
 * changes nothing, and the reply a losing `resolved` carried is dropped with it.
 */
export function applyEvent(state: MailboxState, event: MailboxEvent, offset: number, keep: (message: MsgEvent) => boolean): void {
  if (event.type === "role") return applyRole(state, event, offset);
  if (event.type === "msg") {
    if (state.messages[event.id] || !keep(event)) return;
    if (event.idempotencyKey !== undefined) {
      // A second send with a key already used lost in log order (its sender was told so): not a message.
      const key = idempotencySlot(event.from, event.idempotencyKey);
      if (state.idempotency[key] !== undefined) return;
      state.idempotency[key] = event.id;
    }
    const message = messageFrom(event, offset);
    state.messages[event.id] = message;
    const role = event.via === undefined ? undefined : state.roles[event.via.slice("role:".length)];
    if (role) {
      // Role mail goes to whoever holds the role in log order, whatever the sender saw.
      message.to = role.holder ?? event.via!;
      attachProcedure(role, message);
    }
    return;
  }
  const message = state.messages[event.id];
  if (!message) return;
  switch (event.type) {
    case "delivered":
      message.delivered ??= { via: event.via, at: event.at };
      return;
    case "undelivered":
      if (message.delivered?.via === event.via) delete message.delivered;
      return;
    case "read":
      // Only the current recipient reads: a former holder's late read does not count for the new one.
      if (event.by === message.to) message.read ??= { by: event.by, at: event.at };
      return;
    case "noticed":
      message.noticed = { via: event.via, at: event.at, count: (message.noticed ? (message.noticed.count ?? 1) : 0) + 1 };
      return;
    case "resolved":
      if (message.resolved) {
        // A later resolution lost in log order: the reply written with it was never acknowledged, so it is not mail.
        if (event.replyId !== undefined && event.replyId !== message.resolved.replyId && state.messages[event.replyId]?.inReplyTo === event.id) delete state.messages[event.replyId];
        return;
      }
      if (event.by !== message.to) {
        // Decided by a holder the role moved away from before it was written (a lock taken over mid-way):
        // its writer is told so, and the reply written with it was never acknowledged, so it is not mail.
        if (event.replyId !== undefined && state.messages[event.replyId]?.inReplyTo === event.id) delete state.messages[event.replyId];
        return;
      }
      message.resolved = { resolution: event.resolution, by: event.by, at: event.at };
      if (event.replyId !== undefined) message.resolved.replyId = event.replyId;
      if (event.reason !== undefined) message.resolved.reason = event.reason;
      return;
    case "reminder":
      if (event.n <= message.reminders.count) return;
      message.reminders = { count: event.n, lastAt: event.at };
      return;
  }
}

/** Gives the role's procedure to the first message of its version that reaches each holder. */
function attachProcedure(role: RoleState, message: MessageState): void {
  delete message.procedure;
  if (role.holder === undefined || role.procedure === undefined || message.to !== role.holder) return;
  const key = `${role.holder}\n${role.procedure.version}`;
  if (role.shown.includes(key)) return;
  role.shown.push(key);
  message.procedure = { role: message.via!.slice("role:".length), version: role.procedure.version, offset: role.offset };
}

/**
 * A role moves: its open reply and action mail follows the new holder as new mail (unread, undelivered,
 * reminder count kept), and mail nobody held goes to whoever takes the role. fyi mail a holder already
 * has and resolved messages stay where they are. Without a holder, moved mail waits at `role:<name>`.
 */
function applyRole(state: MailboxState, event: RoleEvent, offset: number): void {
  const role: RoleState = { since: event.at, by: event.by, offset, shown: state.roles[event.role]?.shown ?? [] };
  if (event.holder !== undefined) role.holder = event.holder;
  if (event.procedure) role.procedure = { version: event.procedure.version, bytes: Buffer.byteLength(event.procedure.text, "utf8"), source: event.procedure.source };
  state.roles[event.role] = role;
  const roleAddress = `role:${event.role}`;
  const target = event.holder ?? roleAddress;
  for (const message of Object.values(state.messages).sort(byId)) {
    if (message.via !== roleAddress || message.resolved || message.to === target) continue;
    if (!expectsResolution(message) && message.to !== roleAddress) continue;
    // The procedure it carried to the former holder, who neither read it nor was pushed it: not shown to that
    // holder, so the holder's next role message carries it.
    if (message.procedure && !message.read && !message.delivered) {
      const key = `${message.to}\n${message.procedure.version}`;
      const at = role.shown.indexOf(key);
      if (at >= 0) role.shown.splice(at, 1);
    }
    (message.handovers ??= []).push({ from: message.to, to: target, at: event.at });
    message.to = target;
    delete message.delivered;
    delete message.read;
    // The former holder's turn-end notice told the former holder, not this one.
    delete message.noticed;
    attachProcedure(role, message);
  }
}

const RESOLVED_STATUS: Record<Resolution, MessageStatus> = { reply: "replied", decline: "declined", done: "done" };

export function expectsResolution(message: MessageState): boolean {
  return message.anticipation === "reply" || message.anticipation === "action";
}

/** The status at `now`. `unresolved` and `expired` are not final: a late resolution still wins. */
export function messageStatus(message: MessageState, now: number, settings: ReminderSettings): MessageStatus {
  if (message.resolved) return RESOLVED_STATUS[message.resolved.resolution];
  if (message.replyBy !== undefined && now > Date.parse(message.replyBy)) return "expired";
  if (expectsResolution(message) && message.reminders.count >= settings.limit) {
    const since = Date.parse(message.reminders.lastAt ?? message.read?.at ?? message.sentAt);
    if (now >= since + settings.intervalMs) return "unresolved";
  }
  if (message.read) return "read";
  if (message.delivered) return "delivered";
  return "queued";
}

/** True while a message still waits on its recipient (not resolved, not expired). */
export function isOpen(message: MessageState, now: number): boolean {
  return !message.resolved && !(message.replyBy !== undefined && now > Date.parse(message.replyBy));
}
