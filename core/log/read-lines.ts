// Reading a log's lines through an open descriptor: forwards from an offset in chunks, backwards from an
// end, or line by line at known offsets. A torn last line is never parsed; an invalid line is reported
// (with its offset, length and why) and skipped; memory stays bounded by the chunk and line limits.
import { fstatSync, readSync } from "node:fs";
import { PeerpostError, ioError } from "../common/errors.js";
import { eachLineBackward, lastLineEnd, startsLine } from "./lines-backward.js";
import { MAX_LINE_BYTES, type CorruptLine, type LogEntry, type RecordSchema, type ScanLimits, type ScanResult } from "./types.js";

const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

/** The file being read (for errors) and the schema its records must pass. */
export interface LineSource<T> {
  readonly path: string;
  readonly schema: RecordSchema<T>;
}

/** Parses one line (without its newline) and visits its record, or reports it in `result.corrupt`. */
export function parseLine<T>(schema: RecordSchema<T>, line: Buffer, offset: number, visit: (entry: LogEntry<T>) => void, result: ScanResult): void {
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
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join(".")}` : "";
    result.corrupt.push({ offset, length, reason: `not a valid record${where}: ${issue?.message ?? "schema mismatch"}` });
    return;
  }
  visit({ offset, end: offset + length, record: parsed.data });
}

/** Streams complete lines from `offset` to the end of the file; `size`, when known, spares asking the file. */
export function scanLines<T>(source: LineSource<T>, fd: number, offset: number, visit: (entry: LogEntry<T>) => void, limits: ScanLimits, size?: number): ScanResult {
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
      throw ioError("read", source.path, error);
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
        // A line too long to be a record is reported whoever reads it (parseLine says so), wanted or not.
        if (line.length > MAX_LINE_BYTES || !wanted || wanted(line)) parseLine(source.schema, line, lineOffset, visit, result);
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

export function notALineStart(path: string, offset: number): PeerpostError {
  return new PeerpostError("invalid_arguments", `Byte ${offset} of ${path} does not start a line.`, {
    details: { path, offset },
    hint: "Pass back a cursor or position exactly as a result returned it.",
  });
}

/**
 * Visits the valid records of the whole lines before `before` (by default all of them), newest first,
 * until `visit` returns false. A `before` that does not start a line is refused.
 */
export function scanLinesBackward<T>(source: LineSource<T>, fd: number, before: number | undefined, visit: (entry: LogEntry<T>) => boolean | void): { end: number; corrupt: CorruptLine[] } {
  const result: ScanResult = { next: 0, corrupt: [], tornTail: false };
  let end: number;
  try {
    const size = fstatSync(fd).size;
    end = before ?? lastLineEnd(fd, size);
    if (before !== undefined && !startsLine(fd, before, size)) throw notALineStart(source.path, before);
    let stopped = false;
    const stop = (entry: LogEntry<T>) => void (visit(entry) === false && (stopped = true));
    eachLineBackward(fd, end, MAX_LINE_BYTES, {
      line: (line, offset) => {
        parseLine(source.schema, line, offset, stop, result);
        return !stopped;
      },
      tooLong: (offset, length) => void result.corrupt.push({ offset, length, reason: "line longer than 1 MiB" }),
    });
  } catch (error) {
    if (error instanceof PeerpostError) throw error;
    throw ioError("read", source.path, error);
  }
  return { end, corrupt: result.corrupt };
}

/** Visits the records whose lines start at these offsets (ascending), reading each line alone. Invalid lines are skipped. */
export function readLinesAtOffsets<T>(source: LineSource<T>, fd: number, offsets: readonly number[], visit: (entry: LogEntry<T>) => void): void {
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
      if (newline >= 0) parseLine(source.schema, buffer.subarray(0, newline), offset, visit, ignored);
    }
  } catch (error) {
    throw ioError("read", source.path, error);
  }
}
