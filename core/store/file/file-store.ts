// The file store: the embedded default backend of the store seam, one JSONL file per log in the state
// dir. Positions are byte offsets written as decimal strings. Hot paths that must stay synchronous (a
// prompt hook folding a view) read through `log`, the same file, with numeric offsets.
import { watch as watchFs } from "node:fs";
import { basename, dirname, join } from "node:path";
import { JsonlLog } from "../../log/log.js";
import { type LogEntry, type LogOptions, type RecordSchema, type ScanResult } from "../../log/types.js";
import { PeerpostError } from "../../common/errors.js";
import type { AppendItem, AppendOptions, AppendOutcome, Decision, DecideContext, Position, ReadLimits, ReadResult, Store, StoreStats, StoredRecord, Visit } from "../types.js";

/** Which scopes a record belongs to, for stores that derive them on a scoped read (the file store). */
export type ScopeFilter<T> = (scope: string) => (record: T) => boolean;

export function toPosition(offset: number): Position {
  return String(offset);
}

export function fromPosition(position: Position): number {
  if (!/^\d{1,15}$/.test(position))
    throw new PeerpostError("invalid_arguments", `${JSON.stringify(position.slice(0, 40))} is not a position in this store.`, {
      details: { position: position.slice(0, 40) },
      hint: "Pass back a position or cursor exactly as a result returned it.",
    });
  return Number(position);
}

function stored<T>(entry: LogEntry<T>): StoredRecord<T> {
  return { position: toPosition(entry.offset), next: toPosition(entry.end), record: entry.record };
}

function readResult(result: ScanResult): ReadResult {
  return {
    next: toPosition(result.next),
    corrupt: result.corrupt.map((line) => ({ position: toPosition(line.offset), bytes: line.length, reason: line.reason })),
    tornTail: result.tornTail,
  };
}

export class FileStore<T> implements Store<T> {
  readonly origin: Position = "0";
  readonly log: JsonlLog<T>;

  constructor(
    stateDir: string,
    readonly name: string,
    schema: RecordSchema<T>,
    options: LogOptions,
    private readonly scopeFilter: ScopeFilter<T>,
  ) {
    this.log = new JsonlLog(join(stateDir, `${name}.jsonl`), schema, options);
  }

  async append(items: AppendItem<T>[], options: AppendOptions = {}): Promise<AppendOutcome<T>> {
    const entries = await this.log.append(items.map((item) => item.record), options.durability === "eventual" ? { syncLater: true } : {});
    return { entries: entries.map(stored) };
  }

  async appendDeciding(decide: (context: DecideContext<T>) => Decision<T> | Promise<Decision<T>>): Promise<AppendOutcome<T>> {
    const outcome = await this.log.transact(async (end) => {
      const decision = await decide({ end: toPosition(end), read: (from, visit, limits) => this.read(from, visit, limits) });
      return { records: decision.items.map((item) => item.record), conflicts: decision.conflicts };
    });
    const result: AppendOutcome<T> = { entries: outcome.entries.map(stored) };
    if (outcome.conflict) result.conflict = stored(outcome.conflict);
    return result;
  }

  async read(from: Position, visit: Visit<T>, limits: ReadLimits = {}): Promise<ReadResult> {
    return readResult(this.log.scan(fromPosition(from), (entry) => visit(stored(entry)), limits.maxRecords === undefined ? {} : { maxLines: limits.maxRecords }));
  }

  async readScope(scope: string, from: Position, visit: Visit<T>, limits: ReadLimits = {}): Promise<ReadResult> {
    const keep = this.scopeFilter(scope);
    return this.read(from, (entry) => keep(entry.record) && visit(entry), limits);
  }

  async readAt(position: Position): Promise<T | undefined> {
    return this.log.readAt(fromPosition(position));
  }

  async end(): Promise<Position> {
    return toPosition(this.log.identity()?.size ?? 0);
  }

  compare(a: Position, b: Position): number {
    return fromPosition(a) - fromPosition(b);
  }

  /** Watches the state dir (the file may not exist yet, and a compaction replaces it). */
  watch(onData: () => void): () => void {
    const file = basename(this.log.path);
    try {
      const watcher = watchFs(dirname(this.log.path), { persistent: false }, (_event, name) => {
        if (name === null || String(name).startsWith(file)) onData();
      });
      watcher.on("error", () => watcher.close());
      return () => watcher.close();
    } catch {
      // No watch support here: callers keep their poll.
      return () => undefined;
    }
  }

  async stats(): Promise<StoreStats> {
    const identity = this.log.identity();
    return { bytes: identity?.size ?? 0, exists: identity !== undefined };
  }

  async close(): Promise<void> {
    this.log.close();
  }

  readonly rewritable = true;

  rewrite<R>(work: () => R | Promise<R>): Promise<R> {
    return this.log.exclusive(work);
  }
}
