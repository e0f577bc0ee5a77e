// A mailbox view: the fold of the log for one scope (an address's inbox and outbox, or everything),
// kept up to a log offset. Refreshing reads only the events appended since, so a read costs O(new events).
// Views persist as a derived, validated snapshot (see cache.ts); deleting it changes no result.
import { type JsonlLog } from "../log/log.js";
import { withCorrupt, type CorruptSummary } from "../log/types.js";
import type { MailboxEvent, MsgEvent } from "../records/schemas.js";
import { applyEvent, emptyState, type MailboxState, type MessageState } from "./fold.js";
import { loadSnapshot, saveSnapshot, SNAPSHOT_VERSION, type Snapshot } from "./snapshots.js";
import { logPosition } from "../log/log-snapshot.js";
import type { ScopeIndex } from "../store/file/scope-index.js";
import { scopeLineTest } from "./scope-lines.js";
import { NewestBy } from "./newest-by.js";

/**
 * How much of the log a reader reads on its way before the per-address index is the cheaper start (a
 * prompt hook's budget): readers extend the index by at most this much, and a snapshot this far behind
 * the index is left for it.
 */
export const FAR_BEHIND_BYTES = 8 * 1024 * 1024;

/** Whether the fold for `scope` (undefined: everything) tracks a message. Role mail is kept by every scope: a role can move to its address at any later event. */
export function keptBy(scope: string | undefined, message: Pick<MsgEvent, "to" | "from" | "via">): boolean {
  return scope === undefined || message.to === scope || message.from === scope || message.via !== undefined;
}

export class MailboxView {
  state: MailboxState = emptyState();
  offset = 0;
  /**
   * Corrupt lines this view met: all of those before the index's end when it started from the index, then
   * those it parsed (a scoped view passes over others' lines unchecked). `Mailbox.corruptLines` counts the log's.
   */
  corrupt: CorruptSummary = { count: 0, recent: [] };
  /** Whether the last refresh saw a torn (incomplete) last line. */
  tornTail = false;
  private logIdentity: { dev: number; ino: number } | undefined;
  private savedOffset = -1;
  /** "behind": a valid snapshot left for the index, which covers far more of the log (see FAR_BEHIND_BYTES). */
  cacheState: "none" | "loaded" | "rebuilt" | "invalid" | "behind" = "none";
  /** Whether the view started from the per-address index (no usable snapshot) rather than the whole log. */
  fromIndex = false;
  /** Why the snapshot on disk was not trusted (the view was rebuilt from the log instead). */
  cacheProblem: string | undefined;
  /** For a scoped view: whether a line may change its fold (others' mail is passed over unparsed). */
  private readonly mayConcern: ((line: Buffer) => boolean) | undefined;

  constructor(
    private readonly log: JsonlLog<MailboxEvent>,
    /** The address whose messages (to or from it) this view keeps; undefined keeps everything. */
    readonly scope: string | undefined,
    private readonly snapshotPath: string | undefined,
    /** Lets a view without a snapshot read only its scope's lines (a new session: O(own mail)). */
    private readonly index?: ScopeIndex<MailboxEvent> | undefined,
  ) {
    this.mayConcern = scope === undefined ? undefined : scopeLineTest(scope, (id) => this.state.messages[id] !== undefined);
    this.loadFromSnapshot();
    const behind = this.cacheState === "loaded" && this.snapshotFarBehindIndex();
    if (behind) {
      this.reset();
      this.cacheState = "behind";
    }
    if (this.cacheState !== "loaded") this.loadFromIndex();
    // The stale snapshot goes at the next save (a hook's too), so later readers start near the end.
    if (behind) this.savedOffset = -1;
  }

  /**
   * A session dormant while others' mail grew the log: bringing its snapshot up to date would read all
   * that mail, while the index gives the scope's own lines up to nearly the end.
   */
  private snapshotFarBehindIndex(): boolean {
    if (!this.index || this.scope === undefined) return false;
    const size = this.log.identity()?.size ?? 0;
    if (size - this.offset <= FAR_BEHIND_BYTES) return false;
    try {
      return size - this.index.lag() - this.offset > FAR_BEHIND_BYTES;
    } catch {
      return false;
    }
  }

  keeps(message: MsgEvent): boolean {
    return keptBy(this.scope, message);
  }

  /** Ids of the messages that still ask for an answer (not fyi, not resolved); built on first use, then kept as events fold. */
  private asking: Set<string> | undefined;

  /** The messages of this view that still ask for an answer: a send looks for the one it answers among these, not among all. */
  openRequests(): MessageState[] {
    if (!this.asking) {
      this.asking = new Set();
      for (const id of Object.keys(this.state.messages)) this.track(id);
    }
    return [...this.asking].map((id) => this.state.messages[id]!);
  }

  /** Per recipient, the scope's newest message to it (ids order sends). */
  private readonly sentTo = new NewestBy((message) => (message.from === this.scope ? { address: message.to, order: message.id } : undefined));

  /** Per sender, the newest message from it that the scope closed without a reply (done, decline). */
  private readonly closedFrom = new NewestBy((message) =>
    message.resolved && message.resolved.by === this.scope && message.resolved.resolution !== "reply" ? { address: message.from, order: message.resolved.at } : undefined,
  );

  /** The scope's newest message to `address`: a send after an answer looks here to see whether it asks back. */
  latestSentTo(address: string): MessageState | undefined {
    return this.sentTo.get(this.state.messages, address);
  }

