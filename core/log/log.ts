// A generic append-only JSONL log, the file store's engine. Every append is one whole-line write() on an
// O_APPEND descriptor, then an fsync that the kernel shares between concurrent writers (group commit).
// Plain appends take no lock. Deciding appends take a proper-lockfile lock only to decide and write, and
// then confirm by log order: records other writers slipped in after the decision (a lock taken over from
// a stopped holder) are re-read before acknowledging, and the first conflicting record wins.
// Readers stream from an offset, never parse a torn last line, and report (but keep) invalid lines.
import { createRequire } from "node:module";
import { closeSync, constants, fstatSync, fsyncSync, lstatSync, readSync, rmdirSync, statSync, writeSync, type Stats } from "node:fs";
import { PeerpostError, ioError } from "../common/errors.js";
import { isPrivateFile, openStateFile } from "../security/trust.js";
import { eachLineBackward, lastLineEnd, startsLine } from "./lines-backward.js";
import type { Fault } from "../common/config.js";

/** Anything with zod's safeParse: the record schema of this log. */
export interface RecordSchema<T> {
  safeParse(input: unknown): { success: true; data: T } | { success: false; error: { issues: ReadonlyArray<{ message: string; path: ReadonlyArray<PropertyKey> }> } };
}

export interface LogEntry<T> {
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Byte offset just past the line's newline. */
  end: number;
  record: T;
}

export interface CorruptLine {
  offset: number;
  length: number;
  reason: string;
}

/** Corrupt lines seen so far: a total, and the most recent few with their offsets. */
export interface CorruptSummary {
  count: number;
  recent: CorruptLine[];
}

/** A log's corrupt lines (a summary) and whether it ends in a torn line. */
export type CorruptReport = CorruptSummary & { tornTail: boolean };

/** How many of the latest corrupt lines a summary keeps with their offsets. */
export const RECENT_CORRUPT = 20;

/** `summary` with `lines` met after it: the total grows, the latest few are kept. */
export function withCorrupt(summary: CorruptSummary, lines: readonly CorruptLine[]): CorruptSummary {
  return { count: summary.count + lines.length, recent: [...summary.recent, ...lines].slice(-RECENT_CORRUPT) };
}

export interface ScanResult {
  /** Where the next read should start: just past the last complete line. */
  next: number;
  corrupt: CorruptLine[];
  /** True when the file ends in an incomplete line (a writer died mid-line, or is writing now). */
  tornTail: boolean;
}

export interface ScanLimits {
  /** Stop after this many complete lines (valid or not). */
  maxLines?: number;
  /** Stop before the line that starts at or after this offset. */
  until?: number;
  chunkBytes?: number;
  /** Lines it returns false for are passed over unparsed, neither visited nor checked (the reader knows they cannot concern it); a line too long to be a record is still reported. */
  wanted?: (line: Buffer) => boolean;
}

export interface LogOptions {
  lockStaleMs: number;
  lockTimeoutMs: number;
  fault?: Fault | undefined;
}

export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
  /** The look at the path (not followed) this came from: `scan` checks its kept descriptor against it instead of looking again. */
  stats: Stats;
}

/** One file of a log held open by `pin()`. */
export interface PinnedFile<T> {
  ino: number;
  dev: number;
  size(): number;
  scan(offset: number, visit: (entry: LogEntry<T>) => void, limits?: ScanLimits): ScanResult;
  close(): void;
}

/** What a deciding append's `decide` returns: records, optionally with the check for an earlier conflicting record. */
export type Decided<T> = T[] | { records: T[]; conflicts?: ((earlier: T) => boolean) | undefined };

export interface Transacted<T> {
  entries: LogEntry<T>[];
  /** An earlier record in log order that voids this decision; its entries are in the log but lost. */
  conflict?: LogEntry<T>;
}

