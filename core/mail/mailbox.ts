// The mailbox's domain: send, inbox, deliver, read, resolve, remind, find and thread, all as appended
// events. Every decision that depends on the log (idempotency, double resolution, delivery claims, reminder
// numbers) is a deciding append: made under the store's exclusion after folding the events so far, and
// confirmed by log order before it is acknowledged (the first conflicting record wins, as in the fold).
// Appends that decide nothing (a plain send, read marks) take no lock. How the records are kept, on
// either backend, is MailboxStore's (store/mailbox-store.ts): nothing here asks which backend it has.
import { idFactory } from "../common/ids.js";
import type { LogOptions } from "../log/types.js";
import type { StoreFactory } from "../store/local.js";
import { MailboxStore } from "../store/mailbox-store.js";
import type { AppendItem } from "../store/types.js";
import { scopesOf } from "./scopes.js";
import type { CompactionSettings } from "../store/file/mailbox-compactor.js";
import { keptBy, type MailboxView } from "./view.js";
import type { MailboxEvent, MsgEvent } from "../records/schemas.js";
import { applyEvent, byId, emptyState, idempotencySlot, isOpen, messageStatus, type MessageState, type MessageStatus, type ReminderSettings } from "./fold.js";
import { dueReminder, turnEndDue } from "./reminders.js";
import { PeerpostError } from "../common/errors.js";
import { alreadyResolved, checkBody, notFound, type InboxEntry, type ResolveInput, type ResolveResult, type SendInput, type SendResult } from "./messages.js";
import { conversationOf, findMessage } from "./lookup.js";
import { HINTS } from "../common/hints.js";
import { parseAddress } from "../common/address.js";

export interface MailboxSettings extends ReminderSettings, CompactionSettings {
  maxHops: number;
  /** How long after its answer a sender's new message to the peer it answered continues that conversation (a turn's length). */
  askBackMs: number;
  now: () => number;
}

/**
 * What a message without replyToMessageId continues, for the hop count: the newest open reply or action
 * request from the recipient that the sender has read (the turn that got a request answers it); else
 * the sender's own answer to the recipient, when it is the sender's newest message to it and younger
 * than `askBackMs` (a turn that answers and then asks back: two agents would otherwise go on at hop 1,
 * waking each other, for as long as their budgets last), or the sender's newest message to it when that one
 * is an fyi that continued a conversation on its own (an fyi between the answer and the request asks back too).
 * Never a note to oneself (a task's opening note): each opens its own conversation.
 */
function continuedMessage(view: MailboxView, input: SendInput, now: number, askBackMs: number): MessageState | undefined {
  if (input.from === input.to) return undefined;
  let found: MessageState | undefined;
  for (const message of view.openRequests())
    if (message.to === input.from && message.from === input.to && message.read && isOpen(message, now) && (!found || byId(found, message) < 0)) found = message;
  if (found) return found;
  const latest = view.latestSentTo(input.to);
  // A request the sender marked done or declined, with nothing sent to its asker since: a turn that closes
  // it and then hands work back asks back too (else two agents trading action requests never run out).
  const closed = view.latestClosedFrom(input.to);
  const closedAt = closed?.resolved?.at;
  if (closed && closedAt !== undefined && now - Date.parse(closedAt) <= askBackMs && (latest === undefined || Date.parse(latest.sentAt) <= Date.parse(closedAt))) return closed;
  if (latest === undefined || now - Date.parse(latest.sentAt) > askBackMs) return undefined;
  // The sender's newest message to it is an fyi that continued a conversation on its own (after an answer,
  // or after closing a request): what the same turn sends next continues it too, else an fyi between the
  // answer and the request would start the request over at hop 1. Counted as the answer it followed: a
  // note in between costs the ask-back no hop.
  if (latest.inReplyTo === undefined) return latest.anticipation === "fyi" && latest.hop > 1 ? { ...latest, hop: latest.hop - 1 } : undefined;
  // Likewise an fyi sent as a reply after the sender resolved the recipient's request it follows (a note on
  // the request answered, or on the answer itself): answer, replying fyi, ask back is no way round it either.
  if (latest.anticipation === "fyi" && answeredBefore(view, latest, input)) return latest;
  const answered = view.state.messages[latest.inReplyTo];
  return answered?.from === input.to && answered.resolved?.replyId === latest.id ? latest : undefined;
}

