// The PostgreSQL store as this machine's processes use it: every write goes to the database; every read
// comes from a local mirror of the log in the state dir (mirror-<log>.jsonl, derived data), which the
// synchronous folds, snapshots and fs.watch wake-ups work on unchanged. Each mirror line is a record
// plus its `_seq`; syncing appends, under the mirror's lock, the rows after the last mirrored seq, so a
// reader that was away (an outage, a stopped process) catches up from exactly where it was.
// Sequence order is commit order (see store.ts), so a mirror never skips a row.
import { closeSync, constants, fstatSync, ftruncateSync, openSync, readSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PeerpostError } from "../../common/errors.js";
import { logError } from "../../common/error-log.js";
import { openStateFile, readStateFile, writeStateFile } from "../../security/trust.js";
import type { LogEntry, LogOptions, RecordSchema } from "../../log/types.js";
import { FileStore, toPosition, type ScopeFilter } from "../file/file-store.js";
import { lastLineEnd, startsLine } from "../../log/lines-backward.js";
import type { LocalStore } from "../local.js";
import type { AppendItem, AppendOutcome, CorruptRecord, Decision, DecideContext, Position, ReadLimits, ReadResult, StoreStats, StoredRecord, Visit } from "../types.js";
import type { PostgresDatabase, PostgresLog } from "./store.js";
import { JsonlLog } from "../../log/log.js";
import { forgetMirrorCurrent, markMirrorCurrent } from "./mirror-age.js";
import type { CompactionPlan } from "../file/log-compaction.js";
import type { SourceCompaction } from "../local.js";
import { compactRows } from "./retention.js";
import { compactionPaths, removeArchive } from "../file/compaction-swap.js";
import { STARTING_OVER, recordStore, recordedStore } from "./mirror-record.js";

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
/** Least time between two records of a mirror found current by one process. */
const MARK_EVERY_MS = 1000;

/** What `passOver` records beside a mirror. */
interface Passed {
  v: 1;
  /** The mirror's last seq when it was written: it extends that mirror only (one rebuilt from nothing reads the rows again). */
  after: string;
  through: string;
  count: number;
}

const SEQ = /^(0|[1-9]\d{0,18})$/;

function readPassed(path: string): Passed | undefined {
  try {
    const value = JSON.parse(readStateFile(path)) as Partial<Passed>;
    const valid = typeof value.after === "string" && SEQ.test(value.after) && typeof value.through === "string" && SEQ.test(value.through) && typeof value.count === "number";
    return valid ? (value as Passed) : undefined;
  } catch {
    // None yet (or unreadable: the rows are read, and passed over, again).
    return undefined;
  }
}

/** The later of two seqs (decimal strings without leading zeros). */
function laterSeq(a: string, b: string): string {
  if (a.length !== b.length) return a.length > b.length ? a : b;
  return a >= b ? a : b;
}

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

/** Whether a mirror file of `end` bytes ends mid-line (a sync that died while writing, a full disk). */
function endsTorn(path: string, end: number): boolean {
  if (end === 0) return false;
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return false;
  }
  try {
    return !startsLine(fd, end, end);
  } finally {
    closeSync(fd);
  }
}

/**
 * Cuts a mirror's torn last line off; the caller holds the mirror's lock. Only syncs (and compactions)
 * write a mirror, all under its lock, so a partial line seen under it is a dead writer's, never one being
 * written. Left there, the next sync's first line would be glued onto it and written again after the
 * batch: that row would land out of seq order, and the sync after it would copy the rest of the batch twice.
 */
function cutTornTail(path: string): void {
  const fd = openStateFile(path, constants.O_RDWR);
  try {
    const size = fstatSync(fd).size;
    const end = lastLineEnd(fd, size);
    if (end < size) ftruncateSync(fd, end);
  } finally {
    closeSync(fd);
  }
}

export class MirroredStore<T> implements LocalStore<T> {
  private readonly local: FileStore<T>;
  private readonly remote: PostgresLog<T>;
  private readonly passedPath: string;
  /** The database this process found the mirror to be of (checked once per process). */
  private checkedStore: string | undefined;
  /** When this process last recorded the mirror current (see caughtUp). */
  private markedAt = 0;

  constructor(
    private readonly database: PostgresDatabase,
    private readonly stateDir: string,
    readonly name: string,
    private readonly schema: RecordSchema<T>,
    private readonly logOptions: LogOptions,
    scopeFilter: ScopeFilter<T>,
  ) {
    this.local = new FileStore(stateDir, `mirror-${name}`, mirrorSchema(schema), logOptions, scopeFilter);
    this.passedPath = join(stateDir, `mirror-${name}.passed.json`);
    this.remote = database.log(name, schema);
  }

  get origin(): Position {
    return this.local.origin;
  }

