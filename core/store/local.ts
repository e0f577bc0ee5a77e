// What the mailbox, receipts and sessions need from a store: the seam, plus a local JSONL file that the
// synchronous folds read (the log itself for the file store; a per-machine mirror for PostgreSQL).
import type { JsonlLog } from "../log/log.js";
import type { RecordSchema } from "../log/types.js";
import type { ScopeFilter } from "./file/file-store.js";
import type { Store } from "./types.js";

export interface LocalStore<T> extends Store<T> {
  readonly log: JsonlLog<T>;
  /**
   * Whether the local file is this log itself, which a compaction may rewrite (the file store), rather than
   * derived data that rewriting would only desynchronise from its source (a database's mirror).
   */
  readonly rewritable: boolean;
  /** Runs `work`, which rewrites the local file, under the log's exclusive lock; refused with `unsupported` where it is not rewritable. */
  rewrite<R>(work: () => R | Promise<R>): Promise<R>;
}

export type StoreFactory = <T>(name: string, schema: RecordSchema<T>, scopeFilter: ScopeFilter<T>) => LocalStore<T>;
