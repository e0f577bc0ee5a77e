// The mailbox: send, inbox, deliver, read, resolve, remind, status and thread, all as appended events.
// Every decision that depends on the log (idempotency, double resolution, delivery claims, reminder
// numbers) is a deciding append: made under the store's exclusion after folding the events so far, and
// confirmed by log order before it is acknowledged (the first conflicting record wins, as in the fold).
// Appends that decide nothing (a plain send, read marks) take no lock.
import { idFactory } from "../common/ids.js";
import { join } from "node:path";
import { existsSync } from "node:fs";
import { JsonlLog, type CorruptReport, type LogOptions } from "../log/log.js";
import { FileStore } from "../store/file/file-store.js";
import type { LocalStore, StoreFactory } from "../store/local.js";
import type { AppendItem } from "../store/types.js";
import { EVERY_SCOPE, ScopeIndex } from "../store/file/scope-index.js";
import { compactLog, compactionPaths, committedArchiveBytes, finishRenamedCompaction, readSwap, type CompactionFault, type CompactionPaths, type CompactionResult } from "../store/file/compaction.js";
import { FAR_BEHIND_BYTES, MailboxView, keptBy } from "./view.js";
import { snapshotFileName } from "./snapshots.js";
import type { ProcedureText } from "./envelope.js";
import { MAX_BODY_BYTES, mailboxEvent, type Anticipation, type MailboxEvent, type MsgEvent, type Resolution } from "../records/schemas.js";
import { applyEvent, byId, emptyState, idempotencySlot, messageStatus, type MailboxState, type MessageState, type MessageStatus, type ReminderSettings } from "./fold.js";
import { dueReminder, turnEndDue } from "./reminders.js";
import { PeerpostError, ioError } from "../common/errors.js";
import { HINTS } from "../common/hints.js";
import { parseAddress } from "../common/address.js";
import { ensurePrivateDir } from "../security/trust.js";
import { workScope } from "../records/work-scope.js";

export interface MailboxSettings extends ReminderSettings {
  maxHops: number;
  now: () => number;
  /** How long a finished message stays in the live log (default 30 days). */
  retentionMs?: number;
  /** Live log size past which a long-running process compacts it by itself (default 64 MiB). */
  compactAtBytes?: number;
}

const DAY_MS = 86_400_000;

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
  for (const message of view.openRequests())
    if (message.to === input.from && message.from === input.to && message.read && (!found || byId(found, message) < 0)) found = message;
  return found;
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

/** A message this process just appended, from its refreshed view. */
function readBackFrom(view: MailboxView, id: string): MessageState {
  const message = view.state.messages[id];
  if (!message)
    throw new PeerpostError("state_io_error", `Message ${id} was written but cannot be read back from the mailbox.`, {
      details: { messageId: id, offset: view.offset },
      hint: "Another process may have replaced or truncated mailbox.jsonl; `peerpost doctor` inspects it.",
    });
  return message;
}

function alreadyResolved(id: string, resolved: { resolution: Resolution; at: string }): PeerpostError {
  return new PeerpostError("already_resolved", `Message ${id} was already resolved (${resolved.resolution}) at ${resolved.at}.`, {
    details: { messageId: id, resolution: resolved.resolution, at: resolved.at },
    hint: HINTS.alreadyResolved,
  });
}

function notFound(id: string): PeerpostError {
  return new PeerpostError("not_found", `No message ${id} in the mailbox.`, {
    details: { messageId: id },
    hint: HINTS.unknownMessage,
  });
}

/** The addresses a scoped read must return a message's records for. */
function scopesOf(message: { to: string; from: string; via?: string | undefined }): string[] {
  return message.via === undefined ? [message.to, message.from] : [message.to, message.from, message.via];
}

