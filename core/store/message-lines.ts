// One message, or one conversation, folded from the lines about it alone: the indexes file each line
// under the keys it is about (scopes.ts), so a status reads a message's lines and those its state can hang
// on, not its sender's whole history. What a fold of an address gives a message depends only on:
// - its own lines (its msg line, then delivered, read, resolved, reminder... events);
// - its idempotency slot's msg lines (a repeat of a key already used is dropped);
// - the lines of the request it answers, and of that one's request, and so on up: a resolution that lost
//   in log order drops the reply it carried, unless that request was itself dropped first.
// Lines about other messages change nothing of it, so reading more of them is harmless. Role mail is not
// decided here (role events move it between holders): it, an index that does not cover the store, or a
// bucket with a line that cannot be read, leave the answer undecided, and the callers fold whole addresses.
import type { JsonlLog } from "../log/log.js";
import type { MailboxEvent, MsgEvent } from "../records/schemas.js";
import { applyEvent, byId, emptyState, type MessageState } from "../mail/fold.js";
import { lookupKeys, slotKey } from "../mail/scopes.js";
import { keptBy } from "../mail/view.js";
import type { ScopeIndex } from "./file/scope-index.js";

interface Line {
  /** 0: the archive, 1: the live log (which comes after it in log order). */
  file: 0 | 1;
  offset: number;
  record: MailboxEvent;
}

/** The store as a lookup sees it: the committed archive, and the live log up to `size` (indexed up to `covered`). */
export interface StoreExtent {
  archive: JsonlLog<MailboxEvent>;
  archiveIndex: ScopeIndex<MailboxEvent>;
  committed: number;
  log: JsonlLog<MailboxEvent>;
  index: ScopeIndex<MailboxEvent>;
  covered: number;
  size: number;
}

export class MessageLines {
  private readonly about = new Map<string, Line[]>();
  private readonly closures = new Map<string, Line[] | undefined>();
  private tail: Line[] | undefined;

  constructor(private readonly store: StoreExtent) {}

  /** Message `id` as `address`'s fold has it: `{ message }` (undefined when that fold drops it or never had it), or undefined when undecided. */
  messageSeenBy(id: string, address: string): { message: MessageState | undefined } | undefined {
    const lines = this.closure(id);
    if (!lines) return undefined;
    const state = emptyState();
    for (const line of lines) applyEvent(state, line.record, line.offset, (message) => keptBy(address, message));
    return { message: state.messages[id] };
  }

  /**
   * The messages of conversation `conversationId` as conversationOf (lookup.ts) gathers them from the
   * folds of the addresses reached from `first`: a message seen by a reached address reaches its sender
   * and recipient, and each is taken as its sender's fold has it. Undefined when undecided.
   */
  conversation(conversationId: string, first: MessageState): MessageState[] | undefined {
    const lines = this.linesAbout(conversationId);
    if (!lines) return undefined;
    const candidates = new Map<string, MsgEvent>();
    for (const { record } of lines) if (record.type === "msg" && record.conversationId === conversationId && !candidates.has(record.id)) candidates.set(record.id, record);
    const reached = new Set([first.from, first.to]);
    const members = new Set<string>();
    for (let grew = true; grew; ) {
      grew = false;
      for (const candidate of candidates.values()) {
        if (members.has(candidate.id)) continue;
        for (const address of reached) {
          if (!keptBy(address, candidate)) continue;
          const seen = this.messageSeenBy(candidate.id, address);
          if (!seen) return undefined;
          if (!seen.message) continue;
          members.add(candidate.id);
          reached.add(seen.message.from).add(seen.message.to);
          grew = true;
          break;
        }
      }
    }
    const thread: MessageState[] = [];
    for (const id of members) {
      const seen = this.messageSeenBy(id, candidates.get(id)!.from);
      if (!seen) return undefined;
      if (seen.message) thread.push(seen.message);
    }
    return thread.sort(byId);
  }

  /** The lines `id`'s state hangs on (see the top of this file), in log order; undefined when undecided. */
  private closure(id: string): Line[] | undefined {
    if (this.closures.has(id)) return this.closures.get(id);
    const found = new Map<string, Line>();
    const pending = [id];
    const done = new Set<string>();
    let decided = true;
    for (let key = pending.pop(); key !== undefined && decided; key = pending.pop()) {
      if (done.has(key)) continue;
      done.add(key);
      const lines = this.linesAbout(key);
      if (!lines) decided = false;
      for (const line of lines ?? []) {
        found.set(`${line.file}:${line.offset}`, line);
        const record = line.record;
        if (record.type !== "msg" || record.id !== key) continue;
        if (record.via !== undefined) decided = false;
        if (record.idempotencyKey !== undefined) pending.push(slotKey(record.from, record.idempotencyKey));
        if (record.inReplyTo !== undefined) pending.push(record.inReplyTo);
      }
    }
    const closure = decided ? [...found.values()].sort((a, b) => a.file - b.file || a.offset - b.offset) : undefined;
    this.closures.set(id, closure);
    return closure;
  }

  /** The lines filed under `key` in the committed archive and the live log, the live log's unindexed tail included; undefined when undecided. */
  private linesAbout(key: string): Line[] | undefined {
    const known = this.about.get(key);
    if (known) return known;
    const { archive, archiveIndex, committed, log, index, covered } = this.store;
    const lines: Line[] = [];
    if (committed > 0) {
      const archived = archiveIndex.linesAbout(key);
      if (archived?.covered !== committed) return undefined;
      archive.readLinesAt(archived.offsets, ({ offset, record }) => lines.push({ file: 0, offset, record }));
    }
    if (covered > 0) {
      const live = index.linesAbout(key);
      if (!live) return undefined;
      // The index may have grown since `covered` was read: lines past it are the tail's.
      log.readLinesAt(live.offsets.filter((offset) => offset < covered), ({ offset, record }) => lines.push({ file: 1, offset, record }));
    }
    for (const line of this.tailLines()) if (lookupKeys(line.record).includes(key)) lines.push(line);
    this.about.set(key, lines);
    return lines;
  }

  /** The live log's lines after the index, up to `size`, read once. */
  private tailLines(): Line[] {
    if (!this.tail) {
      const tail: Line[] = [];
      this.store.log.scan(this.store.covered, ({ offset, record }) => tail.push({ file: 1, offset, record }), { until: this.store.size });
      this.tail = tail;
    }
    return this.tail;
  }
}
