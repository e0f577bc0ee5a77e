// A fold of one kind of work event (claims, or tasks) kept up to a log offset. It starts from its
// snapshot where it has one (the state at a log position, checked like a mail view's: log-snapshot.ts),
// else from the per-address index's lines of its scope, then reads only the lines after them, passing
// over unparsed every line that does not spell one of its event types. A claim check never folds the
// whole mailbox, and with a snapshot not the whole history of claims either.
import { join } from "node:path";
import type { JsonlLog } from "../log/log.js";
import { logPosition, positionProblem, readSnapshotFile, writeSnapshotFileSync, type LogPosition } from "../log/log-snapshot.js";
import type { Mailbox } from "../mail/mailbox.js";
import { FAR_BEHIND_BYTES } from "../mail/view.js";
import type { MailboxEvent } from "../records/schemas.js";
import { ensurePrivateDir } from "../security/trust.js";

/** The index lags this much before a reader extends it on its way (as a new mail view does). */
const EXTEND_INDEX_AT_BYTES = 64 * 1024;
/** A fold that read this many of its lines past its snapshot (or without one) saves a new one. */
export const SAVE_AFTER_LINES = 64;

/** How a fold's state is saved and trusted again. */
export interface WorkFoldSnapshot<S> {
  /** The file's name in the cache dir. */
  file: string;
  /** Raised whenever the saved state changes shape; a snapshot of another is folded again. */
  version: number;
  encode(state: S): unknown;
  /** The state a saved value holds, or the first reason not to trust it. */
  decode(value: unknown): { state: S } | { problem: string };
}

export interface WorkFoldSpec<S> {
  scope: string;
  types: readonly MailboxEvent["type"][];
  empty: () => S;
  apply: (state: S, event: MailboxEvent, offset: number) => void;
  snapshot?: WorkFoldSnapshot<S>;
}

interface SavedFold {
  v: number;
  scope: string;
  log: LogPosition;
  state: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Whether a value is a log position as logPosition writes it. */
function isPosition(value: unknown): value is LogPosition {
  return isRecord(value) && typeof value.path === "string" && Number.isFinite(value.dev) && Number.isFinite(value.ino) && Number.isSafeInteger(value.offset) && (value.offset as number) >= 0 && typeof value.tail === "string";
}

export class WorkFold<S> {
  state: S;
  private offset = 0;
  private file: string | undefined;
  private readonly spells: RegExp;
  /** Lines of this fold read since the snapshot on disk (or since the start, without one). */
  private unsaved = 0;
  /** How this fold started last: from a snapshot, or why not. */
  started: { from: "snapshot" } | { from: "log"; problem?: string } = { from: "log" };

  constructor(
    private readonly mailbox: Mailbox,
    private readonly spec: WorkFoldSpec<S>,
  ) {
    this.state = spec.empty();
    // JSON.stringify writes `"type":"claim"` literally; a body quoting it has its quotes escaped.
    this.spells = new RegExp(`"type":"(?:${spec.types.join("|")})"`);
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

  /** The saved state, when its log position and its state are both to be trusted. */
  private loadSnapshot(): boolean {
    const path = this.snapshotPath;
    if (!path) return false;
    const read = readSnapshotFile(path);
    if (read.status !== "read") {
      this.started = read.status === "invalid" ? { from: "log", problem: read.reason } : { from: "log" };
      return false;
    }
    const saved = read.value as Partial<SavedFold>;
    const problem = !isRecord(saved) || saved.v !== this.spec.snapshot!.version || saved.scope !== this.spec.scope || !isPosition(saved.log) ? "not a snapshot of this fold" : positionProblem(this.log.path, saved.log);
    const decoded = problem === undefined ? this.spec.snapshot!.decode(saved.state) : { problem };
    if ("problem" in decoded) {
      this.started = { from: "log", problem: decoded.problem };
      return false;
    }
    this.state = decoded.state;
    this.offset = saved.log!.offset;
    this.started = { from: "snapshot" };
    return true;
  }

  private start(): void {
    this.state = this.spec.empty();
    this.offset = 0;
    this.unsaved = 0;
    const fromSnapshot = this.loadSnapshot();
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
    if (this.unsaved >= SAVE_AFTER_LINES) this.save(identity!);
    return this.state;
  }

  /** Saves the state at its position; a fold that cannot is as right as before, only slower next time. */
  private save(identity: { dev: number; ino: number }): void {
    const path = this.snapshotPath;
    if (!path) return;
    try {
      ensurePrivateDir(this.mailbox.cacheDir);
      const saved: SavedFold = { v: this.spec.snapshot!.version, scope: this.spec.scope, log: logPosition(this.log.path, identity, this.offset), state: this.spec.snapshot!.encode(this.state) };
      writeSnapshotFileSync(path, saved);
      this.unsaved = 0;
    } catch {
      // Derived data: the next fold reads the lines again.
    }
  }
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
