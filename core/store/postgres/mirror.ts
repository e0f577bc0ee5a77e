// The PostgreSQL store as this machine's processes use it: every write goes to the database; every read
// comes from a local mirror of the log in the state dir (mirror-<log>.jsonl, derived data), which the
// synchronous folds, snapshots and fs.watch wake-ups work on unchanged. Each mirror line is a record
// plus its `_seq`; syncing appends, under the mirror's lock, the rows after the last mirrored seq, so a
// reader that was away (an outage, a stopped process) catches up from exactly where it was.
// Sequence order is commit order (see store.ts), so a mirror never skips a row.
import { closeSync, openSync, readSync } from "node:fs";
import type { LogOptions, RecordSchema } from "../../log.js";
import { FileStore, type ScopeFilter } from "../file.js";
import type { LocalStore } from "../local.js";
import type { AppendItem, AppendOutcome, Decision, DecideContext, Position, ReadLimits, ReadResult, StoreStats, StoredRecord, Visit } from "../types.js";
import type { PostgresDatabase, PostgresLog } from "./store.js";
import type { JsonlLog } from "../../log.js";

/** A mirror line: the record and the database seq it was read at. */
type Mirrored<T> = T & { _seq: string };

/** Parses a mirror line as its log's record: the `_seq` it carries is the mirror's, not the record's. */
function mirrorSchema<T>(schema: RecordSchema<T>): RecordSchema<T> {
  return {
    safeParse(input) {
      if (typeof input !== "object" || input === null || !("_seq" in input)) return schema.safeParse(input);
      const { _seq: _ignored, ...record } = input as Record<string, unknown>;
      return schema.safeParse(record);
    },
  };
}

/** Records one sync copies under the mirror's lock at a time. */
export const SYNC_BATCH = 2000;

/** What a sync did: the records it copied, and whether it reached the database's end (a budget can stop it first). */
export interface Synced {
  added: number;
  caughtUp: boolean;
}
const TAIL_PROBE = 64 * 1024;

/** The `_seq` of the last complete, valid line of a mirror file ("0" for none). */
function lastMirroredSeq(path: string, end: number): string {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return "0";
  }
  try {
    let probe = Math.min(TAIL_PROBE, end);
    for (;;) {
      const buffer = Buffer.alloc(probe);
      readSync(fd, buffer, 0, probe, end - probe);
      const lines = buffer.toString("utf8").split("\n");
      // The first piece may be cut mid-line unless the probe reached the file's start.
      const complete = probe === end ? lines : lines.slice(1);
      for (const line of complete.reverse()) {
        const seq = /"_seq":"(\d+)"}$/.exec(line)?.[1];
        if (seq !== undefined && line.startsWith("{") && line.endsWith("}")) return seq;
      }
      if (probe === end) return "0";
      probe = Math.min(end, probe * 4);
    }
  } finally {
    closeSync(fd);
  }
}

export class MirroredStore<T> implements LocalStore<T> {
  private readonly local: FileStore<T>;
  private readonly remote: PostgresLog<T>;

  constructor(
    database: PostgresDatabase,
    stateDir: string,
    readonly name: string,
    schema: RecordSchema<T>,
    logOptions: LogOptions,
    scopeFilter: ScopeFilter<T>,
  ) {
    this.local = new FileStore(stateDir, `mirror-${name}`, mirrorSchema(schema), logOptions, scopeFilter);
    this.remote = database.log(name, schema);
  }

  get origin(): Position {
    return this.local.origin;
  }

  /** The mirror file: what the synchronous folds read. */
  get log(): JsonlLog<T> {
    return this.local.log;
  }