  /** The newest message from `address` the scope marked done or declined: a send right after it asks back, as one after an answer does. */
  latestClosedFrom(address: string): MessageState | undefined {
    return this.closedFrom.get(this.state.messages, address);
  }

  private track(id: string): void {
    const message = this.state.messages[id];
    if (message && message.anticipation !== "fyi" && !message.resolved) this.asking!.add(id);
    else this.asking!.delete(id);
  }

  private reset(): void {
    this.asking = undefined;
    this.sentTo.reset();
    this.closedFrom.reset();
    this.state = emptyState();
    this.offset = 0;
    this.corrupt = { count: 0, recent: [] };
    this.logIdentity = undefined;
  }

  private loadFromSnapshot(): void {
    if (!this.snapshotPath) return;
    const snapshot = loadSnapshot(this.snapshotPath, this.log.path, this.scope);
    if (snapshot.status === "valid") {
      this.state = snapshot.snapshot.state;
      this.offset = snapshot.snapshot.log.offset;
      this.corrupt = snapshot.snapshot.corrupt;
      this.logIdentity = { dev: snapshot.snapshot.log.dev, ino: snapshot.snapshot.log.ino };
      this.savedOffset = this.offset;
      this.cacheState = "loaded";
    } else {
      this.cacheState = snapshot.status === "missing" ? "none" : "invalid";
      if (snapshot.status === "invalid") this.cacheProblem = snapshot.reason;
    }
  }

  /** Folds the scope's indexed lines; the refresh then reads only what the index does not cover yet. */
  private loadFromIndex(): void {
    if (!this.index || this.scope === undefined) return;
    const identity = this.log.identity();
    // An index that disagrees with the log is rebuilt within a reader's budget, else left for index-run.
    const indexed = identity ? this.index.lookup(this.scope, FAR_BEHIND_BYTES) : undefined;
    if (!identity || !indexed) return;
    this.log.readLinesAt(indexed.offsets, (entry) => applyEvent(this.state, entry.record, entry.offset, (message) => this.keeps(message)));
    this.offset = indexed.covered;
    // What the index covers costs a reader without a snapshot only the scope's own lines: not worth saving.
    this.savedOffset = indexed.covered;
    this.corrupt = { count: indexed.corrupt.count, recent: [...indexed.corrupt.recent] };
    this.logIdentity = { dev: identity.dev, ino: identity.ino };
    this.fromIndex = true;
  }

  /** The log's file this view read last, as dev:ino (undefined before it read one). */
  file(): string | undefined {
    return this.logIdentity && `${this.logIdentity.dev}:${this.logIdentity.ino}`;
  }

  /**
   * Folds the events appended since the last refresh; a scoped view passes over lines that cannot concern
   * it, and reports only the corrupt lines among those it parsed. Returns how many lines were read.
   */
  refresh(): number {
    const identity = this.log.identity();
    if (!identity) {
      if (this.offset > 0) this.reset();
      return 0;
    }
    const replaced = this.logIdentity !== undefined && (this.logIdentity.ino !== identity.ino || this.logIdentity.dev !== identity.dev);
    if (replaced || identity.size < this.offset) {
      this.reset();
      if (this.cacheState === "loaded") {
        this.cacheState = "rebuilt";
        this.cacheProblem = replaced ? "log replaced" : "log truncated";
      }
    }
    this.logIdentity = { dev: identity.dev, ino: identity.ino };
    if (identity.size === this.offset) {
      this.tornTail = false;
      return 0;
    }
    let lines = 0;
    const mayConcern = this.mayConcern;
    const wanted =
      mayConcern &&
      ((line: Buffer) => {
        if (mayConcern(line)) return true;
        // Read, and passed over.
        lines++;
        return false;
      });
    const result = this.log.scan(this.offset, (entry) => {
      lines++;
      applyEvent(this.state, entry.record, entry.offset, (message) => this.keeps(message));
      if (this.asking) this.track(entry.record.id);
      if (entry.record.type === "msg") this.sentTo.note(this.state.messages[entry.record.id]);
      if (entry.record.type === "resolved") this.closedFrom.note(this.state.messages[entry.record.id]);
    }, wanted ? { wanted } : {}, identity);
    lines += result.corrupt.length;
    if (result.corrupt.length > 0) this.corrupt = withCorrupt(this.corrupt, result.corrupt);
    this.offset = result.next;
    this.tornTail = result.tornTail;
    return lines;
  }

  /** Writes the snapshot when the view moved on since it was loaded or last saved. */
  async save(): Promise<boolean> {
    if (!this.snapshotPath || !this.logIdentity || this.offset === this.savedOffset) return false;
    const snapshot: Snapshot = {
      v: SNAPSHOT_VERSION,
      kind: "mailbox-view",
      scope: this.scope ?? null,
      log: logPosition(this.log.path, this.logIdentity, this.offset),
      state: this.state,
      corrupt: this.corrupt,
    };
    const offset = this.offset;
    await saveSnapshot(this.snapshotPath, snapshot);
    this.savedOffset = offset;
    return true;
  }

  /** Bytes appended since the snapshot on disk was written (what a reader without this view would re-read). */
  unsavedBytes(): number {
    return this.savedOffset < 0 ? this.offset : this.offset - this.savedOffset;
  }
}