const CHUNK_BYTES = 1024 * 1024;
/** Room past its own lines an appender reads to find them: other writers' lines that landed first usually fit. */
const FIND_SLACK_BYTES = 16 * 1024;
/** Largest read-back buffer a log keeps between appends. */
const SCRATCH_KEPT_BYTES = 256 * 1024;
const APPEND_FLAGS = constants.O_RDWR | constants.O_CREAT | constants.O_APPEND;
/** Slack for clock granularity before a lock's mtime counts as in the future. */
const FUTURE_LOCK_SLACK_MS = 2000;
/** Longest line a reader will parse; longer lines are skipped and reported, never buffered whole. */
export const MAX_LINE_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

/** Descriptors a log kept open are closed when the log object is collected. */
const openDescriptors = new FinalizationRegistry<Map<number, KeptDescriptor>>((kept) => {
  for (const { fd } of kept.values()) closeQuietly(fd);
});

interface KeptDescriptor {
  fd: number;
  dev: number;
  ino: number;
}

/** Writes all of `data` at the descriptor's position (looped only if the kernel writes less, which regular files do not). */
export function writeAll(fd: number, data: Buffer): void {
  let written = 0;
  while (written < data.length) written += writeSync(fd, data, written, data.length - written);
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class JsonlLog<T> {
  /**
   * One descriptor per access mode, kept between calls: opening and checking the file (trust.ts) on
   * every append and read cost a send more than its write. Used only while the path still names it.
   */
  private readonly kept = new Map<number, KeptDescriptor>();
  private scratch = Buffer.alloc(0);
  /** Kept descriptors a deciding append uses across its awaits, with how many use each. */
  private readonly held = new Map<number, number>();
  /** Held descriptors let go of meanwhile (the path replaced, the log closed): closed when the last user is done. */
  private readonly retired = new Set<number>();

  constructor(
    readonly path: string,
    private readonly schema: RecordSchema<T>,
    private readonly options: LogOptions,
  ) {
    openDescriptors.register(this, this.kept, this);
  }

  /** Closes the descriptors this log keeps open (the next call opens them again). */
  close(): void {
    for (const { fd } of this.kept.values()) this.closeKept(fd);
    this.kept.clear();
  }

  /** Closes a descriptor no longer kept, unless a deciding append still uses it: its number must not name another file under it. */
  private closeKept(fd: number): void {
    if (this.held.has(fd)) this.retired.add(fd);
    else closeQuietly(fd);
  }

  private hold(fd: number): void {
    this.held.set(fd, (this.held.get(fd) ?? 0) + 1);
  }

  private letGo(fd: number): void {
    const users = (this.held.get(fd) ?? 1) - 1;
    if (users > 0) return void this.held.set(fd, users);
    this.held.delete(fd);
    if (this.retired.delete(fd)) closeQuietly(fd);
  }

  /**
   * The kept descriptor for `flags` while the path names the file it was opened on (not followed: a link
   * put in its place is opened, and refused, anew); otherwise the file opened and checked now. `seen` is a
   * look at the path taken just before, in the same step, which spares looking again.
   */
  private descriptor(flags: number, seen?: Stats): KeptDescriptor {
    const kept = this.kept.get(flags);
    if (kept) {
      let current: Stats | undefined = seen;
      try {
        current ??= lstatSync(this.path);
      } catch {
        current = undefined;
      }
      // The same file, still as the checks left it (a mode someone loosened since is checked, and tightened, anew).
      if (current && current.ino === kept.ino && current.dev === kept.dev && isPrivateFile(current)) return kept;
      this.forget(flags);
    }
    const fd = openStateFile(this.path, flags);
    try {
      const stat = fstatSync(fd);
      const opened = { fd, dev: stat.dev, ino: stat.ino };
      this.kept.set(flags, opened);
      return opened;
    } catch (error) {
      closeQuietly(fd);
      throw error;
    }
  }

  private forget(flags: number): void {
    const kept = this.kept.get(flags);
    if (kept) this.closeKept(kept.fd);
    this.kept.delete(flags);
  }

  /** The file's identity and size, or undefined when it does not exist yet. */
  identity(): FileIdentity | undefined {
    try {
      const stat = lstatSync(this.path);
      return { dev: stat.dev, ino: stat.ino, size: stat.size, stats: stat };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw ioError("inspect", this.path, error);
    }
  }

  /**
   * Appends records that depend on nothing: no lock; returns once they are durable, or with `syncLater`
   * once they are written (readable by everyone), leaving the fsync to the kernel's own write-back.
   */
  async append(records: T[], options: { syncLater?: boolean } = {}): Promise<LogEntry<T>[]> {
    if (records.length === 0) return [];
    const data = this.encode(records);
    const { file, start } = this.appendTarget();
    this.write(file.fd, data);
    const entries = this.locate(file.fd, start, data, records);
    if (!options.syncLater) this.sync(file.fd);
    // A compaction replaced the file after this one was opened: write the lines again into the live one
    // (a compaction that copied them too leaves a duplicate, which every fold ignores).
    if (this.replaced(file)) return await this.append(records, options);
    return entries;
  }

  /**
   * Where a plain append writes, and the file's size before it. The kept descriptor is checked by fstat
   * alone (still a private file of ours): whether the path still names it is checked once the lines are
   * written (`replaced`), and a replaced file gets them again. Each look at the path costs every send,
   * and under contention more than its write.
   */
  private appendTarget(): { file: KeptDescriptor; start: number } {
    const kept = this.kept.get(APPEND_FLAGS);
    if (kept) {
      let stat: Stats | undefined;
      try {
        stat = fstatSync(kept.fd);
      } catch {
        stat = undefined;
      }
      if (stat && isPrivateFile(stat)) return { file: kept, start: stat.size };
      this.forget(APPEND_FLAGS);
    }
    const file = this.openForAppend();
    return { file, start: fstatSync(file.fd).size };
  }

  /**
   * Whether the path now names another file than the descriptor (a compaction renamed a new one in, or a
   * link was put in its place: not followed, a link is a file of its own): then it is not kept, and the
   * append goes again through a descriptor opened and checked anew, which refuses a link.
   */
  private replaced(file: KeptDescriptor): boolean {
    let current: Stats | undefined;
    try {
      current = lstatSync(this.path);
    } catch {
      current = undefined;
    }
    if (current && current.ino === file.ino && current.dev === file.dev) return false;
    this.forget(APPEND_FLAGS);
    return true;
  }

  /**
   * Takes the lock, closes off a torn tail, asks `decide` what to append (no other decider appends
   * meanwhile), writes and releases; then fsyncs, finds its own lines, and re-reads from the decision's
   * end to them: a record there that `conflicts` matches came first in log order and wins.
   */
  async transact(decide: (end: number) => Decided<T> | Promise<Decided<T>>): Promise<Transacted<T>> {
    let fd: number | undefined;
    let end: number;
    let decision: { records: T[]; conflicts?: ((earlier: T) => boolean) | undefined };
    let entries: LogEntry<T>[];
    const release = await this.lock();
    try {
      try {
        // Taken under the lock: a compaction (which holds it) cannot replace the file under this writer.
        // Held across the awaits below: a plain append of this process that lets it go must not close it.
        fd = this.openForAppend().fd;
        this.hold(fd);
        end = fstatSync(fd).size;
        const decided = await decide(end);
        decision = Array.isArray(decided) ? { records: decided } : decided;
        if (decision.records.length === 0) return { entries: [] };
        if (this.options.fault === "stop-after-decide") process.kill(process.pid, "SIGSTOP");
        const data = this.encode(decision.records);
        this.write(fd, data);
        entries = this.locate(fd, end, data, decision.records);
      } finally {
        await release().catch(() => undefined);
      }
      // Outside the lock: the next decider writes while this fsync (which covers its pages too) runs.
      this.sync(fd);
      const first = Math.min(...entries.map((entry) => entry.offset));
      const conflicts = decision.conflicts;
      let conflict: LogEntry<T> | undefined;
      if (conflicts && first > end)
        this.scan(end, (entry) => {
          if (!conflict && conflicts(entry.record)) conflict = entry;
        }, { until: first });
      return conflict ? { entries, conflict } : { entries };
    } finally {
      if (fd !== undefined) this.letGo(fd);
    }
  }

  /** Runs `work` holding the log's lock: no deciding append runs meanwhile (plain appends still may). */
  async exclusive<R>(work: () => R | Promise<R>): Promise<R> {
    const release = await this.lock();
    try {
      return await work();
    } finally {
      await release().catch(() => undefined);
    }
  }

  private openForAppend(): KeptDescriptor {
    try {
      // O_APPEND: every write lands whole at the end, after any other writer's, lock or no lock.
      // Never through a link, and only a regular file of ours that no one else can write (trust.ts).
      return this.descriptor(APPEND_FLAGS);
    } catch (error) {
      if (error instanceof PeerpostError) throw error;
      throw ioError("open", this.path, error);
    }
  }

  private async lock(): Promise<() => Promise<void>> {
    // Loaded on first deciding append only: readers (every prompt hook) never pay for it.
    const lockfile = (typeof require === "function" ? require("proper-lockfile") : createRequire(import.meta.url)("proper-lockfile")) as typeof import("proper-lockfile");
    const deadline = Date.now() + this.options.lockTimeoutMs;
    for (;;) {
      try {
        return await lockfile.lock(this.path, {
          stale: this.options.lockStaleMs,
          update: Math.max(1000, Math.floor(this.options.lockStaleMs / 2)),
          retries: 0,
          realpath: false,
          // A compromised lock (we stalled past the stale window) must not crash the process from a timer;
          // the log-order check after the write keeps the outcome right.
          onCompromised: () => undefined,
        });
      } catch (error) {
        // ENOENT: the lock dir vanished while it was being taken (another process cleared it as stale).
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ELOCKED" && code !== "ENOENT") throw ioError("lock", this.path, error);
        if (this.clearFutureLock()) continue;
        if (Date.now() >= deadline)
          throw new PeerpostError("state_io_error", `Timed out after ${this.options.lockTimeoutMs} ms waiting for the lock on ${this.path}.`, {
            details: { path: this.path, lock: `${this.path}.lock`, timeoutMs: this.options.lockTimeoutMs },
            hint: "Another peerpost process is holding the lock. A lock whose holder died is taken over after PEERPOST_LOCK_STALE_MS; `peerpost doctor` shows stale locks.",
          });
        await sleep(1 + Math.random() * 4);
      }
    }
  }

  /** A lock dated in the future was not written by a live holder on this clock: it would never go stale, so it is removed at once. */
  private clearFutureLock(): boolean {
    const lockPath = `${this.path}.lock`;
    try {
      if (statSync(lockPath).mtimeMs <= Date.now() + FUTURE_LOCK_SLACK_MS) return false;
      rmdirSync(lockPath);
      return true;
    } catch {
      return false;
    }
  }

  /** Whole lines of the records, each checked against the log's schema first. */
  private encode(records: T[]): Buffer {
    const lines: Buffer[] = [];
    for (const record of records) {
      // Never write what readers would skip as corrupt: that would be a stored record nobody sees.
      const checked = this.schema.safeParse(record);
      if (!checked.success) {
        const issue = checked.error.issues[0];
        throw new PeerpostError("internal_error", `Refusing to append a record its own log would not read back: ${issue?.path.map(String).join(".") ?? ""} ${issue?.message ?? ""}`.trim(), {
          details: { path: this.path, field: issue?.path.map(String).join(".") ?? null },
          hint: "This is a bug in peerpost; nothing was written.",
        });
      }
      lines.push(Buffer.from(JSON.stringify(record) + "\n", "utf8"));
    }
    return Buffer.concat(lines);
  }

  /** One write() of whole lines (looped only if the kernel writes less, which regular files do not). */
  private write(fd: number, data: Buffer): void {
    try {
      if (this.options.fault === "partial-line" && data.length > 1) {
        writeSync(fd, data, 0, Math.max(1, Math.floor(data.length / 2)));
        process.kill(process.pid, "SIGKILL");
      }
      writeAll(fd, data);
    } catch (error) {
      // No truncation: it could cut a line another writer appended meanwhile. A partial line is closed off by the next writer.
      throw ioError("append to", this.path, error);
    }
  }

  private sync(fd: number): void {
    if (this.options.fault === "skip-fsync") return;
    // The bench's model of a group commit whose fsync cost nothing: the send still waits (50 µs) for its ack.
    if (this.options.fault === "wait-instead-of-fsync") return void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 0.05);
    if (this.options.fault === "pause-before-fsync") {
      process.stderr.write("peerpost-fault: paused before fsync\n");
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
    }
    try {
      fsyncSync(fd);
    } catch (error) {
      throw ioError("fsync", this.path, error);
    }
  }

  /**
   * Where this writer's lines landed: O_APPEND put them whole at or after `from`, maybe after other
   * writers' lines. If they landed right after a torn tail (a writer that died mid-line), their first line
   * was glued onto that fragment into one corrupt line, which closes the fragment off: the first line is
   * written again. Truncating the fragment instead could cut a line another writer is still writing.
   */
  private locate(fd: number, from: number, data: Buffer, records: T[]): LogEntry<T>[] {
    let found = this.find(fd, from, data);
    const entries: LogEntry<T>[] = [];
    let offset = found.offset;
    let lineStart = 0;
    for (const record of records) {
      const lineEnd = data.indexOf(NEWLINE, lineStart) + 1;
      entries.push({ offset, end: offset + (lineEnd - lineStart), record });
      offset += lineEnd - lineStart;
      lineStart = lineEnd;
    }
    const firstLine = data.subarray(0, entries[0]!.end - entries[0]!.offset);
    for (let attempt = 0; found.glued; attempt++) {
      if (attempt === 3) throw this.lost(records.length, from);
      const retryFrom = fstatSync(fd).size;
      this.write(fd, firstLine);
      found = this.find(fd, retryFrom, firstLine);
      entries[0] = { offset: found.offset, end: found.offset + firstLine.length, record: records[0]! };
    }
    return entries;
  }

  /** The first place at or after `from` holding `data`, and whether it starts mid-line. */
  private find(fd: number, from: number, data: Buffer): { offset: number; glued: boolean } {
    // From one byte early, to see whether the match starts a line. One read sized to the lines and some
    // slack usually holds them; only a writer that many other lines overtook reads on to the end.
    const base = Math.max(0, from - 1);
    const wanted = from - base + data.length + FIND_SLACK_BYTES;
    let region = this.readRegion(fd, base, wanted);
    let index = region.indexOf(data, from - base);
    if (index < 0 && region.length === wanted) {
      region = this.readRegion(fd, base, fstatSync(fd).size - base);
      index = region.indexOf(data, from - base);
    }
    if (index < 0) throw this.lost(1, from);
    return { offset: base + index, glued: base + index > 0 && region[index - 1] !== NEWLINE };
  }

  /** Up to `length` bytes from `position`, fewer where the file ends, in a buffer the next call reuses. */
  private readRegion(fd: number, position: number, length: number): Buffer {
    // Reused: a send reads its lines back on every append, and a fresh buffer each time is a fresh
    // allocation. A rare large region (a writer many lines overtook, a big batch) is not kept.
    let buffer = this.scratch;
    if (buffer.length < length) {
      const kept = length <= SCRATCH_KEPT_BYTES;
      buffer = Buffer.allocUnsafe(kept ? Math.min(SCRATCH_KEPT_BYTES, Math.max(length, 2 * buffer.length)) : Math.max(0, length));
      if (kept) this.scratch = buffer;
    }
    const region = buffer.subarray(0, Math.max(0, length));
    let read = 0;
    while (read < region.length) {
      const wanted = region.length - read;
      const n = readSync(fd, region, read, wanted, position + read);
      read += n;
      // A regular file reads short only at its end.
      if (n < wanted) break;
    }
    return region.subarray(0, read);
  }

  private lost(count: number, from: number): PeerpostError {
    return new PeerpostError("state_io_error", `Appended ${count} record(s) to ${this.path} but could not find them whole afterwards.`, {
      details: { path: this.path, from },
      hint: "Another program may be writing to or truncating the file; `peerpost doctor` inspects it.",
    });
  }

  /**
   * Streams complete lines from `offset` to the end of the file, calling `visit` for each valid record.
   * Invalid lines are reported in `corrupt` and skipped. Memory stays bounded by the chunk and line limits.
   */
  scan(offset: number, visit: (entry: LogEntry<T>) => void, limits: ScanLimits = {}, seen?: FileIdentity): ScanResult {
    let file: KeptDescriptor;
    try {
      file = this.descriptor(constants.O_RDONLY, seen?.stats);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { next: offset, corrupt: [], tornTail: false };
      if (error instanceof PeerpostError) throw error;
      throw ioError("open", this.path, error);
    }
    const size = seen && seen.ino === file.ino && seen.dev === file.dev ? seen.size : undefined;
    return this.scanOpen(file.fd, offset, visit, limits, size);
  }

  /** `scan` on an open descriptor; `size`, when known, spares asking the file. */
  private scanOpen(fd: number, offset: number, visit: (entry: LogEntry<T>) => void, limits: ScanLimits, size?: number): ScanResult {
    const result: ScanResult = { next: offset, corrupt: [], tornTail: false };
    // Sized to what is there to read: a reader that is nearly caught up (the common case) reads a few lines.
    let available = CHUNK_BYTES;
    try {
      available = Math.max(0, (size ?? fstatSync(fd).size) - offset);
    } catch {
      // Read in full chunks.
    }
    const chunk = Buffer.allocUnsafe(Math.max(4096, Math.min(limits.chunkBytes ?? CHUNK_BYTES, available + 1)));
    const maxLines = limits.maxLines ?? Infinity;
    const until = limits.until ?? Infinity;
    const wanted = limits.wanted;
    let lines = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let lineOffset = offset;
    let skipping = false;
    let position = offset;
    for (;;) {
      let read: number;
      try {
        read = readSync(fd, chunk, 0, chunk.length, position);
      } catch (error) {
        throw ioError("read", this.path, error);
      }
      if (read === 0) break;
      const data = chunk.subarray(0, read);
      let index = 0;
      while (index < read) {
        const newline = data.indexOf(NEWLINE, index);
        if (newline < 0) {
          // No line end in the rest of this chunk: keep the bytes, unless the line is already too long to be a record.
          if (!skipping) {
            pending.push(Buffer.from(data.subarray(index)));
            pendingBytes += read - index;
            if (pendingBytes > MAX_LINE_BYTES) {
              skipping = true;
              pending = [];
              pendingBytes = 0;
            }
          }
          break;
        }
        const lineEnd = position + newline + 1;
        if (lineOffset >= until) return result;
        if (skipping) {
          result.corrupt.push({ offset: lineOffset, length: lineEnd - lineOffset, reason: "line longer than 1 MiB" });
          skipping = false;
        } else {
          const line = pending.length === 0 ? data.subarray(index, newline) : Buffer.concat([...pending, data.subarray(index, newline)]);
          if (!wanted || wanted(line)) this.parseLine(line, lineOffset, visit, result);
        }
        pending = [];
        pendingBytes = 0;
        lineOffset = lineEnd;
        result.next = lineEnd;
        index = newline + 1;
        if (++lines >= maxLines) return result;
      }
      position += read;
      // A regular file reads short only at its end: no second read to learn that.
      if (read < chunk.length) break;
    }
    result.tornTail = position > result.next;
    return result;
  }

  private parseLine(line: Buffer, offset: number, visit: (entry: LogEntry<T>) => void, result: ScanResult): void {
    const length = line.length + 1;
    if (line.length > MAX_LINE_BYTES) {
      result.corrupt.push({ offset, length, reason: "line longer than 1 MiB" });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line.toString("utf8"));
    } catch {
      result.corrupt.push({ offset, length, reason: "not valid JSON" });
      return;
    }
    const parsed = this.schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join(".")}` : "";
      result.corrupt.push({ offset, length, reason: `not a valid record${where}: ${issue?.message ?? "schema mismatch"}` });
      return;
    }
    visit({ offset, end: offset + length, record: parsed.data });
  }

  /**
   * Visits the valid records of the whole lines before `before` (by default all of them: a torn tail is
   * not a line yet), newest first, until `visit` returns false. Invalid lines are reported in `corrupt`;
   * `end` is where the lines read back from end.
   * A `before` that does not start a line (nor end the file's whole lines) is refused.
   */
  scanBackward(before: number | undefined, visit: (entry: LogEntry<T>) => boolean | void): { end: number; corrupt: CorruptLine[] } {
    const result: ScanResult = { next: 0, corrupt: [], tornTail: false };
    let fd: number;
    try {
      fd = this.descriptor(constants.O_RDONLY).fd;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        if (before) throw this.notALineStart(before);
        return { end: 0, corrupt: [] };
      }
      if (error instanceof PeerpostError) throw error;
      throw ioError("open", this.path, error);
    }
    let end: number;
    try {
      const size = fstatSync(fd).size;
      end = before ?? lastLineEnd(fd, size);
      if (before !== undefined && !startsLine(fd, before, size)) throw this.notALineStart(before);
      let stopped = false;
      const stop = (entry: LogEntry<T>) => void (visit(entry) === false && (stopped = true));
      eachLineBackward(fd, end, MAX_LINE_BYTES, {
        line: (line, offset) => {
          this.parseLine(line, offset, stop, result);
          return !stopped;
        },
        tooLong: (offset, length) => void result.corrupt.push({ offset, length, reason: "line longer than 1 MiB" }),
      });
    } catch (error) {
      if (error instanceof PeerpostError) throw error;
      throw ioError("read", this.path, error);
    }
    return { end, corrupt: result.corrupt };
  }

  private notALineStart(offset: number): PeerpostError {
    return new PeerpostError("invalid_arguments", `Byte ${offset} of ${this.path} does not start a line.`, {
      details: { path: this.path, offset },
      hint: "Pass back a cursor or position exactly as a result returned it.",
    });
  }

  /**
   * Visits the records whose lines start at these offsets (ascending), through one descriptor, reading
   * each line alone: the cost follows the lines read, not the log. Lines that are not valid are skipped.
   */
  readLinesAt(offsets: readonly number[], visit: (entry: LogEntry<T>) => void): void {
    if (offsets.length === 0) return;
    let fd: number;
    try {
      fd = this.descriptor(constants.O_RDONLY).fd;
    } catch (error) {
      if (error instanceof PeerpostError) throw error;
      throw ioError("open", this.path, error);
    }
    const ignored: ScanResult = { next: 0, corrupt: [], tornTail: false };
    let buffer = Buffer.allocUnsafe(4096);
    try {
      for (const offset of offsets) {
        let length = 0;
        let newline = -1;
        while (newline < 0) {
          if (length === buffer.length) {
            if (buffer.length > MAX_LINE_BYTES) break;
            const larger = Buffer.allocUnsafe(buffer.length * 4);
            buffer.copy(larger, 0, 0, length);
            buffer = larger;
          }
          const read = readSync(fd, buffer, length, buffer.length - length, offset + length);
          if (read === 0) break;
          newline = buffer.indexOf(NEWLINE, length);
          length += read;
          if (newline >= length) newline = -1;
        }
        if (newline >= 0) this.parseLine(buffer.subarray(0, newline), offset, visit, ignored);
      }
    } catch (error) {
      throw ioError("read", this.path, error);
    }
  }

  /**
   * The file the path names now, held open: it keeps reading that file after a compaction renames
   * another in (a follower finishes the old file first). Undefined when there is no file yet.
   */
  pin(): PinnedFile<T> | undefined {
    let fd: number;
    try {
      fd = openStateFile(this.path, constants.O_RDONLY);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      if (error instanceof PeerpostError) throw error;
      throw ioError("open", this.path, error);
    }
    const { ino, dev } = fstatSync(fd);
    return {
      ino,
      dev,
      size: () => fstatSync(fd).size,
      scan: (offset, visit, limits = {}) => this.scanOpen(fd, offset, visit, limits),
      close: () => closeQuietly(fd),
    };
  }

  /** Reads the one record whose line starts at `offset` (used to fetch a body without folding). */
  readAt(offset: number): T | undefined {
    let found: T | undefined;
    this.scan(offset, (entry) => (found = entry.record), { maxLines: 1, chunkBytes: 64 * 1024 });
    return found;
  }
}
