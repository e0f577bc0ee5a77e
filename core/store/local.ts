// What the mailbox, receipts and sessions need from a store: the seam, plus a local JSONL file that the
// synchronous folds read (the log itself for the file store; a per-machine mirror for PostgreSQL).
import type { JsonlLog } from "../log/log.js";
import type { RecordSchema } from "../log/types.js";
import type { ScopeFilter } from "./file/file-store.js";
import type { Store } from "./types.js";
import type { CompactionPlan } from "./file/log-compaction.js";

/** What a compaction did to a database's log (see core/store/postgres/retention.ts): rows of the snapshot it planned on. */
export interface SourceCompaction {
  rowsBefore: number;
  movedRows: number;
  droppedRows: number;
  rowsAfter: number;
  ms: number;
  /** Of which the database's log was locked (appends waited). */
  lockedMs: number;
}

export interface LocalStore<T> extends Store<T> {
  readonly log: JsonlLog<T>;
  /**
   * Whether the local file is this log itself (the file store), rather than a database's mirror: a mirror
   * may be compacted too, but it must keep its last line, where its sync resumes.
   */
  readonly rewritable: boolean;
  /**
   * Runs `work`, which rewrites the local file, under the log's exclusive lock. A mirror is brought to its
   * database's end first (no sync appends meanwhile), and `work` must keep its last line.
   */
  rewrite<R>(work: () => R | Promise<R>): Promise<R>;
  /**
   * Where the local file mirrors a database: compacts the database's log by `plan` (in one transaction
   * under the log's lock), then rewrites the mirror with `rewriteMirror` (see `rewrite`), which may compact
   * it by the same rules. Absent where the local file is the log itself.
   */
  compactSource?<R>(plan: CompactionPlan<T>, rewriteMirror: () => R): Promise<{ source: SourceCompaction; local: R }>;
}

export type StoreFactory = <T>(name: string, schema: RecordSchema<T>, scopeFilter: ScopeFilter<T>) => LocalStore<T>;