  /** The mirror file: what the synchronous folds read. */
  get log(): JsonlLog<T> {
    return this.local.log;
  }

  /** Derived data: a compaction of the mirror must keep its last line, where its sync resumes (see `rewrite`). */
  readonly rewritable = false;

  /**
   * Runs `work`, which compacts the mirror, under the mirror's lock, once the mirror is at the database's
   * end: no sync appends meanwhile. The rows it moves to the mirror's archive stay in the database, and
   * syncs go on after the last seq the mirror holds, so `work` keeps the last line.
   */
  async rewrite<R>(work: () => R | Promise<R>): Promise<R> {
    await this.sync();
    return this.local.log.exclusive(work);
  }

  /**
   * Compacts the database's log by `plan` (retention.ts), then the mirror by `rewriteMirror` (see
   * `rewrite`). Another machine's mirror follows when its own compaction runs; until then it reads the
   * rows it holds, as before.
   */
  async compactSource<R>(plan: CompactionPlan<T>, rewriteMirror: () => R): Promise<{ source: SourceCompaction; local: R }> {
    const source = await compactRows(this.remote, plan);
    return { source, local: await this.rewrite(rewriteMirror) };
  }

  /**
   * Brings the mirror up to the database's end, reading at most `budget` rows. Inside a transaction,
   * `read` is the transaction's own (a pool of one connection must not wait on itself).
   */
  async sync(inTransaction?: DecideContext<T>["read"], budget = Infinity): Promise<Synced> {
    // After a reconnection, which database this is is checked again first (store.ts); not inside a
    // transaction, which must not wait on a connection of its own pool.
    if (!inTransaction) await this.database.rechecked();
    const read = inTransaction ?? ((from, visit, limits) => this.remote.read(from, visit, limits));
    let added = 0;
    let taken = 0;
    for (;;) {
      // A look without the lock first: most syncs find nothing new, and then never touch the lock.
      let seen = this.local.log.identity()?.size ?? 0;
      if (endsTorn(this.local.log.path, seen)) {
        await this.local.log.exclusive(() => {
          // Under the lock, at the end it has now (another sync may have cut it already).
          if (endsTorn(this.local.log.path, this.local.log.identity()?.size ?? 0)) cutTornTail(this.local.log.path);
        });
        seen = this.local.log.identity()?.size ?? 0;
      }
      let news = false;
      let readAt = Date.now();
      const probe = await read(this.mirroredThrough(seen), () => void (news = true), { maxRecords: 1 });
      if (await this.startedOver()) continue;
      if (!news && probe.corrupt.length === 0) return this.caughtUp(added, readAt);
      if (taken >= budget) return { added, caughtUp: false };
      const wanted = Math.min(SYNC_BATCH, budget - taken);
      let batch: { rows: Mirrored<T>[]; unreadable: CorruptRecord[] } = { rows: [], unreadable: [] };
      await this.local.log.transact(async (end) => {
        // Another process started the mirror over from another database since this one checked: this
        // database's rows must not go after that one's (see startedOver), and the newer choice stands.
        if (this.movedOn()) throw this.copiesAnother();
        const rows: Mirrored<T>[] = [];
        readAt = Date.now();
        const result = await read(this.mirroredThrough(end), (entry) => void rows.push({ ...entry.record, _seq: entry.position }), { maxRecords: wanted });
        batch = { rows, unreadable: result.corrupt };
        return rows;
      });
      // Only once the rows before them are in the mirror: a crash in between reads them again.
      this.passOver(batch.rows, batch.unreadable);
      added += batch.rows.length;
      taken += batch.rows.length + batch.unreadable.length;
      if (batch.rows.length + batch.unreadable.length < wanted) return this.caughtUp(added, readAt);
    }
  }

  /**
   * A sync that reached the database's end with a read started at `readAt`: the mirror holds every row
   * committed before then, which hooks may rely on for a bounded time (mirror-age.ts). Recorded at most
   * once a second per process: a follower syncs on every NOTIFY, and an older record is only more cautious.
   */
  private caughtUp(added: number, readAt: number): Synced {
    if (readAt - this.markedAt >= MARK_EVERY_MS) {
      markMirrorCurrent(this.stateDir, this.name, this.database.display, readAt);
      this.markedAt = readAt;
    }
    return { added, caughtUp: true };
  }