/** A scoped read without an index: a message is in scope by its addresses, an event by its message. */
function mailboxScopeFilter(scope: string): (event: MailboxEvent) => boolean {
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
function indexScopes(event: MailboxEvent, scopesOfMessage: (id: string) => readonly string[] | undefined): { id?: string; scopes: readonly string[] } {
  if (event.type === "role") return { scopes: [EVERY_SCOPE] };
  const work = workScope(event);
  if (work !== undefined) return { scopes: [work] };
  if (event.type === "msg") return { id: event.id, scopes: event.via === undefined ? scopesOf(event) : [...scopesOf(event), EVERY_SCOPE] };
  return { scopes: scopesOfMessage(event.id) ?? [EVERY_SCOPE] };
}

/** How long a process that called for a compaction waits before calling again for the same file (unless it grew). */
const COMPACTION_RECALL_MS = 60 * 60_000;

/** Less than this is cheaper to fold than to index: small state dirs never get an index written. */
const INDEX_MIN_LAG_BYTES = 64 * 1024;
/** Folds of single addresses kept for lookups that come back to them in the same turn (a message, then its thread). */
const RECENT_FOLDS = 4;

interface MailboxDecision {
  events: MailboxEvent[];
  /** Matches an earlier record that, landing first in log order, voids this decision. */
  conflicts?: (earlier: MailboxEvent) => boolean;
}

export class Mailbox {
  readonly store: LocalStore<MailboxEvent>;
  readonly cacheDir: string;
  private readonly views = new Map<string, MailboxView>();
  /**
   * The last folds of addresses `messagesOf` made, each with the store it read: a status folds the sender
   * for the message, then again for its thread. Dropped at the next turn of the event loop, so a
   * long-lived server does not hold a busy address's fold after the call that needed it.
   */
  private readonly recentFolds = new Map<string, { store: string; messages: Record<string, MessageState> }>();
  readonly index: ScopeIndex<MailboxEvent>;
  /** Where compaction moves finished messages; read for status, threads, bodies and `tail --from-start`. */
  readonly archive: JsonlLog<MailboxEvent>;
  /** The archive's own per-address index, up to its committed end: a lookup there reads one address's lines, not the archive. */
  readonly archiveIndex: ScopeIndex<MailboxEvent>;
  readonly compaction: CompactionPaths;
  private compacting: Promise<CompactionResult> | undefined;
  /** The last compaction swap whose old file's tail this process brought over (each once). */
  private swapBroughtOver: string | undefined;
  /** The log's file (dev:ino) when this process last looked for a compaction's marker; null before the first look. */
  private swapCheckedFor: string | undefined | null = null;

  constructor(
    readonly stateDir: string,
    open: StoreFactory,
    logOptions: LogOptions,
    readonly settings: MailboxSettings,
  ) {
    this.store = open("mailbox", mailboxEvent, mailboxScopeFilter);
    this.cacheDir = join(stateDir, "cache");
    this.index = new ScopeIndex(this.store.log, join(stateDir, "index", "mailbox"), indexScopes);
    this.compaction = compactionPaths(this.store.log.path);
    this.archive = new JsonlLog(this.compaction.archive, mailboxEvent, logOptions);
    this.archiveIndex = new ScopeIndex(this.archive, join(stateDir, "index", "archive"), indexScopes);
    this.fault = logOptions.fault;
  }

  private readonly fault: LogOptions["fault"];

  /** Moves finished messages older than the retention to the archive, under the log's lock. */
  async compact(): Promise<CompactionResult> {
    // A shared store's mirror is derived data: rewriting it would only desynchronise it from the database.
    if (!(this.store instanceof FileStore))
      throw new PeerpostError("unsupported", "Compaction moves records of the file store; this mailbox is in a shared PostgreSQL store.", {
        hint: "Nothing to do on this machine: the mirror in the state dir is derived data. Prune the database's tables with its own tools if they grow too large.",
      });
    this.compacting ??= this.log
      .exclusive(() => {
        const fault = this.fault?.startsWith("compact-") ? (this.fault.slice("compact-".length) as CompactionFault) : undefined;
        return compactLog(this.log, { retentionMs: this.settings.retentionMs ?? 30 * DAY_MS, now: this.settings.now(), fault });
      })
      .then((result) => {
        // The index of a replaced log starts over: rebuilt now (the kept log is small), not left to the
        // hooks, which give up on a view they would have to read far for.
        try {
          this.indexAll();
        } catch {
          // Derived data: an index-run or the next reader builds it.
        }
        return result;
      })
      .finally(() => (this.compacting = undefined));
    return this.compacting;
  }

  /**
   * Where a compaction the size setting calls for runs: by default in this process, after the send (a CLI
   * exits first). A server hands it to a detached run instead, so its memory and its answers stay as they
   * were. Returns whether one was started (a run under way already may decide before this send).
   */
  private compactLarge: () => boolean = () => {
    setTimeout(() => void this.compact().catch(() => undefined), 0).unref();
    return true;
  };
  /** The log's file, its size and the time when this process last called for a compaction. */
  private lastCalledFor: { file: string; end: number; at: number } | undefined;

  compactElsewhere(start: () => boolean): void {
    this.compactLarge = start;
  }

  /**
   * Past the size setting, calls for a compaction: again only once the log grew by a quarter of the setting
   * (after a swap, from what the compaction left) or an hour went by (messages age past the retention), so
   * a log of mail too young to move is not read whole at every send, nor one that a compaction hardly shrank.
   */
  private compactWhenLarge(end: number): void {
    const atBytes = this.compactAtBytes();
    if (this.compacting || atBytes === undefined || end < atBytes) return;
    const identity = this.log.identity();
    if (!identity) return;
    const file = `${identity.dev}:${identity.ino}`;
    const now = this.settings.now();
    let last = this.lastCalledFor;
    if (last && last.file !== file) {
      const swap = readSwap(this.compaction);
      const left = swap?.toIno === identity.ino ? swap.keptBytes + (swap.copiedUpTo - swap.end) : 0;
      last = this.lastCalledFor = { file, end: left, at: last.at };
    }
    if (last && end < last.end + atBytes / 4 && Math.abs(now - last.at) < COMPACTION_RECALL_MS) return;
    if (this.compactLarge()) this.lastCalledFor = { file, end, at: now };
  }

  /** The live log size past which peerpost compacts by itself; none for a shared store (its mirror is derived data). */
  private compactAtBytes(): number | undefined {
    return this.store instanceof FileStore ? (this.settings.compactAtBytes ?? 64 * 1024 * 1024) : undefined;
  }

  /** Whether the live log is past the size at which peerpost compacts it by itself. */
  pastCompactionSize(): boolean {
    const atBytes = this.compactAtBytes();
    return atBytes !== undefined && (this.log.identity()?.size ?? 0) >= atBytes;
  }

  /** Visits the archive's committed records (a compaction under way has not committed its additions yet). */
  scanArchive(visit: (entry: { offset: number; record: MailboxEvent }) => void): void {
    const committed = committedArchiveBytes(this.compaction);
    if (committed > 0) this.archive.scan(0, visit, { until: committed });
  }

  /**
   * Extends the per-address index when it lags by `minBytes` or more, but not past a reader's budget
   * (FAR_BEHIND_BYTES). A log that far ahead of its index (an old log, never indexed) is indexed by a
   * rebuild: a server or a hook that meets such a log starts one (`index-run`), and a compaction runs one.
   */
  extendIndex(minBytes = 0): void {
    this.index.extendOnTheWay(FAR_BEHIND_BYTES, minBytes);
  }

  /** Bytes of the log the index does not cover, and whether that is further than readers extend it on their way (an old log, never indexed). */
  indexLag(): { lagBytes: number; farBehind: boolean } {
    const lagBytes = this.index.lag();
    return { lagBytes, farBehind: lagBytes > FAR_BEHIND_BYTES };
  }

  /**
   * The live log's corrupt lines and whether it ends in a torn line. Scoped views pass over others' lines
   * unparsed, so this asks the index (which parses every line it covers) and reads only the rest.
   */
  corruptLines(): CorruptReport {
    this.extendIndex(0);
    return this.index.corruptLines();
  }

  /** Indexes all the log and the archive the indexes do not cover, however much: the one step that may read all of them. */
  indexAll(): number | undefined {
    try {
      // Only up to the committed end: a compaction under way may still cut the archive back to it.
      const committed = committedArchiveBytes(this.compaction);
      if (committed > 0) this.archiveIndex.extend(committed);
    } catch {
      // Derived data: lookups in the archive scan it until the next run indexes it.
    }
    return this.index.extend();
  }

  /** The mailbox file, for synchronous folds and inspection. */
  get log(): JsonlLog<MailboxEvent> {
    return this.store.log;
  }

  /** Store items for events, each scoped like the message it is, or is about. */
  private items(view: MailboxView, events: MailboxEvent[]): AppendItem<MailboxEvent>[] {
    return events.map((record) => {
      const message = record.type === "msg" ? record : view.state.messages[record.id];
      return message ? { record, scopes: scopesOf(message) } : { record };
    });
  }

  private nowIso(): string {
    return new Date(this.settings.now()).toISOString();
  }

  /**
   * Whether bringing the view of `scope` up to date would read more of the log than a reader reads on its
   * way (FAR_BEHIND_BYTES): neither its snapshot nor the index starts it near the end (an old log never
   * indexed). The view is kept, unread, for the next `view` call.
   */
  viewWouldReadFar(scope: string): boolean {
    if (!this.readsFar(this.viewOf(scope))) return false;
    if (this.indexLag().farBehind) return true;
    // An index within a reader's reach: brought to the end, it starts the view near the end (or leaves a
    // snapshot that far behind for it). Otherwise a hook would give up on this view at every prompt.
    this.extendIndex(0);
    this.views.delete(scope);
    return this.readsFar(this.viewOf(scope));
  }

  private readsFar(view: MailboxView): boolean {
    return (this.log.identity()?.size ?? 0) - view.offset > FAR_BEHIND_BYTES;
  }

  /** The view of an address's inbox and outbox, refreshed to the end of the log. */
  view(scope: string): MailboxView {
    const view = this.viewOf(scope);
    view.refresh();
    if (this.swapLeftLines(view.file())) view.refresh();
    return view;
  }

  /**
   * Whether a compaction that swapped a new file in left lines of the old one to bring over (it died, or
   * is finishing), now brought over. Its marker is looked for only when the log's file changed since the
   * last look (and on the first): a swap always changes it, and a look on every call costs each send.
   */
  private swapLeftLines(file: string | undefined): boolean {
    if (file === this.swapCheckedFor) return false;
    const marked = existsSync(this.compaction.marker);
    // Recorded only once done: a bring-over that failed (a busy process out of descriptors) is tried again.
    if (marked) this.bringOverSwap();
    this.swapCheckedFor = file;
    return marked;
  }

  /** This process's view of `scope`, started from its snapshot or the index, not yet refreshed. */
  private viewOf(scope: string): MailboxView {
    let view = this.views.get(scope);
    if (!view) {
      const snapshotPath = join(this.cacheDir, snapshotFileName(scope));
      // A scope never folded before (a new session) starts from the index instead of the whole log.
      if (!existsSync(snapshotPath)) this.extendIndex(INDEX_MIN_LAG_BYTES);
      view = new MailboxView(this.log, scope, snapshotPath, this.index);
      this.views.set(scope, view);
    }
    return view;
  }

  /** Persists a view's snapshot when it moved on by at least `minBytes` since the last one. */
  async persist(view: MailboxView, minBytes = 0): Promise<boolean> {
    this.extendIndex(Math.max(minBytes, INDEX_MIN_LAG_BYTES));
    if (view.unsavedBytes() < minBytes || view.unsavedBytes() === 0) return false;
    try {
      ensurePrivateDir(this.cacheDir);
    } catch (error) {
      if (error instanceof PeerpostError) throw error;
      throw ioError("create", this.cacheDir, error);
    }
    return await view.save();
  }

  /**
   * Appends what `decide` returns, deciding under the store's exclusion on `scope`'s view folded to the
   * end of the log. Returns that view refreshed past the append, and the earlier record that won over
   * this decision in log order, if one did (its events are then in the log, and lose in every fold).
   */
  private async appendDeciding(scope: string, decide: (view: MailboxView) => MailboxDecision): Promise<{ view: MailboxView; conflict?: MailboxEvent }> {
    const view = this.view(scope);
    const outcome = await this.store.appendDeciding(() => {
      view.refresh();
      const decision = decide(view);
      return decision.conflicts ? { items: this.items(view, decision.events), conflicts: decision.conflicts } : { items: this.items(view, decision.events) };
    });
    view.refresh();
    return outcome.conflict ? { view, conflict: outcome.conflict.record } : { view };
  }

  /** A deciding append whose events nothing earlier can void (role changes: the latest one wins). */
  async appendFor(scope: string, decide: (view: MailboxView) => MailboxEvent[]): Promise<MailboxView> {
    return (await this.appendDeciding(scope, (view) => ({ events: decide(view) }))).view;
  }

  /** Appends events that decide nothing (no lock); returns the view refreshed past them. */
  private async appendPlain(view: MailboxView, events: MailboxEvent[]): Promise<MailboxView> {
    if (events.length > 0) await this.store.append(this.items(view, events));
    view.refresh();
    return view;
  }

  /** A compaction swapped files in and may have left lines in the old file (it died, or is finishing): bring them over. */
  private bringOverSwap(): void {
    this.swapBroughtOver = finishRenamedCompaction(this.compaction, this.swapBroughtOver);
  }

  /**
   * A message this process just appended. Missing only while a compaction swaps files (its line was
   * copied into the old file's tail, not yet brought over): finish that step, catch up, look again.
   */
  private readBack(view: MailboxView, id: string): MessageState {
    if (view.state.messages[id]) return view.state.messages[id];
    this.bringOverSwap();
    view.refresh();
    return readBackFrom(view, id);
  }

  status(message: MessageState): MessageStatus {
    return messageStatus(message, this.settings.now(), this.settings);
  }

  body(message: MessageState): string {
    let record = this.log.readAt(message.offset);
    // A message found in the archive has its offset there.
    if (record?.type !== "msg" || record.id !== message.id) record = this.archive.readAt(message.offset);
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
    const key = input.idempotencyKey;
    if (key === undefined) {
      const view = this.view(input.from);
      const event = this.newMessage(view, input, newId);
      const outcome = await this.store.append(this.items(view, [event]));
      const entry = outcome.entries[0]!;
      this.compactWhenLarge(Number(entry.next));
      return { message: appendedMessage(event, Number(entry.position)), created: true };
    }
    let id: string | undefined;
    let created = false;
    const { view, conflict } = await this.appendDeciding(input.from, (view) => {
      id = view.state.idempotency[idempotencySlot(input.from, key)];
      if (id !== undefined) return { events: [] };
      const event = this.newMessage(view, input, newId);
      id = event.id;
      created = true;
      return { events: [event], conflicts: (earlier) => earlier.type === "msg" && earlier.from === input.from && earlier.idempotencyKey === key };
    });
    // An earlier send with the same key came first in log order: it is the message, this one a duplicate the fold drops.
    if (conflict) return { message: this.readBack(view, conflict.id), created: false };
    return { message: this.readBack(view, id!), created };
  }

  /** `known`: the message replied to, when the caller holds it already (a resolution of an archived request, which no live view holds). */
  private newMessage(view: MailboxView, input: SendInput, newId: (seedTime?: number) => string, known?: MessageState): MsgEvent {
    const id = newId(this.settings.now());
    let conversationId = id;
    let hop = 1;
    const parent = input.replyToMessageId === undefined ? answeredRequest(view, input) : (view.state.messages[input.replyToMessageId] ?? known);
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
    const { conflict } = await this.appendDeciding(recipient, (view) => {
      const message = view.state.messages[id];
      if (!message || message.to !== recipient || message.delivered) return { events: [] };
      claimed = true;
      return { events: [{ v: 1, type: "delivered", id, via, at: this.nowIso() }], conflicts: (earlier) => earlier.type === "delivered" && earlier.id === id };
    });
    return claimed && !conflict;
  }

  /** Gives back a delivery claim whose push failed, so a later push may deliver the message. */
  async releaseDelivery(recipient: string, id: string, via: string): Promise<boolean> {
    let released = false;
    await this.appendDeciding(recipient, (view) => {
      const message = view.state.messages[id];
      if (!message || message.delivered?.via !== via || message.read) return { events: [] };
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
      return { events, conflicts: (earlier) => earlier.type === "resolved" && earlier.id === input.id };
    });
    // Another resolution came first in log order (a lock taken over mid-way): it is the one that counts.
    if (conflict?.type === "resolved") throw alreadyResolved(input.id, conflict);
    // A message resolved from the archive (an expired request moved there) is in no live view: looked up again.
    const result: ResolveResult = { message: inView ? this.readBack(view, input.id) : (this.find(input.id) ?? this.readBack(view, input.id)) };
    if (replyId !== undefined) result.reply = this.readBack(view, replyId);
    return result;
  }

  /** Message state by id from a view this process holds, brought up to date first (a long-lived process keeps views it looked up long ago). */
  private findElsewhere(id: string): MessageState | undefined {
    for (const [scope, held] of this.views) {
      if (!held.state.messages[id]) continue;
      return this.view(scope).state.messages[id];
    }
    return undefined;
  }

  /**
   * A message by id: from a view this process holds, else as its sender's fold sees it (the indexes find
   * the sender, and that fold drops what every view drops), else, when the indexes cannot tell, by
   * scanning the archive and the log.
   */
  find(id: string): MessageState | undefined {
    const found = this.findElsewhere(id);
    if (found) return found;
    const before = this.storeGeneration();
    const sender = this.indexesAnswer() ? this.senderOf(id) : undefined;
    // "No such message" holds only if no compaction moved lines between the indexes meanwhile.
    if (sender === null && this.storeGeneration() === before) return undefined;
    const messages = typeof sender === "string" ? this.messagesOf(sender) : undefined;
    return messages ? messages[id] : this.scanFor((message) => message.id === id)[0];
  }

  /** Changes whenever a compaction swaps the live log or commits to the archive. */
  private storeGeneration(): string {
    return `${this.log.identity()?.ino}:${committedArchiveBytes(this.compaction)}`;
  }

  /**
   * Every message of a conversation, oldest first. Each message's sender and recipient see it, and a
   * message answers one its sender saw (as sender, recipient, or a holder of the role it came through),
   * so the folds of the addresses reached from the first message hold the whole conversation; each
   * message is taken from its sender's fold. Without the indexes, a scan.
   */
  thread(conversationId: string): MessageState[] {
    const scan = () => this.scanFor((message) => message.conversationId === conversationId);
    if (!this.indexesAnswer()) return scan();
    const first = this.find(conversationId);
    if (!first) return scan();
    const folds = new Map<string, Record<string, MessageState>>();
    const members = new Map<string, string>();
    const pending = [first.from, first.to];
    for (let address = pending.pop(); address !== undefined; address = pending.pop()) {
      if (folds.has(address)) continue;
      const messages = this.messagesOf(address);
      if (!messages) return scan();
      folds.set(address, messages);
      for (const message of Object.values(messages)) {
        if (message.conversationId !== conversationId || members.has(message.id)) continue;
        members.set(message.id, message.from);
        // Role mail's former holders may have answered it before it moved on.
        pending.push(message.from, message.to, ...(message.handovers ?? []).map((step) => step.from));
      }
    }
    const thread: MessageState[] = [];
    for (const [id, sender] of members) {
      const message = folds.get(sender)?.[id];
      if (message) thread.push(message);
    }
    return thread.sort(byId);
  }

  /** Whether the indexes cover the archive and nearly all the live log: then a lookup reads only what they point at. */
  private indexesAnswer(): boolean {
    return !this.archiveIndexLags() && this.index.lag() <= FAR_BEHIND_BYTES;
  }

  /** Whether the archive holds committed lines its index does not cover (an archive from before it had one, a compaction just finished). */
  archiveIndexLags(): boolean {
    const committed = committedArchiveBytes(this.compaction);
    return committed > 0 && this.archiveIndex.covered() !== committed;
  }

  /** The sender of message `id`, from the indexes and the live log's few unindexed lines; null when there is no such message. */
  private senderOf(id: string): string | null {
    // An index whose log is gone or replaced answers nothing (its meta no longer matches).
    const indexed = this.index.message(id) ?? this.archiveIndex.message(id);
    if (indexed) return indexed.s[1] ?? null;
    let sender: string | null = null;
    this.log.scan(this.index.covered() ?? 0, (entry) => {
      if (entry.record.type === "msg" && entry.record.id === id) sender ??= entry.record.from;
    });
    return sender;
  }

  /**
   * The messages `address` sees, folded as its view folds but over its archived lines (through the
   * archive's index) and then its live ones (through the live index, and the few lines after it), in one
   * state: a live event about an archived message (a late resolution) counts, as in a fold of everything.
   * Undefined when the indexes do not cover the archive and nearly all the live log.
   */
  private messagesOf(address: string): Record<string, MessageState> | undefined {
    const committed = committedArchiveBytes(this.compaction);
    const identity = this.log.identity();
    const size = identity?.size ?? 0;
    // The archive only grows up to what a compaction commits, and the live file only grows until one
    // swaps it: with the same committed archive and the same live file and size, the fold is the same.
    const store = `${committed}:${identity?.dev}:${identity?.ino}:${size}`;
    const recent = this.recentFolds.get(address);
    if (recent?.store === store) return this.keepFold(address, recent);
    const state = emptyState();
    const apply = (entry: { offset: number; record: MailboxEvent }) => applyEvent(state, entry.record, entry.offset, (message) => keptBy(address, message));
    if (committed > 0) {
      const archived = this.archiveIndex.lookup(address);
      if (archived?.covered !== committed) return undefined;
      this.archive.readLinesAt(archived.offsets, apply);
    }
    const live = this.index.lookup(address);
    if (live) this.log.readLinesAt(live.offsets, apply);
    const from = live?.covered ?? 0;
    if (size - from > FAR_BEHIND_BYTES) return undefined;
    // Up to the size the key names: lines appended meanwhile belong to the next fold.
    this.log.scan(from, apply, { until: size });
    return this.keepFold(address, { store, messages: state.messages });
  }

  /**
   * Keeps an address's fold as the most recently used (a thread of many addresses keeps the ones it comes
   * back to), the oldest dropped past RECENT_FOLDS, and all of them at the next turn of the event loop.
   */
  private keepFold(address: string, fold: { store: string; messages: Record<string, MessageState> }): Record<string, MessageState> {
    // Only that turn's clearing ever empties the map: empty, no clearing is due yet.
    if (this.recentFolds.size === 0) setImmediate(() => this.recentFolds.clear()).unref();
    this.recentFolds.delete(address);
    this.recentFolds.set(address, fold);
    if (this.recentFolds.size > RECENT_FOLDS) this.recentFolds.delete(this.recentFolds.keys().next().value!);
    return fold.messages;
  }

  /**
   * A one-off fold of the archive and the live log, keeping only matching messages (memory stays bounded
   * by the matches). Whether the fold drops a match can hang on a message the filter skips: the request
   * whose losing resolution carried it as a reply, or an earlier send with the same idempotency key. When
   * a match could be one of those, the fold runs again tracking them too, and drops what every view drops.
   */
  private scanFor(keep: (message: MsgEvent) => boolean): MessageState[] {
    const matched = this.foldEverything(keep).messages;
    const requests = new Set<string>();
    const keys = new Set<string>();
    for (const message of Object.values(matched)) {
      if (message.inReplyTo !== undefined && !matched[message.inReplyTo]) requests.add(message.inReplyTo);
      if (message.idempotencyKey !== undefined) keys.add(idempotencySlot(message.from, message.idempotencyKey));
    }
    if (requests.size === 0 && keys.size === 0) return Object.values(matched).sort(byId);
    const settled = this.foldEverything((message) => keep(message) || requests.has(message.id) || (message.idempotencyKey !== undefined && keys.has(idempotencySlot(message.from, message.idempotencyKey))));
    return Object.values(settled.messages).filter((message) => matched[message.id] !== undefined).sort(byId);
  }

  private foldEverything(keep: (message: MsgEvent) => boolean): MailboxState {
    const state = emptyState();
    this.scanArchive((entry) => applyEvent(state, entry.record, entry.offset, keep));
    this.log.scan(0, (entry) => applyEvent(state, entry.record, entry.offset, keep));
    return state;
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
