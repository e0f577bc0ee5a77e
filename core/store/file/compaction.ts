// Compaction of the file store's mailbox: messages that are resolved, expired, or read fyi, with their
// last activity older than the retention, move with all their events from mailbox.jsonl into
// mailbox.archive.jsonl. Open messages never move, nor role mail that a role event could still change. Claims that ended and finished tasks move by rules of
// their own (work-moves.ts). Crash-safe by a marker and an atomic rename:
//   1. marker {archive size before, live file's inode};
//   2. the moved lines appended to the archive, the kept lines written to a new file;
//   3. the old file hard-linked as mailbox.jsonl.old, lines appended meanwhile copied, the new file renamed in;
//   4. lines that plain appenders wrote to the old file after that copy appended to the new one; marker removed.
// Readers read the archive only up to the marker's size until the rename, so a kill -9 at any step reads
// as before (no rename yet) or after (renamed: readers bring step 4's lines over without the lock, and the
// next compaction, under it, finishes the step and clears the marker). Duplicated lines are harmless:
// every fold keeps the first line of a message and the first of each decision.
import { type JsonlLog } from "../../log/log.js";
import { parseLine } from "../../log/read-lines.js";
import type { RecordSchema } from "../../log/types.js";
import type { MailboxEvent } from "../../records/schemas.js";
import { applyEvent, emptyState, expectsResolution, idempotencySlot, type MessageState } from "../../mail/fold.js";
import { UlidTable, hash32, type UlidEntry } from "./ulid-table.js";
import { archiveSize, compactionPaths, recoverCompaction, type CompactionPaths } from "./compaction-swap.js";
import { moveLines, type CompactionFault } from "./line-moves.js";
import { MovingWork } from "./work-moves.js";

export type { CompactionFault } from "./line-moves.js";

/** Messages a round retires by default: its table of them takes about 40 MB. */
const ROUND_MESSAGES = 1_000_000;

export interface CompactionOptions {
  retentionMs: number;
  now: number;
  /** Crash tests: SIGKILL this process at that step. */
  fault?: CompactionFault | undefined;
  /** Visits the task lines the archive holds (committed), which readers fold before the live log's. */
  archivedTasks?: ((visit: (entry: { record: MailboxEvent }) => void) => void) | undefined;
  /** Most messages a round retires (its memory); a log with more takes more rounds. Default 1,000,000. */
  roundMessages?: number | undefined;
  /** A database's mirror: its last line stays (its sync resumes after it), with the message it is about whole. */
  keepLastLine?: boolean | undefined;
}

