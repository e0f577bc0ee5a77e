// A fold of one kind of work event (claims, or tasks) kept up to a log offset. It starts from its
// snapshot where it has one (the state at a log position, checked like a mail view's: log-snapshot.ts),
// else from the per-address index's lines of its scope, then reads only the lines after them, passing
// over unparsed every line that does not spell one of its event types. A claim check never folds the
// whole mailbox, and with a snapshot not the whole history of claims either.
// A snapshot file is a JSON header line (format, scope, log position) and the state's own lines, which
// the state may read and check only as it needs them: one found damaged then (DamagedSnapshot) is
// dropped, and the fold starts over from the log.
import { join } from "node:path";
import type { JsonlLog } from "../log/log.js";
import { isLogPosition, logPosition, positionProblem, readSnapshotBytes, writeSnapshotTextSync, type LogPosition } from "../log/log-snapshot.js";
import { isPlainObject } from "../common/values.js";
import type { Mailbox } from "../mail/mailbox.js";
import { FAR_BEHIND_BYTES } from "../mail/view.js";
import type { MailboxEvent } from "../records/schemas.js";
import { spelling } from "../records/work-scope.js";
import { ensurePrivateDir } from "../security/trust.js";

/** The index lags this much before a reader extends it on its way (as a new mail view does). */
const EXTEND_INDEX_AT_BYTES = 64 * 1024;

/** How a fold's state is saved and trusted again. */
export interface WorkFoldSnapshot<S> {
  /** The file's name in the cache dir. */
  file: string;
  /** Raised whenever the saved state changes shape; a snapshot of another is folded again. */
  version: number;
  /** The state as the lines after the header. */
  encode(state: S): string;
  /**
   * The state those lines hold, `body` starting with the header's newline (so every line follows one). It
   * throws DamagedSnapshot when a line it reads is not one `encode` writes.
   */
  decode(body: Buffer): S;
}

/** A snapshot's line that its fold did not write: the snapshot is not trusted. */
export class DamagedSnapshot extends Error {}

export interface WorkFoldSpec<S> {
  scope: string;
  types: readonly MailboxEvent["type"][];
  empty: () => S;
  apply: (state: S, event: MailboxEvent, offset: number) => void;
  snapshot?: WorkFoldSnapshot<S>;
  /**
   * Whether compaction moves these events to the archive for readers to find there (finished tasks): the
   * fold then starts with the archive's lines of its scope. Claims that compaction moves matter to no reader.
   */
  archived?: boolean;
}

/** A snapshot file's first line. */
interface SnapshotHeader {
  v: number;
  scope: string;
  log: LogPosition;
}

export class WorkFold<S> {
  state: S;
  private offset = 0;
  private file: string | undefined;
  private readonly spells: RegExp;
  /** Lines of this fold read since the snapshot on disk (or since the start, without one). */
  private unsaved = 0;
  /** Why the snapshot on disk was found damaged, until this fold saves a new one. */
  private distrusted: string | undefined;
  /** How this fold started last: from a snapshot, or why not. */
  started: { from: "snapshot" } | { from: "log"; problem?: string } = { from: "log" };

  constructor(
    private readonly mailbox: Mailbox,
    private readonly spec: WorkFoldSpec<S>,
  ) {
    this.state = spec.empty();
    this.spells = spelling(spec.types);
  }

  private get log(): JsonlLog<MailboxEvent> {
    return this.mailbox.log;
  }

  private get snapshotPath(): string | undefined {
    return this.spec.snapshot && join(this.mailbox.cacheDir, this.spec.snapshot.file);
  }

  private apply(entry: { record: MailboxEvent; offset: number }): void {
    if (!this.spec.types.includes(entry.record.type)) return;
    this.spec.apply(this.state, entry.record, entry.offset);
    this.unsaved++;
  }

  /** The header of a snapshot file, or why it is none of this fold's. */
  private header(bytes: Buffer, end: number): { header: SnapshotHeader } | { problem: string } {
    let header: Partial<SnapshotHeader>;
    try {
      header = JSON.parse(bytes.toString("utf8", 0, end < 0 ? bytes.length : end)) as Partial<SnapshotHeader>;
    } catch {
      return { problem: "not JSON" };
    }
    if (end < 0 || !isPlainObject(header) || header.v !== this.spec.snapshot!.version || header.scope !== this.spec.scope || !isLogPosition(header.log)) return { problem: "not a snapshot of this fold" };
    const problem = positionProblem(this.log.path, header.log);
    return problem === undefined ? { header: header as SnapshotHeader } : { problem };
  }

  /** The saved state, when its log position is to be trusted (its lines are checked as they are read). */
  private loadSnapshot(): boolean {
    const path = this.snapshotPath;
    if (!path || this.distrusted !== undefined) return false;
    const bytes = readSnapshotBytes(path);
    if (bytes === undefined) return false;
    // The header's line; a file with none is no snapshot of this fold.
    const newline = bytes.indexOf(10);
    const read = this.header(bytes, newline);
    if ("problem" in read) {
      this.started = { from: "log", problem: read.problem };
      return false;
    }
    this.state = this.spec.snapshot!.decode(bytes.subarray(newline));
    this.offset = read.header.log.offset;
    this.started = { from: "snapshot" };
    return true;
  }

  /** Drops a snapshot found damaged: this fold starts over from the log, and saves one to trust. */
  private distrust(problem: string): void {
    this.distrusted = problem;
    this.file = undefined;
  }

