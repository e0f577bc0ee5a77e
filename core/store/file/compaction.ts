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
import { existsSync, statSync } from "node:fs";
import { type JsonlLog } from "../../log/log.js";
import type { MailboxEvent } from "../../records/schemas.js";
import { applyEvent, emptyState, idempotencySlot, type MessageState } from "../../mail/fold.js";
import { compactionPaths, recoverCompaction } from "./compaction-swap.js";
import { moveLines, type CompactionFault } from "./line-moves.js";

export type { CompactionFault } from "./line-moves.js";

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
  const moves = moveLines(log, paths, end, (entry) => (moving.moves(entry.record.id) ? "archive" : "keep"), options.fault);
  result.movedLines = moves.movedLines;
  result.keptLines = moves.keptLines;
  result.liveBytesAfter = log.identity()?.size ?? 0;
  result.archiveBytes = statSync(paths.archive).size;
  return result;
}
