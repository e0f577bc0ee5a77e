// Compaction of the file store's mailbox: messages that are resolved, expired, or read fyi, with their
// last activity older than the retention, move with all their events from mailbox.jsonl into
// mailbox.archive.jsonl. Open messages never move. Crash-safe by a marker and an atomic rename:
//   1. marker {archive size before, live file's inode};
//   2. the moved lines appended to the archive, the kept lines written to a new file;
//   3. the old file hard-linked as mailbox.jsonl.old, lines appended meanwhile copied, the new file renamed in;
//   4. lines that plain appenders wrote to the old file after that copy appended to the new one; marker removed.
// Readers read the archive only up to the marker's size until the rename, so a kill -9 at any step reads
// as before (no rename yet) or after (renamed: readers bring step 4's lines over without the lock, and the
// next compaction, under it, finishes the step and clears the marker). Duplicated lines are harmless:
// every fold keeps the first line of a message and the first of each decision.
import { closeSync, existsSync, fstatSync, fsyncSync, linkSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { type JsonlLog } from "../../log/log.js";
import { writeAll } from "../../log/kept-files.js";
import type { MailboxEvent } from "../../records/schemas.js";
import { applyEvent, emptyState, idempotencySlot, type MessageState } from "../../mail/fold.js";
import { FILE_MODE } from "../../security/state-dir.js";
import { PeerpostError, ioError } from "../../common/errors.js";
import { readStateFile } from "../../security/trust.js";

export type CompactionFault = "after-marker" | "after-archive" | "after-rename";

export interface CompactionOptions {
  retentionMs: number;
  now: number;
  /** Crash tests: SIGKILL this process at that step. */
  fault?: CompactionFault | undefined;
}

export interface CompactionResult {
  movedMessages: number;
  movedLines: number;
  keptLines: number;
  liveBytesBefore: number;
  liveBytesAfter: number;
  archiveBytes: number;
}

interface Marker {
  v: 1;
  archiveBytes: number;
  liveIno: number;
  /** Set just before the rename: how much of the old file the new one holds. */
  copiedUpTo?: number;
}

export interface CompactionPaths {
  live: string;
  archive: string;
  marker: string;
  old: string;
  next: string;
  /** Where the last swap's old file continues in the new one (see `Swap`). */
  swap: string;
}

export function compactionPaths(livePath: string): CompactionPaths {
  const base = livePath.replace(/\.jsonl$/, "");
  return { live: livePath, archive: `${base}.archive.jsonl`, marker: `${livePath}.compacting.json`, old: `${livePath}.old`, next: `${livePath}.next`, swap: `${livePath}.swapped.json` };
}

/**
 * The last swap, for readers that follow the live file by offset (`peerpost tail`): the new file holds
 * the kept lines of the old one's first `end` bytes (`keptBytes` of them), then the old file's bytes
 * from `end` to `copiedUpTo`, byte for byte. So an old offset X in [end, copiedUpTo] continues at
 * keptBytes + (X - end). (Lines the old file got later come after new writers' lines, copied again.)
 */
export interface Swap {
  v: 1;
  fromIno: number;
  toIno: number;
  end: number;
  copiedUpTo: number;
  keptBytes: number;
}

/** The last swap's record, or undefined when there is none or it cannot be read (a reader then resumes at the end). */
export function readSwap(paths: CompactionPaths): Swap | undefined {
  try {
    const swap = JSON.parse(readStateFile(paths.swap)) as Partial<Swap>;
    return swap.v === 1 && [swap.fromIno, swap.toIno, swap.end, swap.copiedUpTo, swap.keptBytes].every(Number.isSafeInteger) ? (swap as Swap) : undefined;
  } catch {
    return undefined;
  }
}

function readMarker(paths: CompactionPaths): Marker | undefined {
  try {
    return JSON.parse(readFileSync(paths.marker, "utf8")) as Marker;
  } catch {
    return undefined;
  }
}

function inode(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}

/** How much of the archive readers may read: all of it, except during a compaction not yet renamed in. */
export function committedArchiveBytes(paths: CompactionPaths): number {
  let size = 0;
  try {
    size = statSync(paths.archive).size;
  } catch {
    return 0;
  }
  const marker = readMarker(paths);
  if (marker && inode(paths.live) === marker.liveIno) return Math.min(size, marker.archiveBytes);
  return size;
}

function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Appends the bytes of the file open as `source` from `start` to its end to the file open as `fd`; returns the end copied to. */
function copyTail(source: number, start: number, fd: number): number {
  const end = fstatSync(source).size;
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

/** Calls `visit` with each whole line of the file open as `source` in [from, to) (a view, valid during the call); returns where the last one ends. */
function eachLine(source: number, from: number, to: number, buffer: Buffer, visit: (line: Buffer, offset: number) => void): number {
  let position = from;
  let lineStart = from;
  let carry = Buffer.alloc(0);
  while (position < to) {
    const read = readSync(source, buffer, 0, Math.min(buffer.length, to - position), position);
    if (read === 0) break;
    const data = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, read)]) : buffer.subarray(0, read);
    let index = 0;
    for (;;) {
      const newline = data.indexOf(0x0a, index);
      if (newline < 0) break;
      visit(data.subarray(index, newline + 1), lineStart);
      lineStart += newline + 1 - index;
      index = newline + 1;
    }
    carry = Buffer.from(data.subarray(index));
    position += read;
  }
  return lineStart;
}

