// The mailbox: send, inbox, deliver, read, resolve, remind, status and thread, all as appended events.
// Every decision that depends on the log (idempotency, double resolution, delivery claims, reminder
// numbers) is made under the log's lock, after folding the events appended so far.
import { idFactory } from "./ids.js";
import { join } from "node:path";
import { mkdirSync } from "node:fs";
import { JsonlLog, type LogOptions } from "./log.js";
import { MailboxView } from "./view.js";
import { snapshotFileName } from "./cache.js";
import type { ProcedureText } from "./envelope.js";
import { MAX_BODY_BYTES, mailboxEvent, type Anticipation, type MailboxEvent, type MsgEvent, type Resolution } from "./schemas.js";
import { applyEvent, byId, emptyState, messageStatus, type MessageState, type MessageStatus, type ReminderSettings } from "./fold.js";
import { dueReminder } from "./reminders.js";
import { PeerpostError, ioError } from "./errors.js";
import { HINTS } from "./hints.js";
import { parseAddress } from "./address.js";
import { DIR_MODE } from "./state-dir.js";

export interface MailboxSettings extends ReminderSettings {
  maxHops: number;
  now: () => number;
}

export interface SendInput {
  from: string;
  fromVerified: boolean;
  to: string;
  via?: string | undefined;
  body: string;
  anticipation?: Anticipation | undefined;
  replyBy?: string | undefined;
  replyToMessageId?: string | undefined;
  idempotencyKey?: string | undefined;
  allowSelf?: boolean | undefined;
}

export interface SendResult {
  message: MessageState;
  /** False when an earlier send with the same idempotency key is returned instead. */
  created: boolean;
}

export interface ResolveInput {
  id: string;
  by: string;
  /** Whether `by` came from the host runtime (not from an argument); carried by the reply message. Default false. */
  byVerified?: boolean | undefined;
  resolution: Resolution;
  /** The reply text (resolution reply) or the reason (decline, optional for done). */
  text?: string | undefined;
}

export interface ResolveResult {
  message: MessageState;
  reply?: MessageState;
}

export interface InboxEntry {
  message: MessageState;
  body: string;
  status: MessageStatus;
}

export function checkBody(body: string, field = "message"): void {
  const bytes = Buffer.byteLength(body, "utf8");
  if (bytes > MAX_BODY_BYTES)
    throw new PeerpostError("body_too_large", `The ${field} is ${bytes} bytes of UTF-8; the limit is ${MAX_BODY_BYTES}.`, {
      details: { field, bytes, limit: MAX_BODY_BYTES },
      hint: "Shorten it, or put the long content in a file both agents can read and send its path.",
    });
}

/**
 * The request a message without replyToMessageId answers, for the hop count: the newest open reply or
 * action request from the recipient that the sender has read (the turn that got a request answers it).
 */
function answeredRequest(view: MailboxView, input: SendInput): MessageState | undefined {
  let found: MessageState | undefined;
  for (const message of Object.values(view.state.messages))
    if (message.to === input.from && message.from === input.to && message.read && !message.resolved && message.anticipation !== "fyi" && (!found || byId(found, message) < 0)) found = message;
  return found;
}

/** A message this process just appended, from its refreshed view. */
function readBack(view: MailboxView, id: string): MessageState {
  const message = view.state.messages[id];
  if (!message)
    throw new PeerpostError("state_io_error", `Message ${id} was written but cannot be read back from the mailbox.`, {
      details: { messageId: id, offset: view.offset },
      hint: "Another process may have replaced or truncated mailbox.jsonl; `peerpost doctor` inspects it.",
    });
  return message;
}

function notFound(id: string): PeerpostError {
  return new PeerpostError("not_found", `No message ${id} in the mailbox.`, {
    details: { messageId: id },
    hint: HINTS.unknownMessage,
  });
}

export class Mailbox {
  readonly log: JsonlLog<MailboxEvent>;
  private readonly cacheDir: string;
  private readonly views = new Map<string, MailboxView>();

  constructor(
    readonly stateDir: string,
    logOptions: LogOptions,
    readonly settings: MailboxSettings,
  ) {
    this.log = new JsonlLog(join(stateDir, "mailbox.jsonl"), mailboxEvent, logOptions);
    this.cacheDir = join(stateDir, "cache");
  }