  private start(): void {
    this.state = this.spec.empty();
    this.offset = 0;
    this.unsaved = 0;
    this.started = this.distrusted === undefined ? { from: "log" } : { from: "log", problem: this.distrusted };
    const fromSnapshot = this.loadSnapshot();
    // The archive's lines came before all the live log's (a snapshot holds them already).
    if (!fromSnapshot && this.spec.archived) this.mailbox.archivedScope(this.spec.scope, (line) => this.spells.test(line.toString("latin1")), (entry) => this.apply(entry));
    // A snapshot far behind the log is brought up through the index, not by reading all the mail since.
    if (fromSnapshot && (this.log.identity()?.size ?? 0) - this.offset <= FAR_BEHIND_BYTES) return;
    try {
      this.mailbox.extendIndex(EXTEND_INDEX_AT_BYTES);
    } catch {
      // Derived data: without it the scan reads the whole log, passing over what is not ours.
    }
    const indexed = this.mailbox.index.lookup(this.spec.scope);
    if (!indexed || indexed.covered <= this.offset) return;
    const since = this.offset;
    this.log.readLinesAt(since === 0 ? indexed.offsets : indexed.offsets.filter((offset) => offset >= since), (entry) => this.apply(entry));
    this.offset = indexed.covered;
  }

  /** Folds what was appended since the last refresh (from the start when the log's file changed). */
  refresh(): S {
    return this.read((state) => state);
  }

  /**
   * Runs `read` on the state brought to the end of the log. A snapshot line found damaged on the way (by
   * the fold or by `read`) drops the snapshot, and `read` runs again on the state folded from the log.
   */
  read<R>(read: (state: S) => R): R {
    try {
      return read(this.bringUp());
    } catch (error) {
      if (!(error instanceof DamagedSnapshot)) throw error;
      this.distrust(error.message);
      return read(this.bringUp());
    }
  }

  /**
   * A compaction that swapped the log's file in the middle of a fold (no lock is held here) makes it start
   * over: the lines it moved are then read from the archive, or were dropped with the state they made.
   */
  private bringUp(): S {
    for (let attempt = 0; ; attempt++) {
      const identity = this.log.identity();
      const file = identity && `${identity.dev}:${identity.ino}`;
      if (file === undefined) {
        this.state = this.spec.empty();
        this.offset = 0;
        this.file = undefined;
        return this.state;
      }
      if (file !== this.file || identity!.size < this.offset) {
        this.start();
        this.file = file;
      }
      const result = this.log.scan(this.offset, (entry) => this.apply(entry), { wanted: (line) => this.spells.test(line.toString("latin1")) });
      this.offset = result.next;
      const after = this.log.identity();
      if (attempt < 3 && (after?.ino !== identity!.ino || after?.dev !== identity!.dev)) {
        this.file = undefined;
        continue;
      }
      // Work events are few and each is read by every edit hook until a snapshot is past it: the first
      // reader of a new one saves, and the hooks after it read no line at all.
      if (this.unsaved > 0) this.save(identity!);
      return this.state;
    }
  }

  /**
   * The snapshot file as a reader would take it (for `peerpost doctor`; its state's lines are checked only
   * as readers read them): trusted, and up to which byte; stale, the log moved on under it (a compaction
   * replaced the file) and the next fold saves a new one; invalid; or missing.
   */
  inspectSnapshot(): { path: string; status: "trusted" | "stale" | "invalid" | "missing"; offset?: number; reason?: string } | undefined {
    const path = this.snapshotPath;
    if (!path) return undefined;
    const bytes = readSnapshotBytes(path);
    if (bytes === undefined) return { path, status: "missing" };
    const read = this.header(bytes, bytes.indexOf(10));
    if (!("problem" in read)) return { path, status: "trusted", offset: read.header.log.offset };
    const stale = read.problem !== "not JSON" && read.problem !== "not a snapshot of this fold";
    return { path, status: stale ? "stale" : "invalid", reason: read.problem };
  }

  /** Saves the state at its position; a fold that cannot is as right as before, only slower next time. */
  private save(identity: { dev: number; ino: number }): void {
    const path = this.snapshotPath;
    if (!path) return;
    try {
      ensurePrivateDir(this.mailbox.cacheDir);
      const header: SnapshotHeader = { v: this.spec.snapshot!.version, scope: this.spec.scope, log: logPosition(this.log.path, identity, this.offset) };
      const body = this.spec.snapshot!.encode(this.state);
      writeSnapshotTextSync(path, `${JSON.stringify(header)}\n${body}`);
      this.unsaved = 0;
      this.distrusted = undefined;
    } catch (error) {
      // A damaged snapshot line met while encoding is the caller's to handle (refresh folds again).
      if (error instanceof DamagedSnapshot) throw error;
      // Derived data: the next fold reads the lines again.
    }
  }
}

/** Where a fold's snapshot is and whether a reader would trust it (for `peerpost doctor`); read-only. */
export function inspectWorkSnapshot<S>(mailbox: Mailbox, spec: WorkFoldSpec<S>): ReturnType<WorkFold<S>["inspectSnapshot"]> {
  return new WorkFold(mailbox, spec).inspectSnapshot();
}

const kept = new WeakMap<Mailbox, Map<string, WorkFold<unknown>>>();

/** This process's fold of one kind of work event over a mailbox, kept between calls. */
export function keptWorkFold<S>(mailbox: Mailbox, spec: WorkFoldSpec<S>): WorkFold<S> {
  let byScope = kept.get(mailbox);
  if (!byScope) kept.set(mailbox, (byScope = new Map()));
  let fold = byScope.get(spec.scope) as WorkFold<S> | undefined;
  if (!fold) {
    fold = new WorkFold(mailbox, spec);
    byScope.set(spec.scope, fold as WorkFold<unknown>);
  }
  return fold;
}

/** This process's fold of one kind of work event over a mailbox, brought to the end of the log. */
export function keptFold<S>(mailbox: Mailbox, spec: WorkFoldSpec<S>): S {
  return keptWorkFold(mailbox, spec).refresh();
}