export interface CompactionResult {
  movedMessages: number;
  /** Claim and release lines moved (claims.ts's rule: claims that ended before the retention). */
  movedClaimLines: number;
  /** Tasks moved with their lines: done or failed before the retention, with every task linked to them. */
  movedTasks: number;
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

/** Whether a message is done with and old enough to leave the live log (asked after each of its lines: the dates are parsed only for one done with). */
function movable(message: MessageState, cutoff: number, now: number): boolean {
  const done = Boolean(message.resolved) || (message.replyBy !== undefined && Date.parse(message.replyBy) < now) || (message.anticipation === "fyi" && message.read !== undefined);
  return done && lastActivity(message) < cutoff;
}

/**
 * Role mail that reads the same in a fold of the archive first, where every role event of the live log
 * comes after it, as in the live log's fold: handed over never (a handover's role event would stay live,
 * and the resolution by the new holder would not count before it), resolved or fyi a holder has (a role
 * event hands neither over), and carrying no procedure (the first role message of each holder carries the
 * role's procedure: moved, the holder's next one would carry it again). Other role mail stays.
 */
function settledRoleMail(message: MessageState): boolean {
  return !message.handovers?.length && message.procedure === undefined && message.to !== message.via && (message.resolved !== undefined || !expectsResolution(message));
}

/**
 * What pass 1 keeps of a message it no longer folds (ulid-table.ts): whether it was read and resolved;
 * a hash of the reply its resolution named, or while it is unresolved of its recipient (whose resolution
 * alone counts, fold.ts); and a hash of the request it answers.
 */
const RETIRED_READ = 1;
const RETIRED_RESOLVED = 2;

/**
 * What a retired message with an idempotency key counts for against a round's room: the fold keeps its
 * slot (sender and key, which a later repeat is checked against) as a string, about four table entries.
 */
const KEYED_ROOM = 4;

function retiredEntry(message: MessageState): UlidEntry {
  const replyId = message.resolved?.replyId;
  const flags = (message.read ? RETIRED_READ : 0) | (message.resolved ? RETIRED_RESOLVED : 0);
  const a = message.resolved ? (replyId === undefined ? 0 : hash32(replyId)) : hash32(message.to);
  return { flags, a, b: message.inReplyTo === undefined ? 0 : hash32(message.inReplyTo) };
}

/**
 * Pass 1: which messages move, in memory that follows the open messages, not the log. The fold
 * (fold.ts) runs as it does everywhere, but a message done with (resolved, expired, or fyi and read) and
 * idle past the retention leaves the state for a few bytes in a table of ids (most of a large log is such
 * messages, and a whole state of them took over 1 KB each). A later line about it that could still change
 * that (a first read or resolution, or a reminder, dated past the cutoff) keeps it in the live log: this
 * moves a subset of what the whole fold would, never more. Of a retired message's reply and request only 32-bit hashes are kept: a later,
 * losing resolution is compared with them (a false match, 1 in 4 billion, leaves a reply in the mail).
 *
 * The table holds at most `maxRetired` ids, a keyed one counting KEYED_ROOM. Once it is full (the
 * round's horizon), a message sent before that stays folded and still moves, but one sent after leaves
 * the fold when it is done, and stays with every line about it, for the next round. A resolution that meets such a message as its request or its
 * reply cannot tell whether it lost: the other message it names stays too. A repeat of its idempotency
 * key is then folded as a message of its own, and stays too.
 */
class MovingMessages {
  private readonly state = emptyState();
  /** Where pass 1 is in the log: the table of retired messages grows to what the log's rest would add at this rate. */
  private offset = 0;
  private readonly retired = new UlidTable((count) => Math.min(this.maxRetired, Math.max(count * 1.25, (count * this.liveBytes * 1.1) / Math.max(this.offset, 1))));
  /** Where the table filled: messages first sent past it are the next round's. */
  horizon: number | undefined;
  /** Room the retired messages take, in table entries (KEYED_ROOM). */
  private room = 0;
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
    private readonly liveBytes: number,
    private readonly maxRetired: number,
  ) {}

  apply(event: MailboxEvent, offset: number): void {
    this.offset = offset;
    if (event.type === "role") return applyEvent(this.state, event, offset, () => true);
    if (event.type === "msg" && event.idempotencyKey !== undefined) {
      // A send that repeated a key lost in log order (fold.ts) and is no message: it goes where the first goes,
      // or a live log without the first would fold it as mail.
      const first = this.state.idempotency[idempotencySlot(event.from, event.idempotencyKey)];
      if (first !== undefined && first !== event.id) return void this.dropped.set(event.id, first);
    }
    const retired = this.retired.get(event.id);
    if (event.type === "resolved" && event.replyId !== undefined) {
      const request = this.state.messages[event.id];
      if (!retired && !request) {
        // Its request left the fold past the horizon (or is not in this log). A dropped reply cannot be dropped again, and goes where its request goes.
        if (this.horizon !== undefined && !this.dropped.has(event.replyId)) this.keptAnyway.add(event.replyId);
      } else {
        const folded = request?.resolved;
        const differs = retired ? (retired.flags & RETIRED_RESOLVED) !== 0 && retired.a !== hash32(event.replyId) : folded !== undefined && folded.replyId !== event.replyId;
        // A resolution by another than the recipient (a holder the role moved away from) drops its reply too (fold.ts).
        const notRecipient = retired ? (retired.flags & RETIRED_RESOLVED) === 0 && retired.a !== hash32(event.by) : folded === undefined && request!.to !== event.by;
        if (differs || notRecipient) this.dropReply(event.replyId, event.id);
      }
    }
    if (retired) {
      // Only these can add to its last activity (its first resolution and first read stand; deliveries and notices do not count).
      const couldCount = event.type === "reminder" || (event.type === "read" && (retired.flags & RETIRED_READ) === 0);
      if (couldCount && Date.parse(event.at) >= this.cutoff) this.keptAnyway.add(event.id);
      // An expired request or a read fyi resolved by its recipient after it retired: later resolutions lose to this one.
      if (event.type === "resolved" && (retired.flags & RETIRED_RESOLVED) === 0 && hash32(event.by) === retired.a) {
        if (Date.parse(event.at) >= this.cutoff) this.keptAnyway.add(event.id);
        this.retired.replace(event.id, { flags: retired.flags | RETIRED_RESOLVED, a: event.replyId === undefined ? 0 : hash32(event.replyId), b: retired.b });
      }
      return;
    }
    applyEvent(this.state, event, offset, () => true);
    const message = this.state.messages[event.id];
    // Role mail the fold gave another recipient than its line names (the role moved as it was sent): a
    // fold of the archive first would not, so it stays.
    if (event.type === "msg" && message?.via !== undefined && message.to !== event.to) this.keep(event.id);
    if (!message || !movable(message, this.cutoff, this.now)) return;
    if (this.horizon !== undefined && message.offset >= this.horizon) return this.leave(message);
    // Role mail stays folded, and moves only once settled (see `moves`). An id the table cannot hold stays folded.
    if (message.via !== undefined) return;
    if (this.horizon === undefined && this.room < this.maxRetired) {
      if (!this.retired.set(message.id, retiredEntry(message))) return;
      delete this.state.messages[message.id];
      this.room += message.idempotencyKey === undefined ? 1 : KEYED_ROOM;
      return;
    }
    this.horizon ??= offset;
  }

