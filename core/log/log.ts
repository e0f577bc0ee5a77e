// A generic append-only JSONL log, the file store's engine. Every append is one whole-line write() on an
// O_APPEND descriptor, then an fsync that the kernel shares between concurrent writers (group commit).
// Plain appends take no lock. Deciding appends take a proper-lockfile lock only to decide and write, and
// then confirm by log order: records other writers slipped in after the decision (a lock taken over from
// a stopped holder) are re-read before acknowledging, and the first conflicting record wins.
// Readers stream from an offset, never parse a torn last line, and report (but keep) invalid lines
// (read-lines.ts); the vocabulary is in types.ts, the kept descriptors in kept-files.ts, the lock in lock.ts.
import { constants, fstatSync, fsyncSync, lstatSync, readSync, writeSync, type Stats } from "node:fs";
import { PeerpostError, ioError } from "../common/errors.js";
import { checkStateFileKind, isPrivateFile, openStateFile } from "../security/trust.js";
import { KeptFiles, closeQuietly, writeAll, type KeptDescriptor } from "./kept-files.js";
import { lockLog } from "./lock.js";
import { notALineStart, readLinesAtOffsets, scanLines, scanLinesBackward } from "./read-lines.js";
import type { CorruptLine, Decided, FileIdentity, LogEntry, LogOptions, PinnedFile, RecordSchema, ScanLimits, ScanResult, Transacted } from "./types.js";
import { sleepSync } from "../common/sleep.js";
import { lastLineEnd } from "./lines-backward.js";

/** Room past its own lines an appender reads to find them: other writers' lines that landed first usually fit. */
const FIND_SLACK_BYTES = 16 * 1024;
/** Largest read-back buffer a log keeps between appends. */
const SCRATCH_KEPT_BYTES = 256 * 1024;
const APPEND_FLAGS = constants.O_RDWR | constants.O_CREAT | constants.O_APPEND;
const NEWLINE = 0x0a;

export class JsonlLog<T> {
  /** One descriptor per access mode, kept between calls (see kept-files.ts). */
  private readonly files: KeptFiles;
  private scratch = Buffer.alloc(0);

  constructor(
    readonly path: string,
    readonly schema: RecordSchema<T>,
    private readonly options: LogOptions,
  ) {
    this.files = new KeptFiles(path, this);
  }

  /** Closes the descriptors this log keeps open (the next call opens them again). */
  close(): void {
    this.files.close();
  }

  /** The file's identity and size, or undefined when it does not exist yet; what is no regular file there is refused. */
  identity(): FileIdentity | undefined {
    let stat: Stats;
    try {
      stat = lstatSync(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw ioError("inspect", this.path, error);
    }
    checkStateFileKind(this.path, stat);
    return { dev: stat.dev, ino: stat.ino, size: stat.size, stats: stat };
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
    const kept = this.files.get(APPEND_FLAGS);
    if (kept) {
      let stat: Stats | undefined;
      try {
        stat = fstatSync(kept.fd);
      } catch {
        stat = undefined;
      }
      if (stat && isPrivateFile(stat)) return { file: kept, start: stat.size };
      this.files.forget(APPEND_FLAGS);
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
    this.files.forget(APPEND_FLAGS);
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
    const release = await lockLog(this.path, this.options);
    try {
      try {
        // Taken under the lock: a compaction (which holds it) cannot replace the file under this writer.
        // Held across the awaits below: a plain append of this process that lets it go must not close it.
        fd = this.openForAppend().fd;
        this.files.hold(fd);
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
      if (fd !== undefined) this.files.letGo(fd);
    }
  }

  /** Runs `work` holding the log's lock: no deciding append runs meanwhile (plain appends still may). */
  async exclusive<R>(work: () => R | Promise<R>): Promise<R> {
    const release = await lockLog(this.path, this.options);
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
      return this.files.open(APPEND_FLAGS);
    } catch (error) {
      if (error instanceof PeerpostError) throw error;
      throw ioError("open", this.path, error);
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
    if (this.options.fault === "wait-instead-of-fsync") return sleepSync(0.05);
    if (this.options.fault === "pause-before-fsync") {
      process.stderr.write("peerpost-fault: paused before fsync\n");
      sleepSync();
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

  /** A descriptor for reading, or undefined when the file does not exist yet. */
  private reader(seen?: Stats): KeptDescriptor | undefined {
    try {
      return this.files.open(constants.O_RDONLY, seen);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      if (error instanceof PeerpostError) throw error;
      throw ioError("open", this.path, error);
    }
  }

  /**
   * Streams complete lines from `offset` to the end of the file, calling `visit` for each valid record.
   * Invalid lines are reported in `corrupt` and skipped. Memory stays bounded by the chunk and line limits.
   */
  scan(offset: number, visit: (entry: LogEntry<T>) => void, limits: ScanLimits = {}, seen?: FileIdentity): ScanResult {
    const file = this.reader(seen?.stats);
    if (!file) return { next: offset, corrupt: [], tornTail: false };
    const size = seen && seen.ino === file.ino && seen.dev === file.dev ? seen.size : undefined;
    return scanLines(this, file.fd, offset, visit, limits, size);
  }

  /**
   * Visits the valid records of the whole lines before `before` (by default all of them: a torn tail is
   * not a line yet), newest first, until `visit` returns false. Invalid lines are reported in `corrupt`;
   * `end` is where the lines read back from end.
   * A `before` that does not start a line (nor end the file's whole lines) is refused.
   */
  scanBackward(before: number | undefined, visit: (entry: LogEntry<T>) => boolean | void): { end: number; corrupt: CorruptLine[] } {
    const file = this.reader();
    if (!file) {
      if (before) throw notALineStart(this.path, before);
      return { end: 0, corrupt: [] };
    }
    return scanLinesBackward(this, file.fd, before, visit);
  }

  /**
   * Visits the records whose lines start at these offsets (ascending), through one descriptor, reading
   * each line alone: the cost follows the lines read, not the log. Lines that are not valid are skipped.
   */
  readLinesAt(offsets: readonly number[], visit: (entry: LogEntry<T>) => void): void {
    if (offsets.length === 0) return;
    let fd: number;
    try {
      fd = this.files.open(constants.O_RDONLY).fd;
    } catch (error) {
      if (error instanceof PeerpostError) throw error;
      throw ioError("open", this.path, error);
    }
    readLinesAtOffsets(this, fd, offsets, visit);
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
      lineEnd: () => lastLineEnd(fd, fstatSync(fd).size),
      scan: (offset, visit, limits = {}) => scanLines(this, fd, offset, visit, limits),
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
