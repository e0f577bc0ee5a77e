// Receipts: one record per side-effecting action (send, reply, push attempt, wake, launch), with the
// origin of the sender's identity. Queried newest first, with filters and cursor paging (the cursor is the
// log offset the next page reads back from). The log only grows, so a page reads only until it is full: a
// page without filters reads the last lines back, and one filtered by address or kind reads that scope's
// lines through a per-scope index of the log (index/receipts/), extended by the readers as the mailbox's
// is. `since` alone does not bound the read: a log is not in date order (`peerpost migrate` appends a
// machine's history after newer records, clocks differ between machines), so a `since` page that is not
// full has read back to the start of the log or of its scope.
import { idFactory } from "../common/ids.js";
import type { JsonlLog } from "../log/log.js";
import type { CorruptReport, LogEntry } from "../log/types.js";
import type { LocalStore, StoreFactory } from "../store/local.js";
import { ScopeIndex } from "../store/file/scope-index.js";
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

function parseCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  if (!/^\d{1,15}$/.test(cursor)) throw invalidCursor(cursor);
  return Number(cursor);
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

  constructor(open: StoreFactory, private readonly now: () => number, indexDir: string) {
    this.store = open("receipts", receiptSchema, (scope) => (receipt) => receiptScopes(receipt).includes(scope));
    this.index = new ScopeIndex(this.store.log, indexDir, (receipt) => ({ scopes: indexScopes(receipt) }));
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

  /** A page of receipts, newest first: those before `cursor` that every filter given keeps. */
  query(query: ReceiptQuery): ReceiptPage {
    const limit = query.limit ?? 50;
    const since = query.since === undefined ? undefined : Date.parse(query.since);
    const before = parseCursor(query.cursor);
    const page: Array<LogEntry<ReceiptRecord>> = [];
    let more = false;
    /** Takes a receipt into the page; false once the page is full. */
    const take = ({ offset, end, record }: LogEntry<ReceiptRecord>): boolean => {
      if (query.kind !== undefined && record.kind !== query.kind) return true;
      if (query.address !== undefined && record.from !== query.address && record.to !== query.address) return true;
      if (since !== undefined && Date.parse(record.at) < since) return true;
      if (page.length === limit) {
        more = true;
        return false;
      }
      page.push({ offset, end, record });
      return true;
    };
    const scope = query.address ?? (query.kind === undefined ? undefined : kindScope(query.kind));
    const offsets = scope === undefined ? undefined : this.scopeOffsets(scope);
    if (!offsets) this.log.scanBackward(before, take);
    else {
      let last = offsets.length;
      if (before !== undefined) {
        // A cursor is the offset of a receipt the same query returned: one of these.
        last = offsets.indexOf(before);
        if (last < 0) throw invalidCursor(query.cursor!);
      }
      let wanted = true;
      for (let batchEnd = last; wanted && batchEnd > 0; batchEnd -= OFFSETS_PER_BATCH) {
        const batch = offsets.slice(Math.max(0, batchEnd - OFFSETS_PER_BATCH), batchEnd).reverse();
        this.log.readLinesAt(batch, (entry) => void (wanted &&= take(entry)));
      }
    }
    const receipts = page.map((entry) => entry.record);
    return more ? { receipts, nextCursor: String(page[page.length - 1]!.offset) } : { receipts };
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
    const newest: ReceiptRecord[] = [];
    const { end } = this.log.scanBackward(undefined, ({ record }) => newest.push(record) < count);
    return { receipts: newest.reverse(), end, corrupt: this.index.corruptLines(end) };
  }

  /** Whether the index lags too far for readers to extend it on their way (then filtered pages read the log back). */
  indexFarBehind(): boolean {
    return this.index.lag() > FAR_BEHIND_BYTES;
  }

  /** Indexes all of the log the index does not cover, however much (index-run). */
  indexAll(): number | undefined {
    return this.index.extend();
  }
}
