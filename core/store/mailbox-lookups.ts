// Lookups of mail by id, sender or conversation that no view holds: through the per-address indexes of
// the archive (where compaction moved finished mail) and of the live log, reading only the lines they
// point at. Where the indexes cannot answer (an archive from before its index, a live log far ahead of
// its index) a one-off fold of everything answers instead, keeping only what matches.
import { JsonlLog } from "../log/log.js";
import type { LogOptions } from "../log/types.js";
import type { MailboxEvent, MsgEvent } from "../records/schemas.js";
import { applyEvent, byId, emptyState, idempotencySlot, type MailboxState, type MessageState } from "../mail/fold.js";
import { FAR_BEHIND_BYTES, keptBy } from "../mail/view.js";
import { indexScopes, slotKey } from "../mail/scopes.js";
import { ScopeIndex } from "./file/scope-index.js";
import { committedArchiveBytes, type CompactionPaths } from "./file/compaction-swap.js";
import { MessageLines } from "./message-lines.js";

/** Folds of single addresses kept for lookups that come back to them in the same turn (a message, then its thread). */
const RECENT_FOLDS = 4;
/** How many times a read that a swap cut across is made again (each swap is one compaction: two in a row are rare). */
const SWAP_RETRIES = 2;

interface KeptFold {
  store: string;
  messages: Record<string, MessageState>;
}

export class MailboxLookups {
  /** Where compaction moves finished messages; read for status, threads, bodies and `tail --from-start`. */
  readonly archive: JsonlLog<MailboxEvent>;
  /** The archive's own per-address index, up to its committed end: a lookup there reads one address's lines, not the archive. */
  readonly archiveIndex: ScopeIndex<MailboxEvent>;
  /**
   * The last folds of addresses `messagesOf` made, each with the store it read: a status folds the sender
   * for the message, then again for its thread. Dropped at the next turn of the event loop, so a
   * long-lived server does not hold a busy address's fold after the call that needed it.
   */
  private readonly recentFolds = new Map<string, KeptFold>();
  /** The last reader of single messages' lines (messageLines), with the store it reads; dropped at the next turn. */
  private recentLines: { store: string; lines: MessageLines } | undefined;

  constructor(
    private readonly log: JsonlLog<MailboxEvent>,
    private readonly index: ScopeIndex<MailboxEvent>,
    private readonly paths: CompactionPaths,
    archiveIndexDir: string,
    logOptions: LogOptions,
  ) {
    // Read as the live file is: a mirror's lines, archived by its compaction, still carry their seq.
    this.archive = new JsonlLog(paths.archive, log.schema, logOptions);
    this.archiveIndex = new ScopeIndex(this.archive, archiveIndexDir, indexScopes, { segments: true });
  }

  /** Visits the archive's committed records (a compaction under way has not committed its additions yet). */
  scanArchive(visit: (entry: { offset: number; record: MailboxEvent }) => void): void {
    const committed = committedArchiveBytes(this.paths);
    if (committed > 0) this.archive.scan(0, visit, { until: committed });
  }

  /** Visits the archive's committed records of an index scope: through the archive's index where it covers them, else by a scan passing over the lines `wanted` refuses. */
  archivedScope(scope: string, wanted: (line: Buffer) => boolean, visit: (entry: { offset: number; record: MailboxEvent }) => void): void {
    const committed = committedArchiveBytes(this.paths);
    if (committed === 0) return;
    const indexed = this.archiveIndex.lookup(scope);
    if (indexed?.covered === committed) this.archive.readLinesAt(indexed.offsets, visit);
    else this.archive.scan(0, visit, { until: committed, wanted });
  }

  /** Whether the archive holds committed lines its index does not cover (an archive from before it had one, a compaction just finished). */
  archiveIndexLags(): boolean {
    const committed = committedArchiveBytes(this.paths);
    return committed > 0 && this.archiveIndex.covered() !== committed;
  }

  /** Indexes all the log and the archive the indexes do not cover, however much: the one step that may read all of them. */
  indexAll(): number | undefined {
    try {
      // Only up to the committed end: a compaction under way may still cut the archive back to it.
      const committed = committedArchiveBytes(this.paths);
      if (committed > 0) this.archiveIndex.extend(committed);
    } catch {
      // Derived data: lookups in the archive scan it until the next run indexes it.
    }
    return this.index.extend();
  }

