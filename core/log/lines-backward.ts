// Reads a file's whole lines from a byte offset back towards its start, newest first: "the latest N"
// costs the bytes of those N lines, not the file. Chunks are read backwards; the piece of a line a chunk
// starts in the middle of is carried into the next (earlier) chunk.
import { readSync } from "node:fs";

const NEWLINE = 0x0a;
const FIRST_CHUNK_BYTES = 64 * 1024;
const LARGEST_CHUNK_BYTES = 1024 * 1024;

export interface BackwardLines {
  /** Called with each whole line (without its newline) before `end`, last first; return false to stop. */
  line(line: Buffer, offset: number): boolean | void;
  /** Called instead for a line longer than `maxLineBytes` (never held in memory whole). */
  tooLong(offset: number, length: number): void;
}

/** The last newline in `data` strictly before index `before`, or -1. */
function newlineBefore(data: Buffer, before: number): number {
  return before <= 0 ? -1 : data.lastIndexOf(NEWLINE, before - 1);
}

/**
 * Walks the lines of the open file `fd` that end at or before `end` (which must be a line's end: 0, or
 * just past a newline), from the last to the first.
 */
export function eachLineBackward(fd: number, end: number, maxLineBytes: number, visit: BackwardLines): void {
  let chunkBytes = FIRST_CHUNK_BYTES;
  /** Bytes from `position` up to the end of the line they belong to, whose start is not read yet. */
  let carry = Buffer.alloc(0);
  /** While passing over a line too long to keep: where it ends. */
  let skippingTo: number | undefined;
  let position = end;
  while (position > 0) {
    const start = Math.max(0, position - chunkBytes);
    // Pages of a few lines first; a reader that wants more reads larger chunks.
    chunkBytes = Math.min(LARGEST_CHUNK_BYTES, chunkBytes * 2);
    const chunk = Buffer.allocUnsafe(position - start);
    let read = 0;
    while (read < chunk.length) {
      const n = readSync(fd, chunk, read, chunk.length - read, start + read);
      if (n === 0) throw new Error(`the file ended before byte ${position}`);
      read += n;
    }
    const data = carry.length > 0 ? Buffer.concat([chunk, carry]) : chunk;
    /** Where the line being looked at ends, its newline included (relative to `start`). */
    let lineEnd = data.length;
    if (skippingTo !== undefined) {
      // The chunk ends inside the long line: its start is just past the chunk's last newline.
      const newline = data.lastIndexOf(NEWLINE);
      if (newline < 0 && start > 0) {
        position = start;
        continue;
      }
      visit.tooLong(start + newline + 1, skippingTo - (start + newline + 1));
      skippingTo = undefined;
      lineEnd = newline + 1;
    }
    while (lineEnd > 0) {
      const newline = newlineBefore(data, lineEnd - 1);
      // The line starts before this chunk: carried into the next one.
      if (newline < 0 && start > 0) break;
      const lineStart = newline + 1;
      const line = data.subarray(lineStart, lineEnd - 1);
      if (line.length > maxLineBytes) visit.tooLong(start + lineStart, lineEnd - lineStart);
      else if (visit.line(line, start + lineStart) === false) return;
      lineEnd = lineStart;
    }
    position = start;
    if (lineEnd - 1 > maxLineBytes) {
      skippingTo = start + lineEnd;
      carry = Buffer.alloc(0);
    } else carry = Buffer.from(data.subarray(0, lineEnd));
  }
}

/** Where the last whole line of the first `size` bytes of `fd` ends (0 when there is none): past it is a torn tail. */
export function lastLineEnd(fd: number, size: number): number {
  const buffer = Buffer.allocUnsafe(FIRST_CHUNK_BYTES);
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - buffer.length);
    const read = readSync(fd, buffer, 0, end - start, start);
    const newline = buffer.subarray(0, read).lastIndexOf(NEWLINE);
    if (newline >= 0) return start + newline + 1;
    end = start;
  }
  return 0;
}

/** Whether a line may start at `offset` of `fd`: the file's start, or just past a newline within the first `size` bytes. */
export function startsLine(fd: number, offset: number, size: number): boolean {
  if (offset === 0) return true;
  if (offset > size) return false;
  const byte = Buffer.alloc(1);
  return readSync(fd, byte, 0, 1, offset - 1) === 1 && byte[0] === NEWLINE;
}