  private nowIso(): string {
    return new Date(this.settings.now()).toISOString();
  }

  /** The view of an address's inbox and outbox, refreshed to the end of the log. */
  view(scope: string): MailboxView {
    const key = scope;
    let view = this.views.get(key);
    if (!view) {
      view = new MailboxView(this.log, scope, join(this.cacheDir, snapshotFileName(scope)));
      this.views.set(key, view);
    }
    view.refresh();
    return view;
  }

  /** Persists a view's snapshot when it moved on by at least `minBytes` since the last one. */
  async persist(view: MailboxView, minBytes = 0): Promise<boolean> {
    if (view.unsavedBytes() < minBytes || view.unsavedBytes() === 0) return false;
    try {
      mkdirSync(this.cacheDir, { recursive: true, mode: DIR_MODE });
    } catch (error) {
      throw ioError("create", this.cacheDir, error);
    }
    return await view.save();
  }

  /**
   * Appends what `decide` returns, deciding under the log's lock on `scope`'s view folded to the end of
   * the log; returns that view refreshed past the append.
   */
  async appendFor(scope: string, decide: (view: MailboxView) => MailboxEvent[]): Promise<MailboxView> {
    const view = this.view(scope);
    await this.log.transact(() => {
      view.refresh();
      return decide(view);
    });
    view.refresh();
    return view;
  }

  status(message: MessageState): MessageStatus {
    return messageStatus(message, this.settings.now(), this.settings);
  }

  body(message: MessageState): string {
    const record = this.log.readAt(message.offset);
    if (!record || record.type !== "msg" || record.id !== message.id)
      throw new PeerpostError("state_io_error", `The mailbox line of message ${message.id} could not be read at offset ${message.offset}.`, {
        details: { messageId: message.id, offset: message.offset },
        hint: "The mailbox may have been edited by hand; delete the state dir's cache/ folder to rebuild the views, and run `peerpost doctor`.",
      });
    return record.body;
  }

  async send(input: SendInput): Promise<SendResult> {
    parseAddress(input.from, "from");
    parseAddress(input.to, "to");
    checkBody(input.body);
    if (input.from === input.to && !input.allowSelf)
      throw new PeerpostError("invalid_arguments", `Refusing to send a message from ${input.from} to itself.`, {
        details: { field: "to", value: input.to },
        hint: HINTS.selfSend,
      });
    const newId = await idFactory();
    let id: string | undefined;
    let created = false;
    const view = await this.appendFor(input.from, (view) => {
      id = input.idempotencyKey === undefined ? undefined : view.state.idempotency[`${input.from}\n${input.idempotencyKey}`];
      if (id !== undefined) return [];
      const event = this.newMessage(view, input, newId);
      id = event.id;
      created = true;
      return [event];
    });
    return { message: readBack(view, id!), created };
  }

  private newMessage(view: MailboxView, input: SendInput, newId: (seedTime?: number) => string): MsgEvent {
    const id = newId(this.settings.now());
    let conversationId = id;
    let hop = 1;
    const parent = input.replyToMessageId === undefined ? answeredRequest(view, input) : view.state.messages[input.replyToMessageId];
    if (input.replyToMessageId !== undefined && !parent) throw notFound(input.replyToMessageId);
    if (parent) {
      conversationId = parent.conversationId;
      hop = parent.hop + 1;
    }
    // Role mail goes to the role's holder in the log, decided under the lock (nobody: it waits at the role).
    const role = input.via === undefined ? undefined : view.state.roles[input.via.slice("role:".length)];
    const to = role ? (role.holder ?? input.via!) : input.to;
    const anticipation = input.anticipation ?? "fyi";
    if (hop === this.settings.maxHops && anticipation !== "fyi")
      throw new PeerpostError("hop_limit", `Hop ${hop} is the last of this conversation's ${this.settings.maxHops}: no answer to it could be sent, so it cannot ask for one.`, {
        details: { conversationId, hop, maxHops: this.settings.maxHops, anticipation },
        hint: HINTS.lastHop,
      });
    if (hop > this.settings.maxHops)
      throw new PeerpostError("hop_limit", `This conversation has used its ${this.settings.maxHops} hops; refusing to send hop ${hop}.`, {
        details: { conversationId, hop, maxHops: this.settings.maxHops },
        hint: HINTS.hopsUsed,
      });
    const event: MsgEvent = {
      v: 1,
      type: "msg",
      id,
      from: input.from,
      fromVerified: input.fromVerified,
      to,
      sentAt: this.nowIso(),
      anticipation,
      conversationId,
      hop,
      body: input.body,
    };
    if (input.via !== undefined) event.via = input.via;
    // Stored in UTC ("…Z"), whatever offset the caller wrote it with.
    if (input.replyBy !== undefined) event.replyBy = new Date(Date.parse(input.replyBy)).toISOString();
    if (input.replyToMessageId !== undefined) event.inReplyTo = input.replyToMessageId;
    if (input.idempotencyKey !== undefined) event.idempotencyKey = input.idempotencyKey;
    return event;
  }