  /** A message sent past the horizon and done with leaves the fold, its idempotency slot too: it stays for the next round. */
  private leave(message: MessageState): void {
    delete this.state.messages[message.id];
    const slot = message.idempotencyKey === undefined ? undefined : idempotencySlot(message.from, message.idempotencyKey);
    if (slot !== undefined && this.state.idempotency[slot] === message.id) delete this.state.idempotency[slot];
  }

  /**
   * A resolution that lost in log order: the fold drops the reply it names, if that reply answers this
   * request (fold.ts). Done here for a reply retired too; the dropped reply goes where its request goes.
   */
  private dropReply(replyId: string, requestId: string): void {
    const folded = this.state.messages[replyId];
    const retired = folded ? undefined : this.retired.get(replyId);
    // A reply sent past the horizon and done with left the fold: its request stays.
    if (!folded && !retired && this.horizon !== undefined) return void this.keptAnyway.add(requestId);
    const answers = folded ? folded.inReplyTo === requestId : retired?.b === hash32(requestId);
    if (!answers) return;
    delete this.state.messages[replyId];
    this.retired.delete(replyId);
    this.dropped.set(replyId, requestId);
  }

  /**
   * Keeps the message with this id in the live log, with every message it goes with (a reply or a repeat
   * the fold drops goes where its own goes: left alone in the live log, it would read as mail again).
   */
  keep(id: string): void {
    for (let current: string | undefined = id; current !== undefined && !this.keptAnyway.has(current); current = this.dropped.get(current)) this.keptAnyway.add(current);
  }

  /** Once every line is applied: whether the message with this id moves. */
  moves(id: string): boolean {
    this.stillFolded ??= new Set(Object.values(this.state.messages).filter((message) => movable(message, this.cutoff, this.now) && (message.via === undefined || settledRoleMail(message))).map((message) => message.id));
    // Asked for every line of pass 2: the set that stops a cycle of dropped messages is made only when one is followed.
    let followed: Set<string> | undefined;
    for (let current: string | undefined = id; current !== undefined; current = this.dropped.get(current)) {
      if (this.keptAnyway.has(current)) return false;
      if (this.retired.has(current) || this.stillFolded.has(current)) return true;
      if (this.state.messages[current]) return false;
      followed ??= new Set();
      if (followed.has(current)) return false;
      followed.add(current);
    }
    return false;
  }

  /** Messages that move (a dropped message goes with the one it follows, but is no message of its own). */
  count(): number {
    let kept = 0;
    for (const id of this.keptAnyway) if (this.retired.has(id)) kept++;
    let count = this.retired.size - kept;
    for (const id of Object.keys(this.state.messages)) if (this.moves(id)) count++;
    return count;
  }
}

const ID_PREFIX = Buffer.from('{"v":1,"type":"');
const ID_KEY = Buffer.from('","id":"');
const ID_FIELD = Buffer.from('"id":"');
const ID_LENGTH = 26;
const QUOTE = 0x22;
const LOWER_A = 0x61;
const LOWER_Z = 0x7a;

/**
 * The id of a line's record, read from its bytes when peerpost wrote it (`{"v":1,"type":"…","id":"…"`,
 * and no other "id" key, which only a key can spell unescaped), else from the parsed record; undefined
 * for a line that is no valid record (the caller keeps those) or a record without one.
 */
