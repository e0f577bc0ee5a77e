// The store seam: every log (mailbox, receipts, sessions) is kept by a backend behind this interface.
// The file store (JSONL in the state dir) is the embedded default; a database with a sequence for order,
// a transaction for the decide step and LISTEN/NOTIFY for watch implements the same contract.
//
// Contract, for every backend:
// - Order. Records of one log have one total order, the log order; reads visit them in it.
// - Durability. `append` and `appendDeciding` resolve only once the caller's records are durable.
// - Decisions by log order. A decide step runs under the backend's exclusion (a lock, a transaction) and
//   sees every record before `context.end`. If the exclusion ever failed (a lock taken over from a stopped
//   holder), records of other writers can land between `end` and the caller's own records; the backend
//   re-reads that span before resolving and reports the first record the decision's `conflicts` predicate
//   matches. Readers fold "the first conflicting record in log order wins", so a reported conflict means
//   the caller's records lost and must not be acknowledged as a success.

/**
 * An opaque place in one log. Only ever pass back what this store returned (or `origin`); never do
 * arithmetic on it or compare it across logs. It is a string so it can be saved in snapshots and cursors:
 * a byte offset for the file store, a sequence number for a database.
 */
export type Position = string;

export interface StoredRecord<T> {
  /** Where this record starts: `readAt(position)` returns it. */
  position: Position;
  /** Where a read that continues after this record starts. */
  next: Position;
  record: T;
}

/** A stored record that is not valid for its log: reported and skipped, never dropped from the store. */
export interface CorruptRecord {
  position: Position;
  /** Its size in bytes where the backend knows it. */
  bytes?: number;
  reason: string;
}

export interface ReadResult {
  /** Where the next read should start: just past the last complete record visited or skipped. */
  next: Position;
  corrupt: CorruptRecord[];
  /** True when an incomplete record follows `next` (a writer is writing, or died mid-write). */
  tornTail: boolean;
}

export interface ReadLimits {
  /** Stop after this many records (valid or corrupt). */
  maxRecords?: number;
}

export type Visit<T> = (entry: StoredRecord<T>) => void;

/** One record to append, with the scopes (addresses) a scoped read by them must return it for. */
export interface AppendItem<T> {
  record: T;
  scopes?: readonly string[];
}

export interface AppendOptions {
  /**
   * "acknowledged" (the default): resolve once the records are durable. "eventual": resolve once they are
   * written and readable by every reader, durable soon after; for records a power cut may lose at no cost
   * to anything acknowledged (a session registration that its server repeats at start). A backend may
   * always make them durable first.
   */
  durability?: "acknowledged" | "eventual";
}

export interface DecideContext<T> {
  /** The end of the log as the decision sees it: nothing before it can change while it decides. */
  end: Position;
  /** Reads inside the exclusion (a database reads inside its transaction). */
  read(from: Position, visit: Visit<T>, limits?: ReadLimits): Promise<ReadResult>;
}

export interface Decision<T> {
  /** What to append; empty appends nothing. */
  items: AppendItem<T>[];
  /**
   * Whether `earlier`, a record that reached the log after `context.end` but before these items, voids
   * this decision (for example a resolution of the same message). Omitted: nothing conflicts.
   */
  conflicts?: (earlier: T) => boolean;
}

export interface AppendOutcome<T> {
  /** The caller's own records, durable, in log order. */
  entries: StoredRecord<T>[];
  /** The earlier record that won over this decision: the entries are in the log but lost. */
  conflict?: StoredRecord<T>;
}

export interface StoreStats {
  /** Stored size in bytes (file size, or the backend's estimate). */
  bytes: number;
  /** True when the store exists (a file store's file was created). */
  exists: boolean;
}

export interface Store<T> {
  /** The log's name within its state: "mailbox", "receipts", "sessions". */
  readonly name: string;
  /** The position before the first record. */
  readonly origin: Position;

  /** Appends records that depend on nothing: no exclusion, one durable write shared with other writers. */
  append(items: AppendItem<T>[], options?: AppendOptions): Promise<AppendOutcome<T>>;
  /** Appends what `decide` returns, deciding under the backend's exclusion; see the contract above. */
  appendDeciding(decide: (context: DecideContext<T>) => Decision<T> | Promise<Decision<T>>): Promise<AppendOutcome<T>>;

  /** Visits every valid record from `from` to the current end, in log order. */
  read(from: Position, visit: Visit<T>, limits?: ReadLimits): Promise<ReadResult>;
  /** Like `read`, but visits only records appended with `scope` among their scopes. */
  readScope(scope: string, from: Position, visit: Visit<T>, limits?: ReadLimits): Promise<ReadResult>;
  /** The one record at `position`, or undefined when there is none. */
  readAt(position: Position): Promise<T | undefined>;
  /** The current end: a read from it visits only records appended later. */
  end(): Promise<Position>;
  /** Orders two positions of this log: negative when `a` comes first, 0 when equal. */
  compare(a: Position, b: Position): number;

  /** Calls `onData` (at least once, possibly more) after new records may be readable. Returns a stop function. */
  watch(onData: () => void): () => void;
  stats(): Promise<StoreStats>;
  /** Releases connections and watchers. */
  close(): Promise<void>;
}
