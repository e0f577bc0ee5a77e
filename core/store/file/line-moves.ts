// Steps 1–4 of a compaction of any log of the file store (compaction.ts describes them, compaction-swap.ts
// keeps their files): once a first pass decided where each line goes, the lines bound for the archive are
// appended to it, the kept ones written to a new file, the lines appended meanwhile copied, and the new
// file renamed in under the marker. A line goes to the archive, stays, or is dropped (a line the log's
// fold no longer needs: a session's superseded heartbeat). Corrupt lines always stay: never dropped.
import { closeSync, constants, fstatSync, fsyncSync, linkSync, renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { type JsonlLog } from "../../log/log.js";
import type { LogEntry } from "../../log/types.js";
import { writeAll } from "../../log/kept-files.js";
import { openEmptiedStateFile, openStateFile } from "../../security/trust.js";
import { PeerpostError } from "../../common/errors.js";
import { archiveSize, copyTail, eachLine, fsyncPath, inode, recordSwap, recoverCompaction, writeMarker, type CompactionPaths, type LongLineSink } from "./compaction-swap.js";

export type CompactionFault = "after-marker" | "after-archive" | "after-rename" | "stop-after-marker";

/** Where a line goes: a valid record's line moves to the archive, stays in the live log, or is dropped. */
export type LinePlace = "archive" | "keep" | "drop";

export interface LineMoves {
  movedLines: number;
  keptLines: number;
  droppedLines: number;
}

/** Crash tests: at the step the fault names, killed; or, for `stop-…`, stopped until SIGCONT (a compaction that outlives its lock). */
function die(fault: CompactionFault | undefined, at: Exclude<CompactionFault, `stop-${string}`>): void {
  if (fault === at) process.kill(process.pid, "SIGKILL");
  if (fault === `stop-${at}`) process.kill(process.pid, "SIGSTOP");
}

/** Lines bound for one file, gathered into one buffer and written when it fills: no allocation per line. */
class LineWriter implements LongLineSink {
  private readonly buffer = Buffer.allocUnsafe(4 * 1024 * 1024);
  private length = 0;
  lines = 0;

  constructor(private readonly fd: number | undefined) {}

  add(line: Buffer): void {
    this.lines++;
    this.piece(line);
  }

  /** Bytes of a line given in pieces (eachLine's long lines), counted once its `end` comes. */
  piece(bytes: Buffer): void {
    if (this.fd === undefined) return;
    if (this.length + bytes.length > this.buffer.length) this.flush();
    if (bytes.length > this.buffer.length) return writeAll(this.fd, bytes);
    bytes.copy(this.buffer, this.length);
    this.length += bytes.length;
  }

  end(): void {
    this.lines++;
  }

  flush(): void {
    if (this.fd !== undefined) writeAll(this.fd, this.buffer.subarray(0, this.length));
    this.length = 0;
  }
}

function changedUnder(path: string, position: number): PeerpostError {
  return new PeerpostError("state_io_error", `${path} changed under its compaction near byte ${position}; nothing was moved.`, {
    details: { path },
    hint: "Another program may be writing to or truncating the file; `peerpost doctor` inspects it, then run `peerpost compact` again.",
  });
}

/** Lines per batch of pass 2: its decisions are kept only for the batch being copied. */
const BATCH_LINES = 20_000;

/**
 * Where each line goes: by its record, read again batch by batch (corrupt lines stay), or by its offset
 * (and its bytes) alone, when the first pass already knows: then the lines are copied without being
 * parsed again, and the caller keeps corrupt lines itself.
 */
export type Placement<T> = ((entry: LogEntry<T>) => LinePlace) | { atOffset: (offset: number, line: Buffer) => LinePlace };

/**
 * Moves the lines of the live log before `end` (where the caller's first pass ended, at a line end) as
 * `place` says, then swaps the new file in. The caller holds the log's lock and found something to move.
 * Every file is opened as every state file is (trust.ts): never through a link, only a private file of
 * this user; and before the marker is written, so a file refused leaves no compaction to undo.
 */
export function moveLines<T>(log: JsonlLog<T>, paths: CompactionPaths, end: number, place: Placement<T>, fault?: CompactionFault): LineMoves {
  const archiveBefore = archiveSize(paths);
  const opened: number[] = [];
  const held = (fd: number) => (opened.push(fd), fd);
  let moves: LineMoves;
  try {
    const archiveFd = held(openStateFile(paths.archive, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT));
    const nextFd = held(openEmptiedStateFile(paths.next));
    const source = held(openStateFile(paths.live, constants.O_RDONLY));
    // From here on, another compaction that finds the marker knows these files are in use (compaction-swap.ts).
    writeMarker(paths, { v: 1, archiveBytes: archiveBefore, liveIno: inode(paths.live)! });
    die(fault, "after-marker");
    // Pass 2: the moved lines to the archive, the kept lines (corrupt ones too: never dropped) to the new file.
    const moved = new LineWriter(archiveFd);
    const kept = new LineWriter(nextFd);
    const dropped = new LineWriter(undefined);
    const writers = { archive: moved, drop: dropped };
    // In batches of lines: each batch's records are read again for where they go (corrupt lines have no
    // record and stay), then its bytes are copied line by line there. A line too long to be a record is
    // corrupt, and stays: eachLine gives it to `kept` in pieces as it reads it.
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    let position = 0;
    // Where the last run of kept lines before `end` starts (the swap's record: Swap.tailFrom).
    let tailFrom = 0;
    const byRecord = typeof place === "function" ? place : undefined;
    if (!byRecord) {
      const { atOffset } = place as { atOffset: (offset: number, line: Buffer) => LinePlace };
      const copied = eachLine(source, 0, end, buffer, (line, offset) => {
        const to = atOffset(offset, line);
        if (to !== "keep") tailFrom = offset + line.length;
        (to === "keep" ? kept : writers[to]).add(line);
      }, kept);
      if (copied !== end) throw changedUnder(log.path, copied);
      position = end;
    }
    while (byRecord && position < end) {
      const away = new Map<number, LineWriter>();
      const batchEnd = log.scan(position, (entry) => {
        const to = byRecord(entry);
        if (to === "keep") return;
        away.set(entry.offset, writers[to]);
        tailFrom = entry.end;
      }, { until: end, maxLines: BATCH_LINES }).next;
      // Pass 1 ended at a line end and the lock holds other compactions off: short of that, the file changed.
      if (batchEnd <= position || eachLine(source, position, batchEnd, buffer, (line, offset) => (away.get(offset) ?? kept).add(line), kept) !== batchEnd) throw changedUnder(log.path, position);
      position = batchEnd;
    }
    moved.flush();
    kept.flush();
    fsyncSync(archiveFd);
    die(fault, "after-archive");
    // Step 3: lines appended since pass 1, then the swap. The old file stays linked until step 4.
    const keptBytes = fstatSync(nextFd).size;
    const copiedUpTo = copyTail(source, end, nextFd);
    fsyncSync(nextFd);
    rmSync(paths.old, { force: true });
    linkSync(paths.live, paths.old);
    const liveIno = inode(paths.live)!;
    writeMarker(paths, { v: 1, archiveBytes: archiveBefore, liveIno, copiedUpTo });
    recordSwap(paths, { fromIno: liveIno, toIno: fstatSync(nextFd).ino, end, copiedUpTo, keptBytes, tailFrom });
    renameSync(paths.next, paths.live);
    fsyncPath(dirname(paths.live));
    die(fault, "after-rename");
    moves = { movedLines: moved.lines, keptLines: kept.lines, droppedLines: dropped.lines };
  } finally {
    for (const fd of opened) closeSync(fd);
  }
  // Step 4: the old file's lines appended since the copy, brought over; the marker removed.
  recoverCompaction(paths);
  return moves;
}