  /** The role procedure a message carries, read from its role event; undefined for most messages. */
  procedure(message: MessageState): ProcedureText | undefined {
    if (!message.procedure) return undefined;
    const record = this.log.readAt(message.procedure.offset);
    if (!record || record.type !== "role" || !record.procedure || record.procedure.version !== message.procedure.version) return undefined;
    return { role: message.procedure.role, version: record.procedure.version, text: record.procedure.text };
  }

  /** Messages addressed to `address`, oldest first, with bodies. */
  inbox(address: string, options: { unreadOnly?: boolean; limit?: number } = {}): InboxEntry[] {
    const view = this.view(address);
    const unreadOnly = options.unreadOnly ?? true;
    const selected = Object.values(view.state.messages)
      .filter((message) => message.to === address && (!unreadOnly || !message.read))
      .sort(byId)
      .slice(0, options.limit ?? Infinity);
    return selected.map((message) => ({ message, body: this.body(message), status: this.status(message) }));
  }

  /** Claims delivery of a message to its recipient: true for the one caller that recorded it. */
  async markDelivered(recipient: string, id: string, via: string): Promise<boolean> {
    let claimed = false;
    await this.appendFor(recipient, (view) => {
      const message = view.state.messages[id];
      if (!message || message.to !== recipient || message.delivered) return [];
      claimed = true;
      return [{ v: 1, type: "delivered", id, via, at: this.nowIso() }];
    });
    return claimed;
  }

  /** Gives back a delivery claim whose push failed, so a later push may deliver the message. */
  async releaseDelivery(recipient: string, id: string, via: string): Promise<boolean> {
    let released = false;
    await this.appendFor(recipient, (view) => {
      const message = view.state.messages[id];
      if (!message || message.delivered?.via !== via || message.read) return [];
      released = true;
      return [{ v: 1, type: "undelivered", id, via, at: this.nowIso() }];
    });
    return released;
  }

  /**
   * Claims telling `recipient` about these unread requests at a turn end: returns the ids this caller
   * recorded. A request already noticed, read or resolved is skipped, so racing stop hooks tell it once.
   */
  async markNoticed(recipient: string, ids: string[], via: string): Promise<string[]> {
    let marked: string[] = [];
    await this.appendFor(recipient, (view) => {
      marked = ids.filter((id) => {
        const message = view.state.messages[id];
        return message !== undefined && message.to === recipient && !message.read && !message.resolved && !message.noticed;
      });
      const at = this.nowIso();
      return marked.map((id): MailboxEvent => ({ v: 1, type: "noticed", id, via, at }));
    });
    return marked;
  }

  /** Records that `by` read these messages; ids already read are skipped. */
  async markRead(by: string, ids: string[]): Promise<string[]> {
    let marked: string[] = [];
    await this.appendFor(by, (view) => {
      marked = ids.filter((id) => {
        const message = view.state.messages[id];
        return message !== undefined && message.to === by && !message.read;
      });
      const at = this.nowIso();
      return marked.map((id): MailboxEvent => ({ v: 1, type: "read", id, by, at }));
    });
    return marked;
  }

