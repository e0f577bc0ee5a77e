// Receipts: one record per side-effecting action (send, reply, push attempt, wake, launch), with the
// origin of the sender's identity. Queried newest first, with filters and cursor paging (the cursor is the
// log offset the next page reads back from). The log only grows, so a page reads only until it is full: a
// page without filters reads the last lines back, and one filtered by address or kind reads that scope's
// lines through a per-scope index of the log (index/receipts/), extended by the readers as the mailbox's
// is. `since` alone does not bound the read: a log is not in date order (`peerpost migrate` appends a
// machine's history after newer records, clocks differ between machines), so a `since` page that is not
// full has read back to the start of the log or of its scope.
import { idFactory } from "../common/ids.js";
import { JsonlLog } from "../log/log.js";
import type { CorruptReport, LogEntry, LogOptions } from "../log/types.js";
import type { LocalStore, StoreFactory } from "../store/local.js";
import { ScopeIndex } from "../store/file/scope-index.js";
import { committedArchiveBytes } from "../store/file/compaction-swap.js";
import { SwapFollower } from "../store/file/log-compaction.js";
import { readStateFile, writeStateFile } from "../security/trust.js";
import { FAR_BEHIND_BYTES } from "./view.js";
import { receiptSchema, type ReceiptKind, type ReceiptRecord } from "../records/schemas.js";
import { PeerpostError } from "../common/errors.js";

export type ReceiptInput = Omit<ReceiptRecord, "v" | "type" | "id" | "at">;

export interface ReceiptQuery {
  kind?: ReceiptKind | undefined;
  /** Receipts where this address is the sender or the recipient. */
  address?: string | undefined;
  /** ISO time: only receipts at or after it. */
  since?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface ReceiptPage {
  /** Newest first. */
  receipts: ReceiptRecord[];
  /** Pass back as `cursor` for the next (older) page; absent at the end. */
  nextCursor?: string;
}

/** Lines read per batch of a scope's offsets, newest first (a page stops early). */
const OFFSETS_PER_BATCH = 64;

function invalidCursor(cursor: string): PeerpostError {
  return new PeerpostError("invalid_arguments", `cursor ${JSON.stringify(cursor.slice(0, 100))} is not a cursor from a receipts result.`, {
    details: { field: "cursor", value: cursor.slice(0, 100) },
    hint: "Pass nextCursor from the previous page unchanged, or leave cursor out for the first page.",
  });
}

/** Which file a receipt was read from: the live log, or the archive its compaction moved it to. */
type Part = "live" | "archive";

interface PageEntry {
  part: Part;
  offset: number;
  record: ReceiptRecord;
}

interface Cursor {
  part: Part;
  offset: number;
  /** The receipt there: a compaction since may have moved it (then it is found by id). */
  id?: string;
}

/** A cursor: the offset of the page's last receipt, prefixed with `a` in the archive, and that receipt's id. */
function parseCursor(cursor: string | undefined): Cursor | undefined {
  if (cursor === undefined) return undefined;
  const match = /^(a?)(\d{1,15})(?:-([0-9A-HJKMNP-TV-Z]{26}))?$/.exec(cursor);
  if (!match) throw invalidCursor(cursor);
  const parsed: Cursor = { part: match[1] ? "archive" : "live", offset: Number(match[2]) };
  if (match[3] !== undefined) parsed.id = match[3];
  return parsed;
}

function formatCursor(entry: PageEntry): string {
  return `${entry.part === "archive" ? "a" : ""}${entry.offset}-${entry.record.id}`;
}

/** The index scope of a kind's receipts (no colon: never an address). */
function kindScope(kind: ReceiptKind): string {
  return `kind=${kind}`;
}

function receiptScopes(receipt: ReceiptRecord): string[] {
  return [receipt.from, receipt.to].filter((address): address is string => typeof address === "string");
}

/** The index scopes of a receipt: its addresses and its kind. */
function indexScopes(receipt: ReceiptRecord): string[] {
  return [...receiptScopes(receipt), kindScope(receipt.kind)];
}

export class Receipts {
  readonly store: LocalStore<ReceiptRecord>;
  readonly index: ScopeIndex<ReceiptRecord>;
  /** Receipts older than the retention (receipt-retention.ts), read after the live file's. */
  readonly archive: JsonlLog<ReceiptRecord>;
  readonly archiveIndex: ScopeIndex<ReceiptRecord>;
  readonly swaps: SwapFollower;
  /** Where `noteArchivedBefore` keeps how old every archived receipt is. */
  private readonly archivedBeforePath: string;

