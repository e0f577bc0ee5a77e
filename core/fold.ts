// The pure fold of mailbox events into per-message state, and the status a message has at a given time.
import type { Anticipation, MailboxEvent, MsgEvent, Resolution } from "./schemas.js";

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
  /** When a turn-end hook first told the session about it. */
  noticed?: { via: string; at: string };
  resolved?: { resolution: Resolution; replyId?: string; reason?: string; by: string; at: string };
  reminders: { count: number; lastAt?: string };
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
}

/** Oldest first: ULID ids sort by time. */
export function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function emptyState(): MailboxState {
  return { messages: {}, idempotency: {} };
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

/**
 * Applies one event. `keep` decides which messages this state tracks; events about untracked messages
 * are ignored. The first event of each kind wins: a repeated `delivered`, `read` or `resolved` changes nothing.
 */
export function applyEvent(state: MailboxState, event: MailboxEvent, offset: number, keep: (message: MsgEvent) => boolean): void {
  if (event.type === "msg") {
    if (state.messages[event.id] || !keep(event)) return;
    state.messages[event.id] = messageFrom(event, offset);
    if (event.idempotencyKey !== undefined) {
      const key = `${event.from}\n${event.idempotencyKey}`;
      state.idempotency[key] ??= event.id;
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
      message.read ??= { by: event.by, at: event.at };
      return;
    case "noticed":
      message.noticed ??= { via: event.via, at: event.at };
      return;
    case "resolved":
      if (message.resolved) return;
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