  async resolve(input: ResolveInput): Promise<ResolveResult> {
    if (input.text !== undefined) checkBody(input.text, input.resolution === "reply" ? "message" : "reason");
    if (input.resolution === "reply" && (input.text === undefined || input.text.length === 0))
      throw new PeerpostError("invalid_arguments", "A reply needs a message.", { details: { field: "message" }, hint: HINTS.replyNeedsText });
    // A message outside the caller's view is someone else's (or nobody's): say which, before taking the lock.
    const known = this.view(input.by).state.messages[input.id] ?? this.find(input.id);
    if (!known) throw notFound(input.id);
    const newId = await idFactory();
    let replyId: string | undefined;
    const view = await this.appendFor(input.by, (view) => {
      const message = view.state.messages[input.id] ?? known;
      const handover = message.handovers?.find((step) => step.from === input.by);
      if (message.to !== input.by && handover)
        throw new PeerpostError("wrong_recipient", `Message ${input.id} followed ${message.via} to ${message.to} at ${handover.at}; it is no longer yours to resolve.`, {
          details: { messageId: input.id, recipient: message.to, caller: input.by, role: message.via, handedOverAt: handover.at },
          hint: HINTS.roleMoved,
        });
      if (message.to !== input.by)
        throw new PeerpostError("wrong_recipient", `Message ${input.id} was sent to ${message.to}, not to ${input.by}; only its recipient can resolve it.`, {
          details: { messageId: input.id, recipient: message.to, caller: input.by },
          hint: HINTS.wrongRecipient,
        });
      if (message.resolved)
        throw new PeerpostError("already_resolved", `Message ${input.id} was already resolved (${message.resolved.resolution}) at ${message.resolved.at}.`, {
          details: { messageId: input.id, resolution: message.resolved.resolution, at: message.resolved.at },
          hint: HINTS.alreadyResolved,
        });
      const at = this.nowIso();
      const events: MailboxEvent[] = [];
      if (input.resolution === "reply") {
        const reply = this.newMessage(view, { from: input.by, fromVerified: input.byVerified ?? false, to: message.from, body: input.text!, anticipation: "fyi", replyToMessageId: message.id }, newId);
        replyId = reply.id;
        events.push(reply);
      }
      const resolved: MailboxEvent = { v: 1, type: "resolved", id: message.id, resolution: input.resolution, by: input.by, at };
      if (replyId !== undefined) resolved.replyId = replyId;
      if (input.resolution !== "reply" && input.text !== undefined) resolved.reason = input.text;
      events.push(resolved);
      return events;
    });
    const result: ResolveResult = { message: readBack(view, input.id) };
    if (replyId !== undefined) result.reply = readBack(view, replyId);
    return result;
  }

  /** Message state by id from any view this process holds, else a full scan (rare: status of a stranger's message). */
  private findElsewhere(id: string): MessageState | undefined {
    for (const view of this.views.values()) {
      const message = view.state.messages[id];
      if (message) return message;
    }
    return undefined;
  }

  find(id: string): MessageState | undefined {
    return this.findElsewhere(id) ?? this.scanFor((message) => message.id === id)[0];
  }

  /** A one-off fold of the whole log, keeping only matching messages (memory stays bounded by the matches). */
  private scanFor(keep: (message: MsgEvent) => boolean): MessageState[] {
    const state = emptyState();
    this.log.scan(0, (entry) => applyEvent(state, entry.record, entry.offset, keep));
    return Object.values(state.messages).sort(byId);
  }

  /** Records the next reminder for a message if one is due; returns its number, or undefined. */
  async remind(recipient: string, id: string, via: string): Promise<number | undefined> {
    let n: number | undefined;
    await this.appendFor(recipient, (view) => {
      const message = view.state.messages[id];
      const due = message && message.to === recipient ? dueReminder(message, this.settings.now(), this.settings) : undefined;
      if (!due) return [];
      n = due.n;
      return [{ v: 1, type: "reminder", id, n: due.n, via, at: this.nowIso() }];
    });
    return n;
  }

  /** Every message of a conversation, oldest first (a full scan: conversations are looked at rarely). */
  thread(conversationId: string): MessageState[] {
    return this.scanFor((message) => message.conversationId === conversationId);
  }
}
