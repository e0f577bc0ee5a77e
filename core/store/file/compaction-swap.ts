// The crash-safe swap under a compaction of the file store's mailbox: where each file lives, the marker
// that says how much of the archive is committed and which live file it was taken from, the record of
// where the old file continues in the new one, and the steps that finish or undo a compaction that died
// (see compaction.ts for the steps, and why a kill -9 at any of them reads as before or after).
import { closeSync, constants, fstatSync, fsyncSync, ftruncateSync, lstatSync, openSync, readSync, rmSync } from "node:fs";
import { writeAll } from "../../log/kept-files.js";
import { MAX_LINE_BYTES } from "../../log/types.js";
import { PeerpostError, ioError } from "../../common/errors.js";
import { dirname } from "node:path";
import { openStateFile, readStateFile, readStateFileIfAny, writeStateFile, writeStateFileInPlace } from "../../security/trust.js";
import { processStartTime } from "../../sessions/process-tree.js";

export interface Marker {
  v: 1;
  archiveBytes: number;
  liveIno: number;
  /** Set just before the rename: how much of the old file the new one holds. */
  copiedUpTo?: number;
  /** The compacting process and its start time: while it runs, its marker is no crash to recover from. */
  pid?: number;
  pidStart?: number;
}

export interface CompactionPaths {
  live: string;
  archive: string;
  marker: string;
  old: string;
  next: string;
  /** Where the last swap's old file continues in the new one (see `Swap`). */
  swap: string;
  /** How far a died compaction's old file was brought over into the live one since (`Brought`). */
  brought: string;
}

/**
 * The old file of a compaction that died after its rename, brought over up to `upTo`: the next reader goes
 * on from there. Without it every new process appended the whole tail again, and an old record landed after
 * newer ones (the registry's latest-wins fold then went back to it).
 */
interface Brought {
  v: 1;
  ino: number;
  upTo: number;
}

export function compactionPaths(livePath: string): CompactionPaths {
  const base = livePath.replace(/\.jsonl$/, "");
  return { live: livePath, archive: `${base}.archive.jsonl`, marker: `${livePath}.compacting.json`, old: `${livePath}.old`, next: `${livePath}.next`, swap: `${livePath}.swapped.json`, brought: `${livePath}.brought.json` };
}

/**
 * A swap, for readers that follow the live file by offset (`peerpost tail`): the new file holds the kept
 * lines of the old one's first `end` bytes (`keptBytes` of them), then the old file's bytes from `end` to
 * `copiedUpTo`, byte for byte. So an old offset X in [end, copiedUpTo] continues at keptBytes + (X - end).
 * (Lines the old file got later come after new writers' lines, copied again.) From `tailFrom` on, every
 * line before `end` was kept too: an offset X in [tailFrom, end] continues at keptBytes - (end - X), which
 * a reader that no longer holds the old file (a swap it slept through) can still place.
 */
export interface Swap {
  fromIno: number;
  toIno: number;
  end: number;
  copiedUpTo: number;
  keptBytes: number;
  tailFrom: number;
}

/**
 * The record of swaps: the last compaction's, after those it followed without a reader in between (the
 * rounds of one compaction each swap a file in). A reader asleep through them all follows the chain.
 */
interface SwapRecord {
  v: 2;
  swaps: Swap[];
}

/** Swaps a record keeps, oldest dropped first: a reader further behind resumes at the end, and says so. */
const KEPT_SWAPS = 64;

const isSwap = (swap: Partial<Swap>): swap is Swap => [swap.fromIno, swap.toIno, swap.end, swap.copiedUpTo, swap.keptBytes, swap.tailFrom].every(Number.isSafeInteger);

/** The recorded swaps, oldest first; none when there is no record or it cannot be read (a reader then resumes at the end). */
export function readSwaps(paths: CompactionPaths): Swap[] {
  try {
    const record = JSON.parse(readStateFile(paths.swap)) as Partial<SwapRecord>;
    return record.v === 2 && Array.isArray(record.swaps) && record.swaps.every(isSwap) ? record.swaps : [];
  } catch {
    return [];
  }
}

/** The last swap, if recorded. */
export function readSwap(paths: CompactionPaths): Swap | undefined {
  return readSwaps(paths).at(-1);
}