  /**
   * Brings the mirror up to the database's end, copying at most `budget` records. Inside a transaction,
   * `read` is the transaction's own (a pool of one connection must not wait on itself).
   */
  async sync(read: DecideContext<T>["read"] = (from, visit, limits) => this.remote.read(from, visit, limits), budget = Infinity): Promise<Synced> {
    let added = 0;
    for (;;) {
      // A look without the lock first: most syncs find nothing new, and then never touch the lock.
      const seen = this.local.log.identity()?.size ?? 0;
      let news = false;
      await read(lastMirroredSeq(this.local.log.path, seen), () => void (news = true), { maxRecords: 1 });
      if (!news) return { added, caughtUp: true };
      if (added >= budget) return { added, caughtUp: false };
      const wanted = Math.min(SYNC_BATCH, budget - added);
      let batch = 0;
      await this.local.log.transact(async (end) => {
        const after = lastMirroredSeq(this.local.log.path, end);
        const rows: Mirrored<T>[] = [];
        await read(after, (entry) => void rows.push({ ...entry.record, _seq: entry.position }), { maxRecords: wanted });
        batch = rows.length;
        return rows;
      });
      added += batch;
      if (batch < wanted) return { added, caughtUp: true };
    }
  }

  append(items: AppendItem<T>[]): Promise<AppendOutcome<T>> {
    return this.appendDeciding(() => ({ items }));
  }

  /**
   * Decides inside the database's locked transaction, on the mirror synced to the database's end (so
   * the fold sees every committed record); after the commit, syncs again and finds its own records.
   */
  async appendDeciding(decide: (context: DecideContext<T>) => Decision<T> | Promise<Decision<T>>): Promise<AppendOutcome<T>> {
    let from = this.local.origin;
    const outcome = await this.remote.appendDeciding(async (remote) => {
      await this.sync(remote.read);
      from = await this.local.end();
      return decide({ end: from, read: (start, visit, limits) => this.local.read(start, visit, limits) });
    });
    if (outcome.entries.length === 0) return { entries: [] };
    await this.sync();
    return { entries: await this.locate(from, outcome.entries) };
  }

  /**
   * Where the committed records landed in the mirror: the first ones after `from`, since the lock was held
   * from the moment the mirror reached `from` (the database's end then) until they committed.
   */
  private async locate(from: Position, committed: StoredRecord<T>[]): Promise<StoredRecord<T>[]> {
    const found: StoredRecord<T>[] = [];
    await this.local.read(from, (entry) => void found.push(entry), { maxRecords: committed.length });
    return found;
  }

  read(from: Position, visit: Visit<T>, limits?: ReadLimits): Promise<ReadResult> {
    return this.local.read(from, visit, limits);
  }

  readScope(scope: string, from: Position, visit: Visit<T>, limits?: ReadLimits): Promise<ReadResult> {
    return this.local.readScope(scope, from, visit, limits);
  }

  readAt(position: Position): Promise<T | undefined> {
    return this.local.readAt(position);
  }

  end(): Promise<Position> {
    return this.local.end();
  }

  compare(a: Position, b: Position): number {
    return this.local.compare(a, b);
  }

  /** Wakes on the database's NOTIFY (after syncing the mirror) and on other local processes' syncs. */
  watch(onData: () => void): () => void {
    const unlisten = this.follow(onData);
    const unwatch = this.local.watch(onData);
    return () => {
      unlisten();
      unwatch();
    };
  }

  /** Keeps the mirror current: syncs on every NOTIFY and after every reconnection (failures wait for the next). */
  follow(onSynced: () => void = () => undefined): () => void {
    let running: Promise<void> = Promise.resolve();
    let again = false;
    let busy = false;
    const run = () => {
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      running = this.sync()
        .then((synced) => void (synced.added > 0 && onSynced()))
        .catch(() => undefined)
        .finally(() => {
          busy = false;
          if (again) {
            again = false;
            run();
          }
        });
    };
    const unlisten = this.remote.watch(run);
    return () => {
      unlisten();
      void running.catch(() => undefined);
    };
  }

  stats(): Promise<StoreStats> {
    return this.remote.stats();
  }

  /** The database is shared by this process's logs: the backend closes it (see core/store/open.ts). */
  async close(): Promise<void> {}
}