  /**
   * A mirror continues only the database it was copied from: PEERPOST_STORE pointed at another one, or the
   * database dropped and made anew (its seqs start over), starts the mirror over from nothing. Readers see
   * a replaced file, as after a compaction. A mirror from before this record is taken as the current one's.
   */
  private async startedOver(): Promise<boolean> {
    const store = await this.database.store();
    // Checked before by this process: another one may have started the mirror over from another database
    // since. Its rows may be further on than this database's, so a look for rows after its last seq finds
    // none here: without this, that would pass for caught up (and be recorded current for hooks).
    // A start-over another process left halfway is done again below, as by a process new to the mirror.
    const checked = this.checkedStore === store;
    const seen = recordedStore(this.stateDir, this.name);
    if (checked && seen !== STARTING_OVER) {
      if (seen !== undefined && seen !== store) throw this.copiesAnother();
      return false;
    }
    // The common case, without the lock (a hook must not load the lock's module for it).
    if (seen === store) {
      this.checkedStore = store;
      return false;
    }
    const startOver = await this.local.log.exclusive(() => {
      // Under the mirror's lock: another process may have started it over already.
      const recorded = recordedStore(this.stateDir, this.name);
      if (recorded === store) return false;
      // One that finished the start-over from another database meanwhile: its choice stands (see sync).
      if (checked && recorded !== undefined && recorded !== STARTING_OVER) throw this.copiesAnother();
      if (recorded !== undefined) {
        // First a record of no database: a start-over killed halfway is done again by the next process,
        // whichever database it is pointed at (back at the old one, its archive would be gone for good).
        recordStore(this.stateDir, this.name, STARTING_OVER);
        // Hooks must not trust it until a sync reaches the database's end again: they would read part of it.
        forgetMirrorCurrent(this.stateDir, this.name);
        // Its archive holds the other database's rows too: gone with them.
        removeArchive(compactionPaths(this.local.log.path));
        // Crash tests: the mailbox's mirror (the mirrors sync side by side: another's would die first at times).
        if (this.logOptions.fault === "start-over-after-archive" && this.name === "mailbox") process.kill(process.pid, "SIGKILL");
        writeStateFile(this.local.log.path, "");
        rmSync(this.passedPath, { force: true });
      }
      recordStore(this.stateDir, this.name, store);
      return recorded !== undefined;
    });
    this.checkedStore = store;
    return startOver;
  }

  /** Whether the mirror's record names another database than the one this process checked it against (read under the mirror's lock). */
  private movedOn(): boolean {
    const recorded = recordedStore(this.stateDir, this.name);
    return this.checkedStore !== undefined && recorded !== undefined && recorded !== this.checkedStore;
  }

  private copiesAnother(): PeerpostError {
    return new PeerpostError("state_io_error", `This machine's mirror of the ${this.name} log was started over from another database since this process opened ${this.database.display}; it copies nothing more from this one.`, {
      details: { log: this.name, store: this.database.display },
      hint: "Another peerpost process here uses another PEERPOST_STORE (or this database was dropped and made anew). Restart this process with the PEERPOST_STORE the others use.",
    });
  }

  /** The seq the mirror holds everything up to: its last line's, or the last unreadable row passed over right after it. */
  private mirroredThrough(end: number): string {
    const line = lastMirroredSeq(this.local.log.path, end);
    const passed = readPassed(this.passedPath);
    return passed?.after === line ? laterSeq(line, passed.through) : line;
  }

  /**
   * Rows this peerpost cannot read (a newer peerpost's records, a row written by hand) are passed over, as
   * the file store skips such lines: recorded beside the mirror so every later sync starts after them,
   * and reported in the error log that `peerpost doctor` shows.
   */
  private passOver(rows: Mirrored<T>[], unreadable: CorruptRecord[]): void {
    const last = unreadable.at(-1);
    if (!last) return;
    const after = rows.at(-1)?._seq ?? lastMirroredSeq(this.local.log.path, this.local.log.identity()?.size ?? 0);
    const passed = readPassed(this.passedPath);
    // Unreadable rows at the end of what was read, not already passed over (by another process meanwhile).
    const trailing = laterSeq(last.position, after) === last.position;
    const known = passed?.after === after && laterSeq(passed.through, last.position) === passed.through;
    if (trailing && !known) {
      const text = JSON.stringify({ v: 1, after, through: last.position, count: (passed?.count ?? 0) + unreadable.length } satisfies Passed);
      writeStateFile(this.passedPath, text + "\n");
    }
    logError(this.stateDir, `mirror-${this.name}`, new PeerpostError("state_io_error", `Passed over ${unreadable.length} row(s) of the ${this.name} log this peerpost cannot read (seq ${unreadable[0]!.position} to ${last.position}; a newer peerpost's records? upgrade peerpost here): ${last.reason}.`, {
      details: { log: this.name, rows: unreadable.map((row) => row.position) },
      hint: "A newer peerpost on another machine writes records this one does not know: upgrade peerpost here. Nothing else is affected.",
    }));
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
    let fromFile: string | undefined;
    // Caught up before the database's lock is taken: the sync inside it then copies only what committed
    // meanwhile, and rarely waits for the mirror's lock (another process compacting the mirror) while it
    // holds every machine's appends to this log.
    await this.sync();
    const outcome = await this.remote.appendDeciding(async (remote) => {
      await this.sync(remote.read);
      from = await this.local.end();
      fromFile = this.mirrorFile();
      return decide({ end: from, read: (start, visit, limits) => this.local.read(start, visit, limits) });
    });
    if (outcome.entries.length === 0) return { entries: [] };
    // Committed: whatever fails from here on (the mirror's lock busy, the database gone) must not read as
    // a failed write, or a caller that tries again stores the records twice.
    let found: StoredRecord<T>[] | undefined;
    try {
      await this.sync();
      // A compaction of the mirror swapped its file since `from` was taken: `from` is no place in the new one.
      found = this.mirrorFile() !== fromFile ? this.findAfterSwap(outcome.entries) : await this.locate(from, outcome.entries);
    } catch (error) {
      throw this.notMirrored(outcome.entries, error);
    }
    if (!found) throw this.notMirrored(outcome.entries);
    return { entries: found };
  }

