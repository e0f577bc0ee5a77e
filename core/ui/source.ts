// What the web view reads, kept up to date incrementally: the fold of the whole mailbox (with its
// snapshot, so a large mailbox is folded once across starts), the latest receipts (read back from the end
// of their log), and the sessions.
// Each refresh reads only what was appended since the last one.
import { join } from "node:path";
import { statSync } from "node:fs";
import type { Peerpost } from "../peerpost.js";
import { MailboxView } from "../mail/view.js";
import { snapshotFileName } from "../mail/snapshots.js";
import type { ReceiptRecord } from "../records/schemas.js";
import { JsonlLog } from "../log/log.js";
import { withCorrupt, type CorruptReport, type RecordSchema } from "../log/types.js";

/** Receipts kept in memory for the page (the newest). */
const RECEIPTS_KEPT = 500;
/** Mailbox bytes folded since the last snapshot before the view's snapshot is saved again. */
const SNAPSHOT_EVERY_BYTES = 1024 * 1024;
/** Bodies are immutable, so they are cached by message id; the cap bounds memory on a large mailbox. */
const BODIES_KEPT = 5000;
/** Searches remembered with their results (a person types a few). */
const SEARCHES_KEPT = 10;

/** Any JSON value: the search reads lines without validating them again, and trusts only ids the fold knows. */
const ANY_RECORD: RecordSchema<{ type?: unknown; id?: unknown; body?: unknown }> = { safeParse: (input) => ({ success: true, data: input as { type?: unknown } }) };

export class UiSource {
  readonly mailbox: MailboxView;
  receipts: ReceiptRecord[] = [];
  receiptsCorrupt: CorruptReport = { count: 0, recent: [], tornTail: false };
  /** Where the receipts read so far end; undefined before the first read (or after the file was replaced). */
  private receiptsOffset: number | undefined;
  /** The receipts file (dev:ino) `receiptsOffset` is in. */
  private receiptsFile = "";
  private readonly bodies = new Map<string, string>();
  private readonly searches = new Map<string, { offset: number; ids: Set<string> }>();
  private readonly rawMailbox: JsonlLog<{ type?: unknown; id?: unknown; body?: unknown }>;

  constructor(readonly peerpost: Peerpost) {
    this.mailbox = new MailboxView(peerpost.mailbox.log, undefined, join(peerpost.stateDir.path, "cache", snapshotFileName(undefined)));
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

  async refresh(): Promise<void> {
    this.mailbox.refresh();
    await this.peerpost.mailbox.persist(this.mailbox, SNAPSHOT_EVERY_BYTES).catch(() => false);
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

  body(id: string): string {
    let body = this.bodies.get(id);
    if (body === undefined) {
      const message = this.mailbox.state.messages[id];
      if (!message) return "";
      body = this.peerpost.mailbox.body(message);
      if (this.bodies.size >= BODIES_KEPT) this.bodies.delete(this.bodies.keys().next().value!);
      this.bodies.set(id, body);
    }
    return body;
  }

  /**
   * Ids of messages whose body contains `query`, ignoring case. Each query remembers how far it has
   * read, so asking again (every live update of a filtered page) reads only the new lines.
   */
  search(query: string): Set<string> {
    const needle = query.toLowerCase();
    let found = this.searches.get(needle);
    if (found && found.offset > (this.rawMailbox.identity()?.size ?? 0)) found = undefined;
    if (!found) {
      if (this.searches.size >= SEARCHES_KEPT) this.searches.delete(this.searches.keys().next().value!);
      found = { offset: 0, ids: new Set() };
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