  /**
   * The message `from` sent with idempotency `key` that compaction moved to the archive, if any: the
   * sends the archive's index files under that key (a hash of it: a collision only adds lines the fold
   * passes over), else the sender's archived mail, or a scan where the index does not cover the archive.
   * Asked inside the log's lock, where no compaction moves lines meanwhile.
   */
  archivedSend(from: string, key: string): MessageState | undefined {
    const committed = committedArchiveBytes(this.paths);
    if (committed === 0) return undefined;
    const state = emptyState();
    const apply = (entry: { offset: number; record: MailboxEvent }) => applyEvent(state, entry.record, entry.offset, (message) => message.from === from && message.idempotencyKey === key);
    const sends = this.archiveIndex.linesAbout(slotKey(from, key));
    const archived = sends?.covered === committed ? sends : this.archiveIndex.lookup(from);
    if (archived?.covered === committed) this.archive.readLinesAt(archived.offsets, apply);
    else this.scanArchive(apply);
    const id = state.idempotency[idempotencySlot(from, key)];
    return id === undefined ? undefined : state.messages[id];
  }

  /** Changes whenever a compaction swaps the live log or commits to the archive. */
  storeGeneration(): string {
    return `${this.log.identity()?.ino}:${committedArchiveBytes(this.paths)}`;
  }

  /** Whether the indexes cover the archive and nearly all the live log: then a lookup reads only what they point at. */
  indexesAnswer(): boolean {
    return !this.archiveIndexLags() && this.index.lag() <= FAR_BEHIND_BYTES;
  }

  /**
   * The sender of message `id`, from the indexes and the live log's few unindexed lines; null when there
   * is no such message, undefined when an index cannot tell (a damaged bucket line may have been its).
   */
  senderOf(id: string): string | null | undefined {
    // An index whose log is gone or replaced answers nothing (its meta no longer matches).
    const live = this.index.message(id);
    const indexed = live || (committedArchiveBytes(this.paths) > 0 ? this.archiveIndex.message(id) : null);
    if (indexed) return indexed.s[1] ?? null;
    if (live === undefined || indexed === undefined) return undefined;
    let sender: string | null = null;
    this.log.scan(this.index.covered() ?? 0, (entry) => {
      if (entry.record.type === "msg" && entry.record.id === id) sender ??= entry.record.from;
    });
    return sender;
  }

  /**
   * Folds of single messages and conversations from the lines about them (message-lines.ts) over the store
   * as it is now; undefined when the indexes do not cover the archive and nearly all the live log.
   */
  messageLines(): MessageLines | undefined {
    const { committed, size, store } = this.extent();
    if (this.recentLines?.store === store) return this.recentLines.lines;
    if (committed > 0 && this.archiveIndex.covered() !== committed) return undefined;
    const covered = this.index.covered() ?? 0;
    if (size - covered > FAR_BEHIND_BYTES) return undefined;
    const lines = new MessageLines({ archive: this.archive, archiveIndex: this.archiveIndex, committed, log: this.log, index: this.index, covered, size });
    // Kept for the turn, as folds are: a status reads its message's lines once for the message and its thread.
    if (!this.recentLines) setImmediate(() => (this.recentLines = undefined)).unref();
    this.recentLines = { store, lines };
    return lines;
  }

  /**
   * The committed archive and the live file with its size: the archive only grows up to what a compaction
   * commits, and the live file only grows until one swaps it, so the same `store` reads the same lines.
   */
  private extent(): { committed: number; size: number; store: string } {
    const committed = committedArchiveBytes(this.paths);
    const identity = this.log.identity();
    const size = identity?.size ?? 0;
    return { committed, size, store: `${committed}:${identity?.dev}:${identity?.ino}:${size}` };
  }

  /**
   * The messages `address` sees, folded as its view folds but over its archived lines (through the
   * archive's index) and then its live ones (through the live index, and the few lines after it), in one
   * state: a live event about an archived message (a late resolution) counts, as in a fold of everything.
   * Undefined when the indexes do not cover the archive and nearly all the live log.
   */
  messagesOf(address: string): Record<string, MessageState> | undefined {
    return this.acrossSwaps(() => this.foldOf(address));
  }

  /**
   * Runs `read` again (up to SWAP_RETRIES times) when a compaction swapped the live file while it ran: its
   * archive part and its live part then came from either side of the swap, and a message it moved was in
   * neither.
   */
  private acrossSwaps<R>(read: () => R): R {
    for (let attempt = 0; ; attempt++) {
      const before = this.log.identity()?.ino;
      const result = read();
      if (attempt === SWAP_RETRIES || this.log.identity()?.ino === before) return result;
    }
  }

  private foldOf(address: string): Record<string, MessageState> | undefined {
    const { committed, size, store } = this.extent();
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
  private keepFold(address: string, fold: KeptFold): Record<string, MessageState> {
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
  scanFor(keep: (message: MsgEvent) => boolean): MessageState[] {
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
    return this.acrossSwaps(() => {
      const state = emptyState();
      this.scanArchive((entry) => applyEvent(state, entry.record, entry.offset, keep));
      this.log.scan(0, (entry) => applyEvent(state, entry.record, entry.offset, keep));
      return state;
    });
  }
}