function idOf(line: Buffer, schema: RecordSchema<MailboxEvent>, offset: number): string | undefined {
  if (line.subarray(0, ID_PREFIX.length).equals(ID_PREFIX)) {
    let key = ID_PREFIX.length;
    while (key < line.length && line[key]! >= LOWER_A && line[key]! <= LOWER_Z) key++;
    const start = key + ID_KEY.length;
    if (line.subarray(key, start).equals(ID_KEY) && line[start + ID_LENGTH] === QUOTE && line.indexOf(ID_FIELD, start) < 0) return line.toString("latin1", start, start + ID_LENGTH);
  }
  let id: string | undefined;
  const ignored = { next: 0, corrupt: [], tornTail: false };
  parseLine(schema, line.subarray(0, line.length - 1), offset, (entry) => (id = (entry.record as { id?: string }).id), ignored);
  return id;
}

/** Compacts the mailbox log; the caller holds the log's lock (no deciding append runs meanwhile). */
export function compactLog(log: JsonlLog<MailboxEvent>, options: CompactionOptions): CompactionResult {
  const paths = compactionPaths(log.path);
  recoverCompaction(paths);
  const liveBytesBefore = log.identity()?.size ?? 0;
  const result: CompactionResult = { movedMessages: 0, movedClaimLines: 0, movedTasks: 0, movedLines: 0, keptLines: 0, liveBytesBefore, liveBytesAfter: liveBytesBefore, archiveBytes: archiveSize(paths) };
  // Rounds, each in bounded memory, until one ends short of its table's horizon. A round that filled its
  // table with messages that all had to stay moved nothing: the next one gets twice the room.
  let roundMessages = options.roundMessages ?? ROUND_MESSAGES;
  for (let more = liveBytesBefore > 0; more; ) {
    const round = compactRound(log, paths, options, roundMessages);
    result.movedMessages += round.movedMessages;
    result.movedClaimLines += round.movedClaimLines;
    result.movedTasks += round.movedTasks;
    result.movedLines += round.movedLines;
    if (round.movedLines > 0) result.keptLines = round.keptLines;
    else roundMessages *= 2;
    more = round.stoppedAtHorizon;
  }
  result.liveBytesAfter = log.identity()?.size ?? 0;
  result.archiveBytes = archiveSize(paths);
  return result;
}

interface Round {
  movedMessages: number;
  movedClaimLines: number;
  movedTasks: number;
  movedLines: number;
  keptLines: number;
  /** The table of retired messages filled: messages sent after that point are left for the next round. */
  stoppedAtHorizon: boolean;
}

function compactRound(log: JsonlLog<MailboxEvent>, paths: CompactionPaths, options: CompactionOptions, roundMessages: number): Round {
  // Pass 1: which messages, claims and tasks move. Events about messages not in this log (none normally) stay.
  const cutoff = options.now - options.retentionMs;
  const moving = new MovingMessages(cutoff, options.now, log.identity()?.size ?? 0, roundMessages);
  const work = new MovingWork(cutoff);
  options.archivedTasks?.((entry) => work.archived(entry.record));
  let last: { offset: number; record: MailboxEvent } | undefined;
  const pass1 = log.scan(0, (entry) => {
    moving.apply(entry.record, entry.offset);
    work.apply(entry.record, entry.offset);
    last = entry;
  });
  const end = pass1.next;
  // A claim or task line kept alone reads as before: folds pass over a line about what they do not hold.
  const keptLast = options.keepLastLine ? last : undefined;
  if (keptLast && "id" in keptLast.record) moving.keep(keptLast.record.id);
  const round: Round = { movedMessages: moving.count(), movedClaimLines: 0, movedTasks: 0, movedLines: 0, keptLines: 0, stoppedAtHorizon: moving.horizon !== undefined };
  const workMoves = work.decide();
  round.movedClaimLines = work.movedClaimLines;
  round.movedTasks = work.movedTasks;
  if (round.movedMessages === 0 && !workMoves) return round;
  // Lines that are no valid record stay in the live log, whatever id their bytes show.
  const corrupt = new Set(pass1.corrupt.map((line) => line.offset));
  // Pass 2 copies each line's bytes as they are; its id is read again from them, not kept from pass 1.
  const place = (offset: number, line: Buffer) => {
    if (corrupt.has(offset) || offset === keptLast?.offset) return "keep";
    if (work.moves(offset)) return "archive";
    const id = idOf(line, log.schema, offset);
    return id !== undefined && moving.moves(id) ? "archive" : "keep";
  };
  const moves = moveLines(log, paths, end, { atOffset: place }, options.fault);
  round.movedLines = moves.movedLines;
  round.keptLines = moves.keptLines;
  return round;
}