/**
 * Step 4 of a compaction renamed in: what the old file got past `copiedUpTo`, appended to the live file.
 * Only from the swap's own old file: another file under the old name is a later compaction's, and its
 * bytes past that offset mean nothing here. A missing old file was finished by the lock holder.
 */
function bringOverOldTail(paths: CompactionPaths, oldIno: number, copiedUpTo: number): void {
  let source: number;
  try {
    source = openSync(paths.old, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw ioError("finish the interrupted compaction of", paths.live, error);
  }
  try {
    const old = fstatSync(source);
    if (old.ino !== oldIno || old.size <= copiedUpTo) return;
    const fd = openSync(paths.live, "a");
    try {
      copyTail(source, copiedUpTo, fd);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
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

/**
 * Finishes or undoes a compaction that died; the caller holds the log's lock. Before its rename: the
 * archive is cut back to its size before (only compaction writes it) and the new file dropped. After:
 * step 4 is done again. Idempotent.
 */
function recoverCompaction(paths: CompactionPaths): void {
  const marker = readMarker(paths);
  if (!marker) return;
  try {
    if (inode(paths.live) === marker.liveIno) {
      if (existsSync(paths.archive) && statSync(paths.archive).size > marker.archiveBytes) truncateSync(paths.archive, marker.archiveBytes);
      rmSync(paths.next, { force: true });
    } else if (marker.copiedUpTo !== undefined) bringOverOldTail(paths, marker.liveIno, marker.copiedUpTo);
    rmSync(paths.old, { force: true });
    rmSync(paths.marker, { force: true });
  } catch (error) {
    if (error instanceof PeerpostError) throw error;
    throw ioError("recover the interrupted compaction of", paths.live, error);
  }
}

function lastActivity(message: MessageState): number {
  const times = [message.sentAt, message.read?.at, message.resolved?.at, message.reminders.lastAt, message.replyBy].filter((time): time is string => time !== undefined);
  return Math.max(...times.map((time) => Date.parse(time)));
}

/** Whether a message is done with and old enough to leave the live log. */
function movable(message: MessageState, cutoff: number, now: number): boolean {
  if (lastActivity(message) >= cutoff) return false;
  if (message.resolved) return true;
  if (message.replyBy !== undefined && Date.parse(message.replyBy) < now) return true;
  return message.anticipation === "fyi" && message.read !== undefined;
}

function die(fault: CompactionFault | undefined, at: CompactionFault): void {
  if (fault === at) process.kill(process.pid, "SIGKILL");
}

/** What pass 1 keeps of a message it no longer folds: whether it was read, the reply its resolution named, the request it answers. */
interface Retired {
  read: boolean;
  replyId?: string;
  inReplyTo?: string;
}
const RETIRED_READ: Retired = Object.freeze({ read: true });
const RETIRED_UNREAD: Retired = Object.freeze({ read: false });

function retiredRecord(message: MessageState): Retired {
  const replyId = message.resolved?.replyId;
  if (replyId === undefined && message.inReplyTo === undefined) return message.read ? RETIRED_READ : RETIRED_UNREAD;
  return { read: message.read !== undefined, ...(replyId !== undefined ? { replyId } : {}), ...(message.inReplyTo !== undefined ? { inReplyTo: message.inReplyTo } : {}) };
}

/**
 * Pass 1: which messages move, in memory that follows the unresolved messages, not the log. The fold
 * (fold.ts) runs as it does everywhere, but a message resolved with its last activity past the retention
 * leaves the state for a small record (most of a large log is such messages, and a whole state of them
 * took over 1 KB each). A later line about it that could still change that (a first read or a reminder
 * dated past the cutoff) keeps it in the live log: this moves a subset of what the whole fold would, never more.
 */
class MovingMessages {
  private readonly state = emptyState();
  private readonly retired = new Map<string, Retired>();
  private readonly keptAnyway = new Set<string>();
  /**
   * Messages the fold drops → the message they go with: a reply a resolution that lost in log order named
   * → its request; a send that repeated an idempotency key → the first send with it.
   */
  private readonly dropped = new Map<string, string>();
  private stillFolded: Set<string> | undefined;

  constructor(
    private readonly cutoff: number,
    private readonly now: number,
  ) {}

  apply(event: MailboxEvent, offset: number): void {
    if (event.type === "role") return applyEvent(this.state, event, offset, () => true);
    if (event.type === "msg" && event.idempotencyKey !== undefined) {
      // A send that repeated a key lost in log order (fold.ts) and is no message: it goes where the first goes,
      // or a live log without the first would fold it as mail.
      const first = this.state.idempotency[idempotencySlot(event.from, event.idempotencyKey)];
      if (first !== undefined && first !== event.id) return void this.dropped.set(event.id, first);
    }
    const retired = this.retired.get(event.id);
    if (event.type === "resolved" && event.replyId !== undefined) {
      const first = retired ?? this.state.messages[event.id]?.resolved;
      if (first && first.replyId !== event.replyId) this.dropReply(event.replyId, event.id);
    }
    if (retired) {
      // Only these can add to its last activity (its first resolution and first read stand; deliveries and notices do not count).
      const couldCount = event.type === "reminder" || (event.type === "read" && !retired.read);
      if (couldCount && Date.parse(event.at) >= this.cutoff) this.keptAnyway.add(event.id);
      return;
    }
    applyEvent(this.state, event, offset, () => true);
    const message = this.state.messages[event.id];
    // Role mail stays folded: a handover changes it without naming it.
    if (message?.resolved && message.via === undefined && movable(message, this.cutoff, this.now)) {
      this.retired.set(message.id, retiredRecord(message));
      delete this.state.messages[message.id];
    }
  }

  /**
   * A resolution that lost in log order: the fold drops the reply it names, if that reply answers this
   * request (fold.ts). Done here for a reply retired too; the dropped reply goes where its request goes.
   */
  private dropReply(replyId: string, requestId: string): void {
    const inReplyTo = this.state.messages[replyId]?.inReplyTo ?? this.retired.get(replyId)?.inReplyTo;
    if (inReplyTo !== requestId) return;
    delete this.state.messages[replyId];
    this.retired.delete(replyId);
    this.dropped.set(replyId, requestId);
  }

  /** Once every line is applied: whether the message with this id moves. */
  moves(id: string): boolean {
    this.stillFolded ??= new Set(Object.values(this.state.messages).filter((message) => movable(message, this.cutoff, this.now)).map((message) => message.id));
    const followed = new Set<string>();
    for (let current: string | undefined = id; current !== undefined && !followed.has(current); current = this.dropped.get(current)) {
      if (this.keptAnyway.has(current)) return false;
      if (this.retired.has(current) || this.stillFolded.has(current)) return true;
      if (this.state.messages[current]) return false;
      followed.add(current);
    }
    return false;
  }

  /** Messages that move (a dropped message goes with the one it follows, but is no message of its own). */
  count(): number {
    let count = 0;
    for (const id of this.retired.keys()) if (this.moves(id)) count++;
    for (const id of Object.keys(this.state.messages)) if (this.moves(id)) count++;
    return count;
  }
}

/** Lines bound for one file, gathered into one buffer and written when it fills: no allocation per line. */
class LineWriter {
  private readonly buffer = Buffer.allocUnsafe(4 * 1024 * 1024);
  private length = 0;
  lines = 0;

  constructor(private readonly fd: number) {}

  add(line: Buffer): void {
    this.lines++;
    if (this.length + line.length > this.buffer.length) this.flush();
    if (line.length > this.buffer.length) return writeAll(this.fd, line);
    line.copy(this.buffer, this.length);
    this.length += line.length;
  }

  flush(): void {
    writeAll(this.fd, this.buffer.subarray(0, this.length));
    this.length = 0;
  }
}

/** Lines per batch of pass 2: its decisions are kept only for the batch being copied. */
const BATCH_LINES = 20_000;

/** Compacts the mailbox log; the caller holds the log's lock (no deciding append runs meanwhile). */
export function compactLog(log: JsonlLog<MailboxEvent>, options: CompactionOptions): CompactionResult {
  const paths = compactionPaths(log.path);
  recoverCompaction(paths);
  const liveBytesBefore = log.identity()?.size ?? 0;
  const archiveBefore = existsSync(paths.archive) ? statSync(paths.archive).size : 0;
  const result: CompactionResult = { movedMessages: 0, movedLines: 0, keptLines: 0, liveBytesBefore, liveBytesAfter: liveBytesBefore, archiveBytes: archiveBefore };
  if (liveBytesBefore === 0) return result;
  // Pass 1: which messages move. Events about messages not in this log (none normally) stay.
  const moving = new MovingMessages(options.now - options.retentionMs, options.now);
  const end = log.scan(0, (entry) => moving.apply(entry.record, entry.offset)).next;
  result.movedMessages = moving.count();
  if (result.movedMessages === 0) return result;
  writeFileSync(paths.marker, JSON.stringify({ v: 1, archiveBytes: archiveBefore, liveIno: inode(paths.live)! } satisfies Marker), { mode: FILE_MODE });
  fsyncPath(paths.marker);
  die(options.fault, "after-marker");
  // Pass 2: the moved lines to the archive, the kept lines (corrupt ones too: never dropped) to the new file.
  const archiveFd = openSync(paths.archive, "a", FILE_MODE);
  const nextFd = openSync(paths.next, "w", FILE_MODE);
  const source = openSync(paths.live, "r");
  try {
    const moved = new LineWriter(archiveFd);
    const kept = new LineWriter(nextFd);
    // In batches of lines: each batch's records are read again for their ids (corrupt lines have none and
    // stay), then its bytes are copied line by line to where they go.
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    let position = 0;
    while (position < end) {
      const moves = new Set<number>();
      const batchEnd = log.scan(position, (entry) => void (moving.moves(entry.record.id) && moves.add(entry.offset)), { until: end, maxLines: BATCH_LINES }).next;
      // Pass 1 ended at a line end and the lock holds other compactions off: short of that, the file changed.
      if (batchEnd <= position || eachLine(source, position, batchEnd, buffer, (line, offset) => (moves.has(offset) ? moved : kept).add(line)) !== batchEnd)
        throw new PeerpostError("state_io_error", `The mailbox changed under its compaction near byte ${position}; nothing was moved.`, {
          details: { path: log.path },
          hint: "Another program may be writing to or truncating the file; `peerpost doctor` inspects it, then run `peerpost compact` again.",
        });
      position = batchEnd;
    }
    moved.flush();
    kept.flush();
    result.movedLines = moved.lines;
    result.keptLines = kept.lines;
    fsyncSync(archiveFd);
    die(options.fault, "after-archive");
    // Step 3: lines appended since pass 1, then the swap. The old file stays linked until step 4.
    const keptBytes = fstatSync(nextFd).size;
    const copiedUpTo = copyTail(source, end, nextFd);
    fsyncSync(nextFd);
    rmSync(paths.old, { force: true });
    linkSync(paths.live, paths.old);
    const liveIno = inode(paths.live)!;
    writeFileSync(paths.marker, JSON.stringify({ v: 1, archiveBytes: archiveBefore, liveIno, copiedUpTo } satisfies Marker), { mode: FILE_MODE });
    fsyncPath(paths.marker);
    // Derived, for followers only: not fsynced (a follower that finds none resumes at the end).
    writeFileSync(paths.swap, JSON.stringify({ v: 1, fromIno: liveIno, toIno: fstatSync(nextFd).ino, end, copiedUpTo, keptBytes } satisfies Swap), { mode: FILE_MODE });
    renameSync(paths.next, paths.live);
    fsyncPath(dirname(paths.live));
    die(options.fault, "after-rename");
  } finally {
    closeSync(source);
    closeSync(archiveFd);
    closeSync(nextFd);
  }
  recoverCompaction(paths);
  result.liveBytesAfter = log.identity()?.size ?? 0;
  result.archiveBytes = statSync(paths.archive).size;
  return result;
}