  constructor(open: StoreFactory, private readonly now: () => number, indexDir: string, logOptions: LogOptions) {
    this.store = open("receipts", receiptSchema, (scope) => (receipt) => receiptScopes(receipt).includes(scope));
    const scopesOf = (receipt: ReceiptRecord) => ({ scopes: indexScopes(receipt) });
    this.index = new ScopeIndex(this.store.log, indexDir, scopesOf);
    this.swaps = new SwapFollower(this.store.log.path);
    // Read as the live file is: a mirror's lines, archived by its compaction, still carry their seq.
    this.archive = new JsonlLog(this.swaps.paths.archive, this.store.log.schema, logOptions);
    this.archiveIndex = new ScopeIndex(this.archive, `${indexDir}-archive`, scopesOf, { segments: true });
    this.archivedBeforePath = `${this.swaps.paths.archive}.before.json`;
  }

  get log(): JsonlLog<ReceiptRecord> {
    return this.store.log;
  }

  async record(input: ReceiptInput): Promise<ReceiptRecord> {
    const at = this.now();
    const newId = await idFactory();
    const record: ReceiptRecord = { v: 1, type: "receipt", id: newId(at), at: new Date(at).toISOString(), ...input };
    // Written, not fsynced: the action it records is already durable, and a receipt is not worth a second
    // flush per send. Other processes read it at once; only a crash of the machine before the kernel's own
    // write-back (seconds) can lose it, and never the message it is about.
    await this.store.append([{ record, scopes: receiptScopes(record) }], { durability: "eventual" });
    return record;
  }

  /** A page of receipts, newest first: those before `cursor` that every filter given keeps; the live file's, then the archive's. */
  query(query: ReceiptQuery): ReceiptPage {
    const limit = query.limit ?? 50;
    const since = query.since === undefined ? undefined : Date.parse(query.since);
    this.followSwaps();
    const before = this.stillAt(parseCursor(query.cursor), query.cursor);
    const page: PageEntry[] = [];
    /** A receipt a compaction's swap left twice (copied over, and written again by its writer) is shown once. */
    const seen = new Set<string>();
    let more = false;
    /** Takes a receipt into the page; false once the page is full. */
    const take = (part: Part, { offset, record }: LogEntry<ReceiptRecord>): boolean => {
      if (query.kind !== undefined && record.kind !== query.kind) return true;
      if (query.address !== undefined && record.from !== query.address && record.to !== query.address) return true;
      if (since !== undefined && Date.parse(record.at) < since) return true;
      if (seen.has(record.id)) return true;
      if (page.length === limit) {
        more = true;
        return false;
      }
      seen.add(record.id);
      page.push({ part, offset, record });
      return true;
    };
    const scope = query.address ?? (query.kind === undefined ? undefined : kindScope(query.kind));
    // A page since a time every archived receipt is older than (the last hour's pushes) reads the live file only.
    const archived = since === undefined || since < this.archivedBefore() ? (["live", "archive"] as const) : (["live"] as const);
    for (const part of before?.part === "archive" ? (["archive"] as const) : archived) {
      const from = part === before?.part ? before.offset : undefined;
      if (!this.readBack(part, scope, from, query.cursor, (entry) => take(part, entry))) break;
    }
    const receipts = page.map((entry) => entry.record);
    const last = page[page.length - 1];
    return more && last ? { receipts, nextCursor: formatCursor(last) } : { receipts };
  }

  /**
   * Where the cursor's receipt is now. A compaction since moved it to the archive or to another offset of
   * the new live file: it is looked for by its id (read back once, only then), so the next page starts
   * right after it. Gone from both (a retention that dropped it), the cursor is refused.
   */
  private stillAt(cursor: Cursor | undefined, text: string | undefined): Cursor | undefined {
    if (cursor?.id === undefined || this.logOf(cursor.part).readAt(cursor.offset)?.id === cursor.id) return cursor;
    for (const part of ["live", "archive"] as const) {
      let found: number | undefined;
      this.logOf(part).scan(0, (entry) => void (entry.record.id === cursor.id && (found ??= entry.offset)));
      if (found !== undefined) return { part, offset: found, id: cursor.id };
    }
    throw invalidCursor(text!);
  }

  private logOf(part: Part): JsonlLog<ReceiptRecord> {
    return part === "live" ? this.log : this.archive;
  }

  /**
   * Visits one part's receipts before `before` (to its start), newest first, while `take` wants more: a
   * scope's through its index, else by reading the part back. Returns false once `take` wanted no more.
   */
  private readBack(part: Part, scope: string | undefined, before: number | undefined, cursor: string | undefined, take: (entry: LogEntry<ReceiptRecord>) => boolean): boolean {
    const log = this.logOf(part);
    const committed = part === "archive" ? committedArchiveBytes(this.swaps.paths) : undefined;
    if (committed === 0) return true;
    let wanted = true;
    const offsets = scope === undefined ? undefined : part === "live" ? this.scopeOffsets(scope) : this.archivedScopeOffsets(scope, committed!);
    if (!offsets) {
      log.scanBackward(before ?? committed, (entry) => (wanted &&= take(entry)));
      return wanted;
    }
    let last = offsets.length;
    if (before !== undefined) {
      // A cursor is the offset of a receipt the same query returned: one of these.
      last = offsets.indexOf(before);
      if (last < 0) throw invalidCursor(cursor!);
    }
    for (let batchEnd = last; wanted && batchEnd > 0; batchEnd -= OFFSETS_PER_BATCH) {
      const batch = offsets.slice(Math.max(0, batchEnd - OFFSETS_PER_BATCH), batchEnd).reverse();
      log.readLinesAt(batch, (entry) => void (wanted &&= take(entry)));
    }
    return wanted;
  }