/** Whether `note`'s replies lead back to a request (never an fyi) from the recipient that the sender resolved. */
function answeredBefore(view: MailboxView, note: MessageState, input: SendInput): boolean {
  let step: MessageState | undefined = note;
  for (let depth = 0; step?.inReplyTo !== undefined && depth < 64; depth++) {
    step = view.state.messages[step.inReplyTo];
    if (step && step.from === input.to && step.to === input.from && step.anticipation !== "fyi" && step.resolved) return true;
  }
  return false;
}

/**
 * The state of a message this process just appended, folded from its own event alone: a plain send
 * reports the message as sent, without reading what other writers appended meanwhile.
 */
function appendedMessage(event: MsgEvent, offset: number): MessageState {
  const state = emptyState();
  applyEvent(state, event, offset, () => true);
  return state.messages[event.id]!;
}

export class Mailbox extends MailboxStore {
  constructor(
    stateDir: string,
    open: StoreFactory,
    logOptions: LogOptions,
    readonly settings: MailboxSettings,
  ) {
    super(stateDir, open, logOptions, settings);
  }

  private nowIso(): string {
    return new Date(this.settings.now()).toISOString();
  }

  status(message: MessageState): MessageStatus {
    return messageStatus(message, this.settings.now(), this.settings);
  }

  async send(input: SendInput): Promise<SendResult> {
    this.checkSend(input);
    const key = input.idempotencyKey;
    const newId = await idFactory();
    if (key === undefined) {
      const view = this.view(input.from);
      const event = this.newMessage(view, input, newId);
      return { message: appendedMessage(event, await this.appendMessage(view, event)), created: true };
    }
    let id: string | undefined;
    let created = false;
    let archived: MessageState | undefined;
    const { view, conflict } = await this.appendDeciding(input.from, (view) => {
      // A key outlives the live log: a send compaction moved to the archive still answers for it.
      id = view.state.idempotency[idempotencySlot(input.from, key)] ?? (archived = this.lookups.archivedSend(input.from, key))?.id;
      if (id !== undefined) return { events: [] };
      const event = this.newMessage(view, input, newId);
      id = event.id;
      created = true;
      return { events: [event], conflicts: (earlier) => earlier.type === "msg" && earlier.from === input.from && earlier.idempotencyKey === key };
    });
    // An earlier send with the same key came first in log order: it is the message, this one a duplicate the fold drops.
    if (conflict) return { message: this.readBack(view, conflict.id), created: false };
    if (archived) return { message: this.find(archived.id) ?? archived, created: false };
    return { message: this.readBack(view, id!), created };
  }

  /** What every new message is checked for before anything is decided: its addresses, its body, a send to itself, its key. */
  private checkSend(input: SendInput): void {
    if (parseAddress(input.from, "from").kind === "role")
      throw new PeerpostError("invalid_arguments", `${input.from} is a role, not a sender: an answer to it would reach nobody.`, {
        details: { field: "from", value: input.from },
        hint: "Send as the session or person that holds the role (its exact address, or user:<name>); others reach the role as role:<name>.",
      });
    parseAddress(input.to, "to");
    checkBody(input.body);
    if (input.from === input.to && !input.allowSelf)
      throw new PeerpostError("invalid_arguments", `Refusing to send a message from ${input.from} to itself.`, {
        details: { field: "to", value: input.to },
        hint: HINTS.selfSend,
      });
    const key = input.idempotencyKey;
    if (key !== undefined && (key.length === 0 || key.length > 200))
      throw new PeerpostError("invalid_arguments", `An idempotency key is 1 to 200 characters; this one has ${key.length}.`, {
        details: { field: "idempotencyKey", length: key.length },
        hint: "Pass a short key that names this send (a task id, a hash of its content), or none.",
      });
  }

