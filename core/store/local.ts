// What the mailbox, receipts and sessions need from a store: the seam, plus a local JSONL file that the
// synchronous folds read (the log itself for the file store; a per-machine mirror for PostgreSQL).
import type { JsonlLog } from "../log/log.js";
import type { RecordSchema } from "../log/types.js";
import type { ScopeFilter } from "./file/file-store.js";
import type { Store } from "./types.js";

export interface LocalStore<T> extends Store<T> {
  readonly log: JsonlLog<T>;
}

export type StoreFactory = <T>(name: string, schema: RecordSchema<T>, scopeFilter: ScopeFilter<T>) => LocalStore<T>;