  /**
   * Offsets of a scope's receipts, oldest first: the index's, then those in the lines past what it
   * covers. Undefined when the index cannot serve (missing, or far behind: a rebuild's job); then the
   * page reads the log back.
   */
  private scopeOffsets(scope: string): number[] | undefined {
    try {
      this.index.extendOnTheWay(FAR_BEHIND_BYTES);
      const indexed = this.index.lookup(scope);
      if (!indexed || this.index.lag() > FAR_BEHIND_BYTES) return undefined;
      const offsets = indexed.offsets;
      this.log.scan(indexed.covered, (entry) => void (indexScopes(entry.record).includes(scope) && offsets.push(entry.offset)));
      return offsets;
    } catch {
      // Derived data: the log answers instead.
      return undefined;
    }
  }

  /** Offsets of a scope's archived receipts, through the archive's index brought to its committed end; undefined when it cannot be. */
  private archivedScopeOffsets(scope: string, committed: number): number[] | undefined {
    try {
      const covered = this.archiveIndex.covered() ?? 0;
      if (covered !== committed && committed - covered <= FAR_BEHIND_BYTES) this.archiveIndex.extend(committed);
      const indexed = this.archiveIndex.lookup(scope);
      return indexed?.covered === committed ? indexed.offsets : undefined;
    } catch {
      return undefined;
    }
  }

  /** Every archived receipt is older than this (the latest cutoff a compaction moved receipts by); Infinity when unknown. */
  private archivedBefore(): number {
    try {
      const noted = (JSON.parse(readStateFile(this.archivedBeforePath)) as { before?: unknown }).before;
      return typeof noted === "number" ? noted : Infinity;
    } catch {
      return Infinity;
    }
  }

  /** Records, before a compaction moves receipts older than `cutoff`, that every archived receipt is older than the latest such cutoff. */
  noteArchivedBefore(cutoff: number): void {
    const before = this.archivedBefore();
    writeStateFile(this.archivedBeforePath, JSON.stringify({ before: before === Infinity ? cutoff : Math.max(before, cutoff) }));
  }

  /** Brings over what a compaction that died past its swap left in the old file, once the live file changed. */
  private followSwaps(): void {
    const identity = this.log.identity();
    this.swaps.check(identity && `${identity.dev}:${identity.ino}`);
  }

  /** Corrupt lines of the log and whether it ends torn, without reading what the index covers again. */
  corruptLines(): CorruptReport {
    this.index.extendOnTheWay(FAR_BEHIND_BYTES);
    return this.index.corruptLines();
  }

  /**
   * The newest `count` receipts (oldest first), where the lines read end, and the log's corrupt lines
   * before that end: what a view of the latest receipts starts from, without reading the log whole.
   */
  latest(count: number): { receipts: ReceiptRecord[]; end: number; corrupt: CorruptReport } {
    // Extended first, so that the index ends before the lines read (else its count could not be cut there).
    this.index.extendOnTheWay(FAR_BEHIND_BYTES);
    this.followSwaps();
    const newest: ReceiptRecord[] = [];
    const { end } = this.log.scanBackward(undefined, ({ record }) => newest.push(record) < count);
    // Fewer in the live file than asked for: the newest archived ones come before them, as before a compaction.
    const committed = committedArchiveBytes(this.swaps.paths);
    if (newest.length < count && committed > 0) this.archive.scanBackward(committed, ({ record }) => newest.push(record) < count);
    return { receipts: newest.reverse(), end, corrupt: this.index.corruptLines(end) };
  }

  /** Whether the index lags too far for readers to extend it on their way (then filtered pages read the log back). */
  indexFarBehind(): boolean {
    return this.index.lag() > FAR_BEHIND_BYTES;
  }

  /** Indexes all of the log and of the archive's committed end the indexes do not cover, however much (index-run, compaction). */
  indexAll(): number | undefined {
    const committed = committedArchiveBytes(this.swaps.paths);
    try {
      if (committed > 0 && this.archiveIndex.covered() !== committed) this.archiveIndex.extend(committed);
    } catch {
      // Derived data: pages read the archive back until the next run indexes it.
    }
    return this.index.extend();
  }
}