  /**
   * A new message's event as a plain send (no idempotency key) would write it, on the sender's view as it is
   * now, for a caller that appends it in one batch with the records it tells about (a forced release).
   */
  messageEvent(input: SendInput, newId: (seedTime?: number) => string): { record: MsgEvent; scopes: string[] } {
    this.checkSend(input);
    const view = this.view(input.from);
    view.refresh();
    const record = this.newMessage(view, input, newId);
    return { record, scopes: scopesOf(record) };
  }

  /**
   * A request from `address` to itself, read already, that opens a conversation (a task's), appended with
   * `more` (the records that name it) in one batch: a store lost part way leaves no note that nothing names.
   */
  async noteToSelf(address: string, body: string, more: (note: MsgEvent) => AppendItem<MailboxEvent>[]): Promise<MessageState> {
    const input: SendInput = { from: address, fromVerified: false, to: address, body, anticipation: "reply", allowSelf: true };
    this.checkSend(input);
    const newId = await idFactory();
    const view = this.view(address);
    const note = this.newMessage(view, input, newId);
    await this.appendMessageWith(view, note, [{ v: 1, type: "read", id: note.id, by: address, at: this.nowIso() }], more(note));
    return this.readBack(view, note.id);
  }

  /** `known`: the message replied to, when the caller holds it already (a resolution of an archived request, which no live view holds). */
  private newMessage(view: MailboxView, input: SendInput, newId: (seedTime?: number) => string, known?: MessageState): MsgEvent {
    const id = newId(this.settings.now());
    let conversationId = id;
    let hop = 1;
    const parent = input.replyToMessageId === undefined ? (input.notice ? undefined : continuedMessage(view, input, this.settings.now(), this.settings.askBackMs)) : (view.state.messages[input.replyToMessageId] ?? known ?? this.foundFor(input.from, input.replyToMessageId));
    if (input.replyToMessageId !== undefined && !parent) throw notFound(input.replyToMessageId);
    const anticipation = input.anticipation ?? "fyi";
    if (parent) {
      conversationId = parent.conversationId;
      // An fyi the sender did not send as a reply always fits: continued on its own (a note after an answer
      // at the last hop), it stays at the last hop, where a request after it is refused.
      hop = input.replyToMessageId === undefined && anticipation === "fyi" ? Math.min(parent.hop + 1, this.settings.maxHops) : parent.hop + 1;
    }
    // Role mail goes to the role's holder in the log, decided under the lock (nobody: it waits at the role).
    const role = input.via === undefined ? undefined : view.state.roles[input.via.slice("role:".length)];
    const to = role ? (role.holder ?? input.via!) : input.to;
    if (hop === this.settings.maxHops && anticipation !== "fyi")
      throw new PeerpostError("hop_limit", `Hop ${hop} is the last of this conversation's ${this.settings.maxHops}: no answer to it could be sent, so it cannot ask for one.`, {
        details: { conversationId, hop, maxHops: this.settings.maxHops, anticipation, ...(input.replyToMessageId === undefined && parent ? { continues: parent.id } : {}) },
        hint: input.replyToMessageId === undefined && parent ? HINTS.lastHopContinued : HINTS.lastHop,
      });
    if (hop > this.settings.maxHops)
      throw new PeerpostError("hop_limit", `This conversation has used its ${this.settings.maxHops} hops; refusing to send hop ${hop}.`, {
        details: { conversationId, hop, maxHops: this.settings.maxHops, ...(input.replyToMessageId === undefined && parent ? { continues: parent.id } : {}) },
        hint: input.replyToMessageId === undefined ? HINTS.hopsUsedContinued : HINTS.hopsUsed,
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

  /** Messages addressed to `address`, oldest first, with bodies. */
  /**
   * `address`'s mail, oldest first: unread, the oldest `limit` (what waits longest is read first); or with
   * `unreadOnly: false` everything, the newest `limit` (read mail past the limit is history: status shows it).
   */
  inbox(address: string, options: { unreadOnly?: boolean; limit?: number } = {}): InboxEntry[] {
    const view = this.view(address);
    const unreadOnly = options.unreadOnly ?? true;
    const mail = Object.values(view.state.messages)
      .filter((message) => message.to === address && (!unreadOnly || !message.read))
      .sort(byId);
    const limit = options.limit ?? Infinity;
    const selected = mail.length <= limit ? mail : unreadOnly ? mail.slice(0, limit) : mail.slice(mail.length - limit);
    return selected.map((message) => ({ message, body: this.body(message), status: this.status(message) }));
  }

  /** Claims delivery of a message to its recipient: true for the one caller that recorded it. */
  async markDelivered(recipient: string, id: string, via: string): Promise<boolean> {
    let claimed = false;
    // A role event for the message's role written between this decision and its claim (a lock taken over
    // mid-way): the records are checked in log order up to the first conflicting claim, so it is seen if it came before.
    let moved = false;
    const { view, conflict } = await this.appendDeciding(recipient, (view) => {
      const message = view.state.messages[id];
      if (!message || message.to !== recipient || message.delivered) return { events: [] };
      claimed = true;
      const role = message.via;
      return {
        events: [{ v: 1, type: "delivered", id, via, at: this.nowIso() }],
        conflicts: (earlier) => {
          if (role !== undefined && earlier.type === "role" && `role:${earlier.role}` === role) moved = true;
          return earlier.type === "delivered" && earlier.id === id;
        },
      };
    });
    if (!claimed || conflict) return false;
    if (!moved) return true;
    const after = view.state.messages[id];
    if (after?.to === recipient) return true;
    // The role moved it to another holder first, and a handover clears its delivery: this claim, the first
    // after it, would stand for the new holder, whose push would then skip it. Given back.
    if (after?.delivered?.via === via && !after.read) await this.appendPlain(view, [{ v: 1, type: "undelivered", id, via, at: this.nowIso() }]);
    return false;
  }

  /** Gives back a delivery claim whose push failed, so a later push may deliver the message. */
  async releaseDelivery(recipient: string, id: string, via: string): Promise<boolean> {
    let released = false;
    await this.appendDeciding(recipient, (view) => {
      const message = view.state.messages[id];
      // Only the recipient's own claim: after a handover the claim (same transport name) may be the new holder's.
      if (!message || message.to !== recipient || message.delivered?.via !== via || message.read) return { events: [] };
      released = true;
      return { events: [{ v: 1, type: "undelivered", id, via, at: this.nowIso() }] };
    });
    return released;
  }

  /**
   * Claims telling `recipient` about these unread requests at a turn end: returns the ids this caller
   * recorded. A request read, resolved, or told about within the reminder interval is skipped (see
   * turnEndDue), so racing stop hooks tell it once per interval.
   */
  async markNoticed(recipient: string, ids: string[], via: string): Promise<string[]> {
    let marked: string[] = [];
    const { conflict } = await this.appendDeciding(recipient, (view) => {
      const now = this.settings.now();
      marked = ids.filter((id) => {
        const message = view.state.messages[id];
        return message !== undefined && message.to === recipient && turnEndDue(message, now, this.settings);
      });
      const at = this.nowIso();
      return { events: marked.map((id): MailboxEvent => ({ v: 1, type: "noticed", id, via, at })), conflicts: (earlier) => earlier.type === "noticed" && marked.includes(earlier.id) };
    });
    // Another hook's claim came first in log order (a lock taken over mid-way): that one tells it.
    return conflict ? marked.filter((id) => id !== conflict.id) : marked;
  }

  /** Records that `by` read these messages; ids already read are skipped. No lock: a second read mark changes nothing. */
  async markRead(by: string, ids: string[]): Promise<string[]> {
    const view = this.view(by);
    const marked = ids.filter((id) => {
      const message = view.state.messages[id];
      return message !== undefined && message.to === by && !message.read;
    });
    const at = this.nowIso();
    await this.appendPlain(view, marked.map((id): MailboxEvent => ({ v: 1, type: "read", id, by, at })));
    return marked;
  }

  async resolve(input: ResolveInput): Promise<ResolveResult> {
    if (input.text !== undefined) checkBody(input.text, input.resolution === "reply" ? "message" : "reason");
    if (input.resolution === "reply" && (input.text === undefined || input.text.length === 0))
      throw new PeerpostError("invalid_arguments", "A reply needs a message.", { details: { field: "message" }, hint: HINTS.replyNeedsText });
    // A message outside the caller's view is someone else's (or nobody's): say which, before taking the lock.
    const inView = this.view(input.by).state.messages[input.id];
    const known = inView ?? this.find(input.id);
    if (!known) throw notFound(input.id);
    const newId = await idFactory();
    let replyId: string | undefined;
    const { view, conflict } = await this.appendDeciding(input.by, (view) => {
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
      if (message.resolved) throw alreadyResolved(input.id, message.resolved);
      const at = this.nowIso();
      const events: MailboxEvent[] = [];
      if (input.resolution === "reply") {
        const reply = this.newMessage(view, { from: input.by, fromVerified: input.byVerified ?? false, to: message.from, body: input.text!, anticipation: "fyi", replyToMessageId: message.id }, newId, message);
        replyId = reply.id;
        events.push(reply);
      }
      const resolved: MailboxEvent = { v: 1, type: "resolved", id: message.id, resolution: input.resolution, by: input.by, at };
      if (replyId !== undefined) resolved.replyId = replyId;
      if (input.resolution !== "reply" && input.text !== undefined) resolved.reason = input.text;
      events.push(resolved);
      const via = message.via;
      // A role event for the message's role may have moved it away before this was written (a lock taken over mid-way).
      return { events, conflicts: (earlier) => (earlier.type === "resolved" && earlier.id === input.id) || (via !== undefined && earlier.type === "role" && `role:${earlier.role}` === via) };
    });
    // Another resolution came first in log order (a lock taken over mid-way): it is the one that counts.
    if (conflict?.type === "resolved") throw alreadyResolved(input.id, conflict);
    if (conflict?.type === "role") {
      // The role changed before this resolution in log order: the fold says whether it still counts.
      const after = view.state.messages[input.id];
      const counted = after?.resolved !== undefined && after.resolved.by === input.by && after.resolved.resolution === input.resolution && after.resolved.replyId === replyId;
      if (!counted) {
        if (after?.resolved) throw alreadyResolved(input.id, after.resolved);
        throw new PeerpostError("wrong_recipient", `Message ${input.id} followed ${after?.via ?? "its role"} to ${after?.to ?? "another holder"} before this answer was written; it is no longer yours to resolve, and nothing you wrote counts.`, {
          details: { messageId: input.id, recipient: after?.to ?? null, caller: input.by, role: after?.via ?? null },
          hint: HINTS.roleMoved,
        });
      }
    }
    // A message resolved from the archive (an expired request moved there) is in no live view: looked up again.
    const result: ResolveResult = { message: inView ? this.readBack(view, input.id) : (this.find(input.id) ?? this.readBack(view, input.id)) };
    if (replyId !== undefined) result.reply = this.readBack(view, replyId);
    return result;
  }

  /** Message `id` found past `address`'s view (compaction moved it to the archive), when it is `address`'s mail. */
  foundFor(address: string, id: string): MessageState | undefined {
    const found = this.find(id);
    return found && keptBy(address, found) ? found : undefined;
  }

  /** A message by id, whoever's it is: see lookup.ts. */
  find(id: string): MessageState | undefined {
    this.broughtOver();
    return findMessage(this.lookups, (held) => this.heldMessage(held), id);
  }

  /** Every message of a conversation, oldest first. */
  thread(conversationId: string): MessageState[] {
    this.broughtOver();
    return conversationOf(this.lookups, (id) => this.find(id), conversationId);
  }

  /** Records the next reminder for a message if one is due; returns its number, or undefined. */
  async remind(recipient: string, id: string, via: string): Promise<number | undefined> {
    let n: number | undefined;
    const { conflict } = await this.appendDeciding(recipient, (view) => {
      const message = view.state.messages[id];
      const due = message && message.to === recipient ? dueReminder(message, this.settings.now(), this.settings) : undefined;
      if (!due) return { events: [] };
      n = due.n;
      return { events: [{ v: 1, type: "reminder", id, n: due.n, via, at: this.nowIso() }], conflicts: (earlier) => earlier.type === "reminder" && earlier.id === id && earlier.n >= due.n };
    });
    return conflict ? undefined : n;
  }
}