/** Records a swap after the ones it follows from (the last went to its old file), or alone. Derived, for followers only: not fsynced. */
export function recordSwap(paths: CompactionPaths, swap: Swap): void {
  const earlier = readSwaps(paths);
  const chain = earlier.at(-1)?.toIno === swap.fromIno ? [...earlier, swap].slice(-KEPT_SWAPS) : [swap];
  writeStateFileInPlace(paths.swap, JSON.stringify({ v: 2, swaps: chain } satisfies SwapRecord));
}

/**
 * The swaps that lead from the file with inode `fromIno` to the one with `toIno`, oldest first, or
 * undefined when the record holds no such chain (a reader then resumes at the end).
 */
export function swapsBetween(paths: CompactionPaths, fromIno: number, toIno: number): Swap[] | undefined {
  const swaps = readSwaps(paths);
  // The latest swap from that file: an inode freed by an earlier swap may have been given out again.
  let start = swaps.length - 1;
  while (start >= 0 && swaps[start]!.fromIno !== fromIno) start--;
  if (start < 0) return undefined;
  const chain = swaps.slice(start);
  return chain.at(-1)!.toIno === toIno && chain.every((swap, i) => i === 0 || swap.fromIno === chain[i - 1]!.toIno) ? chain : undefined;
}

/** The marker, or undefined when there is none (or it is torn); a link or another user's file in its place is refused (trust.ts). */
function readMarker(paths: CompactionPaths): Marker | undefined {
  const text = readStateFileIfAny(paths.marker);
  try {
    return text === undefined ? undefined : (JSON.parse(text) as Marker);
  } catch {
    return undefined;
  }
}

/**
 * Writes this process's marker durably, never through a link, and renamed in whole: rewritten in place, a
 * kill between its truncation and its write left an empty marker, read as none, and the archive's moved
 * lines then counted beside the old file's, and moved again.
 */
export function writeMarker(paths: CompactionPaths, marker: Omit<Marker, "pid" | "pidStart">): void {
  const start = processStartTime(process.pid);
  writeStateFile(paths.marker, JSON.stringify({ ...marker, pid: process.pid, ...(start === undefined ? {} : { pidStart: start }) } satisfies Marker), { sync: true });
  fsyncPath(dirname(paths.marker));
}

/**
 * Whether the marker is another process's that still runs. A compaction is synchronous: one of a large log
 * runs past the lock's stale time without renewing it, and another process may take the lock over; that
 * one must not undo the first one's files as if it had died.
 */
