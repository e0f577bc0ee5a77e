// What the web view reads, kept up to date incrementally and sized by what the page shows, not by the
// store: the fold of the mailbox's newest messages (recent.ts), an address's own mail through the
// per-address index when the page is filtered to it, the latest receipts (read back from the end of their
// log), and the sessions. Each refresh reads only what was appended since the last one.
import { statSync } from "node:fs";
import type { Peerpost } from "../peerpost.js";
import type { MailboxView } from "../mail/view.js";
import type { MessageState } from "../mail/fold.js";
import { awaitsAnswer } from "../mail/reminders.js";
import type { ReceiptRecord } from "../records/schemas.js";
import { JsonlLog } from "../log/log.js";
import { withCorrupt, type CorruptReport, type RecordSchema } from "../log/types.js";
import { RecentMail } from "./recent.js";
import type { UiFilters } from "./types.js";

/** Receipts kept in memory for the page (the newest). */
const RECEIPTS_KEPT = 500;
/**
 * Bodies are immutable, so they are cached by message id, the oldest let go first past either cap: the
 * count bounds a large mailbox of short mail, the characters one of long bodies (64 KiB each at most).
 */
const BODIES_KEPT = 5000;
const BODY_CHARS_KEPT = 4 * 1024 * 1024;
/** How far the per-address index may lag before the view extends it (below this, scanning the rest is cheaper). */
const INDEX_AT_BYTES = 64 * 1024;
/** Searches remembered with their results (a person types a few). */
const SEARCHES_KEPT = 10;
/** Session pages whose views (each its address's whole mail) are kept: those asked for last; older ones are let go. */
const SESSION_VIEWS_KEPT = 8;

/** Any JSON value: the search reads lines without validating them again, and trusts only ids the fold knows. */
const ANY_RECORD: RecordSchema<{ type?: unknown; id?: unknown; body?: unknown }> = { safeParse: (input) => ({ success: true, data: input as { type?: unknown } }) };

/** The messages a page's filters draw from, in log order, and whether older mail lies outside them. */
export interface MailSelection {
  messages: MessageState[];
  /** Changes whenever the messages may have: a cache key. */
  key: string;
  partial: boolean;
}

export class UiSource {
  readonly recent: RecentMail;
  receipts: ReceiptRecord[] = [];
  receiptsCorrupt: CorruptReport = { count: 0, recent: [], tornTail: false };
  /** Where the receipts read so far end; undefined before the first read (or after the file was replaced). */
  private receiptsOffset: number | undefined;
  /** The receipts file (dev:ino) `receiptsOffset` is in. */
  private receiptsFile = "";
  private readonly bodies = new Map<string, string>();
  /** The characters of the bodies kept. */
  private bodyChars = 0;
  private readonly searches = new Map<string, { file: string; start: number; offset: number; ids: Set<string> }>();
  private readonly rawMailbox: JsonlLog<{ type?: unknown; id?: unknown; body?: unknown }>;
  /** Addresses of the session pages asked for, least recent first (SESSION_VIEWS_KEPT of them). */
  private readonly sessionPages: string[] = [];
  /** Addresses whose open requests the page shows (the author's): their views are always kept. */
  private readonly pinned = new Set<string>();

  constructor(readonly peerpost: Peerpost) {
    this.recent = new RecentMail(peerpost.mailbox.log);
    this.rawMailbox = new JsonlLog(peerpost.mailbox.log.path, ANY_RECORD, { lockStaleMs: peerpost.config.lockStaleMs, lockTimeoutMs: peerpost.config.lockTimeoutMs });
  }

  /** Changes whenever any log the page shows changes (size, or a replaced file). */
  fingerprint(): string {
    const { mailbox, receipts, sessions } = this.peerpost;
    return [mailbox.log.path, receipts.log.path, sessions.log.path]
      .map((path) => {
        try {
          const stat = statSync(path);
          return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
        } catch {
          return "-";
        }
      })
      .join("|");
  }

  /** The newest messages folded (the unfiltered page's). */
  get mailbox(): MailboxView {
    return this.recent.view;
  }

  /**
   * The mail the filters draw from: a conversation whole (through the indexes, wherever in the log it
   * is), an address's own mail (its view, from the per-address index), else the newest messages.
   */
  select(filters: UiFilters): MailSelection {
    const { mailbox } = this.peerpost;
    // Always through the indexes: a first message still live says nothing of the ones a compaction archived after it.
    if (filters.conversation !== undefined) {
      const thread = mailbox.thread(filters.conversation);
      return { messages: thread, key: `conversation\n${filters.conversation}\n${this.mailbox.offset}`, partial: false };
    }
    if (filters.session !== undefined) {
      const view = this.sessionView(filters.session);
      return { messages: Object.values(view.state.messages), key: `session\n${filters.session}\n${view.offset}`, partial: false };
    }
    const view = this.mailbox;
    return { messages: Object.values(view.state.messages), key: `recent\n${this.recent.start}\n${view.offset}`, partial: this.recent.partial };
  }

