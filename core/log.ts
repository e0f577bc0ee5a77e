// A generic append-only JSONL log. Appends are serialised by a proper-lockfile lock, written as whole lines
// and fsynced before the lock is released. Readers stream from an offset, never parse a torn last line,
// and report (but keep) complete lines that are not valid records.
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, statSync, writeSync } from "node:fs";
import { PeerpostError, ioError } from "./errors.js";
import { FILE_MODE } from "./state-dir.js";

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
  chunkBytes?: number;
}

export interface LogOptions {
  lockStaleMs: number;
  lockTimeoutMs: number;
  fault?: "pause-before-fsync" | "partial-line" | undefined;
}

export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
}

const CHUNK_BYTES = 1024 * 1024;
/** Longest line a reader will parse; longer lines are skipped and reported, never buffered whole. */
export const MAX_LINE_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class JsonlLog<T> {
  constructor(
    readonly path: string,
    private readonly schema: RecordSchema<T>,
    private readonly options: LogOptions,
  ) {}

  /** The file's identity and size, or undefined when it does not exist yet. */
  identity(): FileIdentity | undefined {
    try {
      const stat = statSync(this.path);
      return { dev: stat.dev, ino: stat.ino, size: stat.size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw ioError("inspect", this.path, error);
    }
  }

  /** Appends records as whole lines; see `transact` for appends that depend on the log's current state. */
  async append(records: T[]): Promise<LogEntry<T>[]> {
    return this.transact(() => records);
  }

  /**
   * Takes the lock, repairs a torn tail, asks `decide` what to append (it may read the log first: no one
   * else can append meanwhile), then writes, fsyncs and releases. Returns the appended entries.
   */
  async transact(decide: (end: number) => T[] | Promise<T[]>): Promise<LogEntry<T>[]> {
    const fd = this.openForAppend();
    let release: (() => Promise<void>) | undefined;
    try {
      release = await this.lock();
      const end = this.repairTail(fd);
      const records = await decide(end);
      if (records.length === 0) return [];
      return this.writeLines(fd, end, records);
    } finally {
      closeSync(fd);
      if (release) await release().catch(() => undefined);
    }
  }

  private openForAppend(): number {
    let fd: number;
    try {
      // O_APPEND: even if two writers ever held the lock at once (a stale-lock takeover race), their
      // lines would land one after the other instead of overwriting each other.
      fd = openSync(this.path, constants.O_RDWR | constants.O_CREAT | constants.O_APPEND, FILE_MODE);
    } catch (error) {
      throw ioError("open", this.path, error);
    }
    try {
      if ((fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, FILE_MODE);
    } catch (error) {
      closeSync(fd);
      throw ioError("restrict the permissions of", this.path, error);
    }
    return fd;
  }

  private async lock(): Promise<() => Promise<void>> {
    // Loaded on first append only: readers (every prompt hook) never pay for it.
    const { default: lockfile } = await import("proper-lockfile");
    const deadline = Date.now() + this.options.lockTimeoutMs;
    for (;;) {
      try {
        return await lockfile.lock(this.path, {
          stale: this.options.lockStaleMs,
          update: Math.max(1000, Math.floor(this.options.lockStaleMs / 2)),
          retries: 0,
          realpath: false,
          // A compromised lock (we stalled past the stale window) must not crash the process from a timer.
          onCompromised: () => undefined,
        });
      } catch (error) {
        // ENOENT: the lock dir vanished while it was being taken (another process cleared it as stale).
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ELOCKED" && code !== "ENOENT") throw ioError("lock", this.path, error);
        if (Date.now() >= deadline)
          throw new PeerpostError("state_io_error", `Timed out after ${this.options.lockTimeoutMs} ms waiting for the lock on ${this.path}.`, {
            details: { path: this.path, lock: `${this.path}.lock`, timeoutMs: this.options.lockTimeoutMs },
            hint: "Another peerpost process is holding the lock. A lock whose holder died is taken over after PEERPOST_LOCK_STALE_MS; `peerpost doctor` shows stale locks.",
          });
        await sleep(1 + Math.random() * 4);
      }
    }
  }

  /**
   * A file that does not end in a newline has a torn tail: a writer died mid-line, before its append
   * returned. We truncate it back to the last newline, so the unacknowledged fragment is dropped and
   * later records are never glued onto it. Returns the (new) end of the file.
   */
  private repairTail(fd: number): number {
    const size = fstatSync(fd).size;
    if (size === 0) return 0;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] === NEWLINE) return size;
    const keep = this.lastNewlineBefore(fd, size) + 1;
    try {
      ftruncateSync(fd, keep);
      fsyncSync(fd);
    } catch (error) {
      throw ioError("repair the torn tail of", this.path, error);
    }
    return keep;
  }

  /** Offset of the last newline before `size`, or -1. Reads backwards in chunks. */
  private lastNewlineBefore(fd: number, size: number): number {
    const buffer = Buffer.alloc(64 * 1024);
    let position = size;
    while (position > 0) {
      const length = Math.min(buffer.length, position);
      position -= length;
      readSync(fd, buffer, 0, length, position);
      const index = buffer.subarray(0, length).lastIndexOf(NEWLINE);
      if (index >= 0) return position + index;
    }
    return -1;
  }

  private writeLines(fd: number, start: number, records: T[]): LogEntry<T>[] {
    const entries: LogEntry<T>[] = [];
    const lines: Buffer[] = [];
    let offset = start;
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
      const line = Buffer.from(JSON.stringify(record) + "\n", "utf8");
      entries.push({ offset, end: offset + line.length, record });
      lines.push(line);
      offset += line.length;
    }
    const data = Buffer.concat(lines);
    try {
      if (this.options.fault === "partial-line") {
        writeSync(fd, data, 0, Math.max(1, Math.floor(data.length / 2)));
        process.kill(process.pid, "SIGKILL");
      }
      let written = 0;
      while (written < data.length) written += writeSync(fd, data, written, data.length - written);
      if (this.options.fault === "pause-before-fsync") {
        process.stderr.write("peerpost-fault: paused before fsync\n");
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
      }
      fsyncSync(fd);
    } catch (error) {
      // Leave no partial line behind for the next writer to glue onto.
      try { ftruncateSync(fd, start); } catch { /* the next writer repairs the tail */ }
      throw ioError("append to", this.path, error);
    }
    return entries;
  }

  /**
   * Streams complete lines from `offset` to the end of the file, calling `visit` for each valid record.
   * Invalid lines are reported in `corrupt` and skipped. Memory stays bounded by the chunk and line limits.
   */
  scan(offset: number, visit: (entry: LogEntry<T>) => void, limits: ScanLimits = {}): ScanResult {
    const result: ScanResult = { next: offset, corrupt: [], tornTail: false };
    let fd: number;
    try {
      fd = openSync(this.path, "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return result;
      throw ioError("open", this.path, error);
    }
    try {
      this.scanOpen(fd, offset, visit, result, limits);
    } finally {
      closeSync(fd);
    }
    return result;
  }

  private scanOpen(fd: number, offset: number, visit: (entry: LogEntry<T>) => void, result: ScanResult, limits: ScanLimits): void {
    // Sized to what is there to read: a reader that is nearly caught up (the common case) reads a few lines.
    let available = CHUNK_BYTES;
    try {
      available = Math.max(0, fstatSync(fd).size - offset);
    } catch {
      // Read in full chunks.
    }
    const chunk = Buffer.allocUnsafe(Math.max(4096, Math.min(limits.chunkBytes ?? CHUNK_BYTES, available + 1)));
    const maxLines = limits.maxLines ?? Infinity;
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
        if (skipping) {
          result.corrupt.push({ offset: lineOffset, length: lineEnd - lineOffset, reason: "line longer than 1 MiB" });
          skipping = false;
        } else {
          const line = pending.length === 0 ? data.subarray(index, newline) : Buffer.concat([...pending, data.subarray(index, newline)]);
          this.parseLine(line, lineOffset, visit, result);
        }
        pending = [];
        pendingBytes = 0;
        lineOffset = lineEnd;
        result.next = lineEnd;
        index = newline + 1;
        if (++lines >= maxLines) return;
      }
      position += read;
    }
    result.tornTail = position > result.next;
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

  /** Reads the one record whose line starts at `offset` (used to fetch a body without folding). */
  readAt(offset: number): T | undefined {
    let found: T | undefined;
    this.scan(offset, (entry) => (found = entry.record), { maxLines: 1, chunkBytes: 64 * 1024 });
    return found;
  }
}