  /** The mirror file's identity: a compaction's swap changes it. */
  private mirrorFile(): string | undefined {
    const identity = this.local.log.identity();
    return identity && `${identity.dev}:${identity.ino}`;
  }

  /** The committed records' JSON as the mirror's lines give them back (the schema's output), so that they compare. */
  private committedTexts(committed: StoredRecord<T>[]): string[] {
    return committed.map(({ record }) => JSON.stringify(((parsed) => (parsed.success ? parsed.data : record))(this.schema.safeParse(record))));
  }

  /**
   * The committed records in a mirror swapped meanwhile: the last lines that hold them, read back from its
   * end. A compaction of the mirror may have moved the last of them to its archive (a line about mail
   * done with, when newer rows came after it): those are found at the archive's end, and have no place in
   * the live file but its end.
   */
  private findAfterSwap(committed: StoredRecord<T>[]): StoredRecord<T>[] | undefined {
    const texts = this.committedTexts(committed);
    const found: StoredRecord<T>[] = [];
    let wanted = committed.length - 1;
    const lookIn = (log: JsonlLog<T>, place: (entry: LogEntry<T>) => Pick<StoredRecord<T>, "position" | "next">) =>
      log.scanBackward(undefined, (entry) => {
        if (JSON.stringify(entry.record) === texts[wanted]) found[wanted--] = { ...place(entry), record: entry.record };
        return wanted >= 0;
      });
    const liveEnd = toPosition(lookIn(this.local.log, (entry) => ({ position: toPosition(entry.offset), next: toPosition(entry.end) })).end);
    if (wanted >= 0) {
      const archive = new JsonlLog(compactionPaths(this.local.log.path).archive, this.local.log.schema, this.logOptions);
      try {
        lookIn(archive, () => ({ position: liveEnd, next: liveEnd }));
      } finally {
        archive.close();
      }
    }
    return wanted >= 0 ? undefined : found;
  }

  /** Records committed to the database that this machine's mirror does not show yet (`cause`: why the sync after the commit failed). */
  private notMirrored(committed: StoredRecord<T>[], cause?: unknown): PeerpostError {
    const why = cause instanceof Error ? `: ${cause.message.replace(/\.$/, "")}` : "";
    const hint = "They are stored in the database: do not write them again. The next sync brings them here; `peerpost doctor` checks the database and the mirror if this repeats.";
    return new PeerpostError("state_io_error", `The ${this.name} records just committed to PostgreSQL (seq ${committed[0]!.position}) are not in this machine's mirror yet${why}.`, {
      details: { log: this.name, stored: true, committed: committed.map((entry) => entry.position) },
      hint,
      cause,
    });
  }

  /** Where the committed records landed: the first ones after `from` (the lock was held from then until they committed), checked to be them. */
  private async locate(from: Position, committed: StoredRecord<T>[]): Promise<StoredRecord<T>[] | undefined> {
    const found: StoredRecord<T>[] = [];
    await this.local.read(from, (entry) => void found.push(entry), { maxRecords: committed.length });
    const texts = this.committedTexts(committed);
    if (found.length === committed.length && found.every((entry, i) => JSON.stringify(entry.record) === texts[i])) return found;
    // Not ours: a compaction swapped the mirror and its new file took the old one's inode number again.
    return this.findAfterSwap(committed);
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

  /**
   * Keeps the mirror current: syncs on every NOTIFY and after every reconnection. A sync that fails waits
   * for the next; `onFailed` hears of it (the mirror may now lag the database while LISTEN stays up).
   */
  follow(onSynced: () => void = () => undefined, onFailed: (error: unknown) => void = () => undefined): () => void {
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
        .catch(onFailed)
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