  /** A session page's view; the least recent page's beyond SESSION_VIEWS_KEPT is let go, so memory follows the pages shown, not every one ever asked for. */
  private sessionView(address: string): MailboxView {
    const view = this.peerpost.mailbox.view(address);
    const at = this.sessionPages.indexOf(address);
    if (at >= 0) this.sessionPages.splice(at, 1);
    this.sessionPages.push(address);
    if (this.sessionPages.length > SESSION_VIEWS_KEPT) {
      const dropped = this.sessionPages.shift()!;
      if (!this.pinned.has(dropped)) this.peerpost.mailbox.forgetView(dropped);
    }
    return view;
  }

  /** Open requests addressed to `address`, from its own view (the whole log's, through the per-address index). */
  openRequestsTo(address: string): MessageState[] {
    this.pinned.add(address);
    return this.peerpost.mailbox
      .view(address)
      .openRequests()
      .filter((message) => message.to === address && awaitsAnswer(message));
  }

  /**
   * The mailbox's corrupt lines: the index's count and a scan of what it does not cover, as `health` says;
   * while the index is far behind (its build runs detached), those of the folded tail only. The index is
   * extended only once the tail it leaves is worth it: every live update writing it costs more than
   * scanning those few lines.
   */
  mailboxCorrupt(): CorruptReport {
    const { mailbox } = this.peerpost;
    if (mailbox.indexLag().farBehind) return { ...this.mailbox.corrupt, tornTail: this.mailbox.tornTail };
    mailbox.extendIndex(INDEX_AT_BYTES);
    return mailbox.index.corruptLines();
  }

  async refresh(): Promise<void> {
    void this.recent.view;
    const { receipts } = this.peerpost;
    const log = receipts.log;
    const identity = log.identity();
    const file = identity ? `${identity.dev}:${identity.ino}` : "";
    let from = this.receiptsOffset;
    // A replaced file (a mirror started over) is read anew.
    if (from === undefined || file !== this.receiptsFile || (identity?.size ?? 0) < from) {
      // The newest receipts, read back from the end (the log only grows, and the page shows the latest), and
      // the corrupt lines before them from the receipts' index; later lines are counted as they are read.
      const latest = receipts.latest(RECEIPTS_KEPT);
      from = latest.end;
      this.receipts = latest.receipts;
      this.receiptsCorrupt = latest.corrupt;
    }
    const result = log.scan(from, ({ record }) => {
      this.receipts.push(record);
      if (this.receipts.length > RECEIPTS_KEPT * 2) this.receipts = this.receipts.slice(-RECEIPTS_KEPT);
    });
    this.receipts = this.receipts.slice(-RECEIPTS_KEPT);
    this.receiptsOffset = result.next;
    this.receiptsFile = file;
    this.receiptsCorrupt = { ...withCorrupt(this.receiptsCorrupt, result.corrupt), tornTail: result.tornTail };
  }

  body(message: MessageState): string {
    let body = this.bodies.get(message.id);
    if (body === undefined) {
      body = this.peerpost.mailbox.body(message);
      this.bodies.set(message.id, body);
      this.bodyChars += body.length;
      for (const [id, kept] of this.bodies) {
        if (id === message.id || (this.bodies.size <= BODIES_KEPT && this.bodyChars <= BODY_CHARS_KEPT)) break;
        this.bodies.delete(id);
        this.bodyChars -= kept.length;
      }
    }
    return body;
  }

  /**
   * Ids of the newest messages (those folded) whose body contains `query`, ignoring case. Each query
   * remembers how far it has read, so asking again (every live update of a filtered page) reads only the
   * new lines; a widened tail is searched anew.
   */
  search(query: string): Set<string> {
    const needle = query.toLowerCase();
    const start = this.recent.start;
    const identity = this.rawMailbox.identity();
    // Offsets are of one file: a compaction's swap puts in another, searched anew.
    const file = identity ? `${identity.dev}:${identity.ino}` : "";
    let found = this.searches.get(needle);
    if (found && (found.file !== file || found.offset > (identity?.size ?? 0) || found.start !== start)) found = undefined;
    if (!found) {
      if (this.searches.size >= SEARCHES_KEPT) this.searches.delete(this.searches.keys().next().value!);
      found = { file, start, offset: start, ids: new Set() };
      this.searches.set(needle, found);
    }
    const ids = found.ids;
    const messages = this.mailbox.state.messages;
    found.offset = this.rawMailbox.scan(found.offset, ({ record }) => {
      if (record.type === "msg" && typeof record.id === "string" && typeof record.body === "string" && messages[record.id]?.offset !== undefined && record.body.toLowerCase().includes(needle)) ids.add(record.id);
    }).next;
    return ids;
  }
}