function runningElsewhere(marker: Marker): boolean {
  if (marker.pid === undefined || marker.pid === process.pid) return false;
  try {
    process.kill(marker.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return marker.pidStart === undefined || processStartTime(marker.pid) === marker.pidStart;
}

/** Refuses, while the compaction that wrote `marker` still runs in another process, to touch its files. */
function refuseWhileRunning(paths: CompactionPaths, marker: Marker | undefined): void {
  if (marker && runningElsewhere(marker))
    throw new PeerpostError("state_io_error", `Another compaction of ${paths.live} is still running (process ${marker.pid}).`, {
      details: { path: paths.live, marker: paths.marker, pid: marker.pid },
      hint: "Let it finish; run `peerpost compact` again after it if need be. A large log takes a while to compact.",
    });
}

/** The archive's size, or 0 when there is none; its path is looked at, not followed (a link there is refused when opened). */
export function archiveSize(paths: CompactionPaths): number {
  try {
    return lstatSync(paths.archive).size;
  } catch {
    return 0;
  }
}

export function inode(path: string): number | undefined {
  try {
    return lstatSync(path).ino;
  } catch {
    return undefined;
  }
}

/** How much of the archive readers may read: all of it, except during a compaction not yet renamed in. */
export function committedArchiveBytes(paths: CompactionPaths): number {
  const size = archiveSize(paths);
  if (size === 0) return 0;
  const marker = readMarker(paths);
  if (marker && inode(paths.live) === marker.liveIno) return Math.min(size, marker.archiveBytes);
  return size;
}

export function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Appends the bytes of the file open as `source` from `start` to its end to the file open as `fd`; returns the end copied to. */
export function copyTail(source: number, start: number, fd: number, wanted?: (line: string) => boolean): number {
  const end = fstatSync(source).size;
  if (wanted) return copyWantedLines(source, start, end, fd, wanted);
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  let position = start;
  while (position < end) {
    const read = readSync(source, buffer, 0, Math.min(buffer.length, end - position), position);
    if (read === 0) break;
    writeAll(fd, buffer.subarray(0, read));
    position += read;
  }
  return position;
}

/** Up to `length` bytes of `fd` from `start` (fewer where the file ends sooner). */
function readRange(fd: number, start: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const got = readSync(fd, bytes, read, length - read, start + read);
    if (got === 0) break;
    read += got;
  }
  return bytes.subarray(0, read);
}

/** The whole lines of `bytes`, each with its newline, and where the last of them ends. */
function wholeLines(bytes: Buffer): { lines: Buffer[]; end: number } {
  const lines: Buffer[] = [];
  let start = 0;
  for (let newline = bytes.indexOf(0x0a); newline >= 0; start = newline + 1, newline = bytes.indexOf(0x0a, start)) lines.push(bytes.subarray(start, newline + 1));
  return { lines, end: start };
}

/** copyTail, but only the whole lines `wanted` takes (each with its newline, as latin1); a last line without its newline goes as it is. */
function copyWantedLines(source: number, start: number, end: number, fd: number, wanted: (line: string) => boolean): number {
  const bytes = readRange(source, start, end - start);
  const { lines, end: linesEnd } = wholeLines(bytes);
  const kept = lines.filter((line) => wanted(line.toString("latin1")));
  if (linesEnd < bytes.length) kept.push(bytes.subarray(linesEnd));
  if (kept.length > 0) writeAll(fd, Buffer.concat(kept));
  return start + bytes.length;
}

/**
 * Where eachLine sends a line too long to be a record, piece by piece as it is read, instead of holding it
 * whole: such a line is corrupt (read-lines.ts), and a compaction keeps every corrupt line, byte for byte.
 */
export interface LongLineSink {
  piece(bytes: Buffer): void;
  end(): void;
}

/**
 * Calls `visit` with each whole line of the file open as `source` in [from, to) (a view, valid during the
 * call), and gives `long` the lines past MAX_LINE_BYTES in pieces; returns where the last line ends.
 */
export function eachLine(source: number, from: number, to: number, buffer: Buffer, visit: (line: Buffer, offset: number) => void, long: LongLineSink): number {
  let position = from;
  let lineStart = from;
  // A line that runs past the chunk read: its parts so far, joined once its end is read. Joined at every
  // chunk instead, a line of 64 MiB took 22 s and 374 MB. Past MAX_LINE_BYTES, `long` gets them instead.
  let parts: Buffer[] = [];
  let partBytes = 0;
  let streaming = false;
  while (position < to) {
    const read = readSync(source, buffer, 0, Math.min(buffer.length, to - position), position);
    if (read === 0) break;
    const data = buffer.subarray(0, read);
    let index = 0;
    for (;;) {
      const newline = data.indexOf(0x0a, index);
      if (newline < 0) break;
      const end = data.subarray(index, newline + 1);
      if (streaming) {
        long.piece(end);
        long.end();
        lineStart += partBytes + end.length;
      } else {
        const line = parts.length > 0 ? Buffer.concat([...parts, end]) : end;
        visit(line, lineStart);
        lineStart += line.length;
      }
      parts = [];
      partBytes = 0;
      streaming = false;
      index = newline + 1;
    }
    if (index < read) {
      const rest = data.subarray(index);
      partBytes += rest.length;
      if (streaming) long.piece(rest);
      else parts.push(Buffer.from(rest));
      if (!streaming && partBytes > MAX_LINE_BYTES) {
        streaming = true;
        for (const part of parts) long.piece(part);
        parts = [];
      }
    }
    position += read;
  }
  return lineStart;
}

/** How far the old file with this inode was brought over already (0 when no record says). */
function broughtUpTo(paths: CompactionPaths, oldIno: number): number {
  try {
    const brought = JSON.parse(readStateFileIfAny(paths.brought) ?? "null") as Partial<Brought> | null;
    return brought?.v === 1 && brought.ino === oldIno && Number.isSafeInteger(brought.upTo) ? brought.upTo! : 0;
  } catch {
    return 0;
  }
}

/** Past this many bytes in the old tail or appended since a swap, step 4 copies the old tail whole: a line there twice is only a duplicate. */
const MAX_COMPARED_BYTES = 16 * 1024 * 1024;

/**
 * The lines the live file (`fd`) got since the swap from the old file with this inode, or undefined when
 * that is not known (no swap record) or too much to compare. A plain appender that found its file
 * replaced wrote its lines again there: copied once more from the old tail, after lines appended since,
 * they would replay an older record where the latest one wins (the sessions registry).
 */
function linesSinceSwap(paths: CompactionPaths, oldIno: number, fd: number): Set<string> | undefined {
  const swap = readSwap(paths);
  if (!swap || swap.fromIno !== oldIno) return undefined;
  const since = swap.keptBytes + (swap.copiedUpTo - swap.end);
  const size = fstatSync(fd).size;
  if (since < 0 || since > size || size - since > MAX_COMPARED_BYTES) return undefined;
  return new Set(wholeLines(readRange(fd, since, size - since)).lines.map((line) => line.toString("latin1")));
}

/**
 * Step 4 of a compaction renamed in: what the old file got past `copiedUpTo` (and past what a reader
 * brought over before), appended to the live file.
 * Only from the swap's own old file: another file under the old name is a later compaction's, and its
 * bytes past that offset mean nothing here. A missing old file was finished by the lock holder.
 */
function bringOverOldTail(paths: CompactionPaths, oldIno: number, copiedUpTo: number): void {
  let source: number;
  try {
    source = openStateFile(paths.old, constants.O_RDONLY);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    if (error instanceof PeerpostError) throw error;
    throw ioError("finish the interrupted compaction of", paths.live, error);
  }
  try {
    const old = fstatSync(source);
    const from = Math.max(copiedUpTo, broughtUpTo(paths, oldIno));
    if (old.ino !== oldIno || old.size <= from) return;
    const fd = openStateFile(paths.live, constants.O_RDWR | constants.O_APPEND);
    let upTo: number;
    try {
      const appended = old.size - from <= MAX_COMPARED_BYTES ? linesSinceSwap(paths, oldIno, fd) : undefined;
      upTo = appended ? copyTail(source, from, fd, (line) => !appended.has(line)) : copyTail(source, from, fd);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    writeStateFile(paths.brought, JSON.stringify({ v: 1, ino: oldIno, upTo } satisfies Brought), { sync: true });
  } catch (error) {
    if (error instanceof PeerpostError) throw error;
    throw ioError("finish the interrupted compaction of", paths.live, error);
  } finally {
    closeSync(source);
  }
}

/**
 * Step 4 for readers, without the lock, so they see every acknowledged line even when the compactor died
 * after its rename. It only appends (a line copied twice is harmless) and removes nothing: the marker and
 * the old file are the lock holder's, and by now they may be a later compaction's. Returns the swap it
 * brought over (or found done), so that a reader that passes it back does each swap once.
 */
export function finishRenamedCompaction(paths: CompactionPaths, finished?: string): string | undefined {
  const marker = readMarker(paths);
  if (marker?.copiedUpTo === undefined || inode(paths.live) === marker.liveIno) return finished;
  const swap = `${marker.liveIno}:${marker.copiedUpTo}`;
  if (swap !== finished) bringOverOldTail(paths, marker.liveIno, marker.copiedUpTo);
  return swap;
}

/** Cuts the archive back to `bytes`, through a descriptor checked as every state file's is. */
function cutArchive(paths: CompactionPaths, bytes: number): void {
  const fd = openStateFile(paths.archive, constants.O_WRONLY);
  try {
    ftruncateSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes a log's archive with every file of its compactions (a mirror started over from another
 * database); the caller holds the log's lock. The marker goes first: one left without its archive
 * would have a recovery cut a file that is not there.
 */
export function removeArchive(paths: CompactionPaths): void {
  // A compaction that outlived the lock still writes these files: not under it.
  refuseWhileRunning(paths, readMarker(paths));
  for (const path of [paths.marker, paths.next, paths.old, paths.brought, paths.swap, paths.archive]) rmSync(path, { force: true });
}

/**
 * Finishes or undoes a compaction that died; the caller holds the log's lock. Before its rename: the
 * archive is cut back to its size before (only compaction writes it) and the new file dropped. After:
 * step 4 is done again. Idempotent.
 */
export function recoverCompaction(paths: CompactionPaths): void {
  const marker = readMarker(paths);
  if (!marker) return;
  refuseWhileRunning(paths, marker);
  try {
    if (inode(paths.live) === marker.liveIno) {
      if (archiveSize(paths) > marker.archiveBytes) cutArchive(paths, marker.archiveBytes);
      rmSync(paths.next, { force: true });
    } else if (marker.copiedUpTo !== undefined) bringOverOldTail(paths, marker.liveIno, marker.copiedUpTo);
    rmSync(paths.old, { force: true });
    rmSync(paths.marker, { force: true });
    rmSync(paths.brought, { force: true });
  } catch (error) {
    if (error instanceof PeerpostError) throw error;
    throw ioError("recover the interrupted compaction of", paths.live, error);
  }
}
