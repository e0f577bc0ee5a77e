// How the mailbox's records are kept, whatever the backend: views folded from the local log (started from
// their snapshot or the per-address index, refreshed by the lines appended since), appends scoped for the
// index, the read-back of what this process just wrote, bodies read by offset, the lookups through the
// indexes and the archive (mailbox-lookups.ts), and compaction where the store's file may be rewritten
// (file/mailbox-compactor.ts). The mailbox's decisions and queries (mail/mailbox.ts) are built on this.
import { join } from "node:path";
import { existsSync } from "node:fs";
import type { JsonlLog } from "../log/log.js";
import type { CorruptReport, LogOptions } from "../log/types.js";
import type { LocalStore, StoreFactory } from "./local.js";
import type { AppendItem } from "./types.js";
import { ScopeIndex } from "./file/scope-index.js";
import { MailboxCompactor, type CompactionSettings } from "./file/mailbox-compactor.js";
import type { CompactionResult } from "./file/compaction.js";
import type { CompactionPaths } from "./file/compaction-swap.js";
import { MailboxLookups } from "./mailbox-lookups.js";
import { FAR_BEHIND_BYTES, MailboxView } from "../mail/view.js";
import { lineStartAtOrAfter } from "../log/line-start.js";
import { snapshotFileName } from "../mail/snapshots.js";
import { indexScopes, mailboxScopeFilter, scopesOf } from "../mail/scopes.js";
import type { ProcedureText } from "../mail/envelope.js";
import type { MessageState } from "../mail/fold.js";
import { mailboxEvent, type MailboxEvent } from "../records/schemas.js";
import { TASKS_SCOPE, TASK_LINE } from "../records/work-scope.js";
import { PeerpostError, ioError } from "../common/errors.js";
import { ensurePrivateDir } from "../security/trust.js";

/** Less than this is cheaper to fold than to index: small state dirs never get an index written. */
const INDEX_MIN_LAG_BYTES = 64 * 1024;

export interface MailboxDecision {
  events: MailboxEvent[];
  /** Matches an earlier record that, landing first in log order, voids this decision. */
  conflicts?: (earlier: MailboxEvent) => boolean;
}

export class MailboxStore {
  readonly store: LocalStore<MailboxEvent>;
  readonly cacheDir: string;
  readonly index: ScopeIndex<MailboxEvent>;
  protected readonly lookups: MailboxLookups;
  private readonly compactor: MailboxCompactor;
  private readonly views = new Map<string, MailboxView>();

  constructor(stateDir: string, open: StoreFactory, logOptions: LogOptions, settings: CompactionSettings) {
    this.store = open("mailbox", mailboxEvent, mailboxScopeFilter);
    this.cacheDir = join(stateDir, "cache");
    this.index = new ScopeIndex(this.store.log, join(stateDir, "index", "mailbox"), indexScopes);
    // The index of a replaced log starts over: rebuilt right after a compaction (the kept log is small),
    // not left to the hooks, which give up on a view they would have to read far for.
    this.compactor = new MailboxCompactor(this.store, settings, logOptions.fault, () => {
      try {
        this.indexAll();
      } catch {
        // Derived data: an index-run or the next reader builds it.
      }
    }, (visit) => this.lookups.archivedScope(TASKS_SCOPE, (line) => TASK_LINE.test(line.toString("latin1")), visit));
    this.lookups = new MailboxLookups(this.store.log, this.index, this.compactor.paths, join(stateDir, "index", "archive"), logOptions);
  }

  /** The mailbox file, for synchronous folds and inspection. */
  get log(): JsonlLog<MailboxEvent> {
    return this.store.log;
  }

  get archive(): JsonlLog<MailboxEvent> {
    return this.lookups.archive;
  }

  get archiveIndex(): ScopeIndex<MailboxEvent> {
    return this.lookups.archiveIndex;
  }

  get compaction(): CompactionPaths {
    return this.compactor.paths;
  }

  /** Moves finished messages older than the retention to the archive (a database's mirror keeps its last line: LocalStore.rewrite). */
  compact(): Promise<CompactionResult> {
    return this.compactor.compact();
  }

  /** Hands the compactions the size setting calls for to `start` (a detached run); it returns whether one was started. */
  compactElsewhere(start: () => boolean): void {
    this.compactor.compactElsewhere(start);
  }

  /** Past the size setting, calls for a compaction (not again too soon: compaction-calls.ts). */
  compactWhenLarge(): void {
    this.compactor.compactWhenLarge(this.log.identity()?.size ?? 0);
  }

  /** Whether the live log is past the size at which peerpost compacts it by itself. */
  pastCompactionSize(): boolean {
    return this.compactor.pastCompactionSize();
  }

  scanArchive(visit: (entry: { offset: number; record: MailboxEvent }) => void): void {
    this.broughtOver();
    this.lookups.scanArchive(visit);
  }

  /**
   * Brings over the lines a compaction's swap left in the old file (it died past its rename), as a view's
   * refresh does: a lookup reads the log and its indexes by path, through no view.
   */
  protected broughtOver(): void {
    const identity = this.log.identity();
    this.compactor.swapLeftLines(identity && `${identity.dev}:${identity.ino}`);
  }

  /** Visits the archive's committed records of an index scope (claims, tasks); `wanted` passes over lines that cannot be of it where the index cannot answer. */
  archivedScope(scope: string, wanted: (line: Buffer) => boolean, visit: (entry: { offset: number; record: MailboxEvent }) => void): void {
    this.lookups.archivedScope(scope, wanted, visit);
  }

  archiveIndexLags(): boolean {
    return this.lookups.archiveIndexLags();
  }

  indexAll(): number | undefined {
    return this.lookups.indexAll();
  }

  /**
   * Extends the per-address index when it lags by `minBytes` or more, but not past a reader's budget
   * (FAR_BEHIND_BYTES). A log that far ahead of its index (an old log, never indexed) is indexed by a
   * rebuild: a server or a hook that meets such a log starts one (`index-run`), and a compaction runs one.
   */
  extendIndex(minBytes = 0): void {
    this.index.extendOnTheWay(FAR_BEHIND_BYTES, minBytes);
  }

  /** Bytes of the log the index does not cover, and whether that is further than readers extend it on their way (an old log, never indexed). */
  indexLag(): { lagBytes: number; farBehind: boolean } {
    const lagBytes = this.index.lag();
    return { lagBytes, farBehind: lagBytes > FAR_BEHIND_BYTES };
  }

  /**
   * The live log's corrupt lines and whether it ends in a torn line. Scoped views pass over others' lines
   * unparsed, so this asks the index (which parses every line it covers) and reads only the rest.
   */
  corruptLines(): CorruptReport {
    this.extendIndex(0);
    return this.index.corruptLines();
  }

  /**
   * Whether bringing the view of `scope` up to date would read more of the log than a reader reads on its
   * way (FAR_BEHIND_BYTES): neither its snapshot nor the index starts it near the end (an old log never
   * indexed). The view is kept, unread, for the next `view` call.
   */
  viewWouldReadFar(scope: string): boolean {
    if (!this.readsFar(this.viewOf(scope))) return false;
    if (this.indexLag().farBehind) return true;
    // An index within a reader's reach: brought to the end, it starts the view near the end (or leaves a
    // snapshot that far behind for it). Otherwise a hook would give up on this view at every prompt.
    this.extendIndex(0);
    this.views.delete(scope);
    return this.readsFar(this.viewOf(scope));
  }

  /**
   * The view of `scope` folded from the log's last `bytes` only: what a hook can tell while the index is
   * built. Exact for each message whose msg line is in those bytes (what happens to a message is written
   * after it); older messages are missing. Never saved, and nothing may be decided on it.
   */
  tailView(scope: string, bytes: number): MailboxView {
    const view = new MailboxView(this.log, scope, undefined);
    const size = this.log.identity()?.size ?? 0;
    view.offset = lineStartAtOrAfter(this.log.path, Math.max(0, size - bytes));
    view.refresh();
    return view;
  }

  private readsFar(view: MailboxView): boolean {
    return (this.log.identity()?.size ?? 0) - view.offset > FAR_BEHIND_BYTES;
  }

  /** The view of an address's inbox and outbox, refreshed to the end of the log. */
  view(scope: string): MailboxView {
    const view = this.viewOf(scope);
    view.refresh();
    if (this.compactor.swapLeftLines(view.file())) view.refresh();
    return view;
  }

  /**
   * Lets go of this process's view of `scope`: a long-lived reader that looks at many scopes one after
   * another (the web view's session pages) holds only those it still shows. The next `view` starts it again.
   */
  forgetView(scope: string): void {
    this.views.delete(scope);
  }

  /** This process's view of `scope`, started from its snapshot or the index, not yet refreshed. */
  private viewOf(scope: string): MailboxView {
    let view = this.views.get(scope);
    if (!view) {
      const snapshotPath = join(this.cacheDir, snapshotFileName(scope));
      // A scope never folded before (a new session) starts from the index instead of the whole log.
      if (!existsSync(snapshotPath)) this.extendIndex(INDEX_MIN_LAG_BYTES);
      view = new MailboxView(this.log, scope, snapshotPath, this.index);
      this.views.set(scope, view);
    }
    return view;
  }

  /** A message by id from a view this process holds, brought up to date first (a long-lived process keeps views it looked up long ago). */
  protected heldMessage(id: string): MessageState | undefined {
    for (const [scope, held] of this.views) {
      if (!held.state.messages[id]) continue;
      return this.view(scope).state.messages[id];
    }
    return undefined;
  }

  /** Persists a view's snapshot when it moved on by at least `minBytes` since the last one. */
  async persist(view: MailboxView, minBytes = 0): Promise<boolean> {
    this.extendIndex(Math.max(minBytes, INDEX_MIN_LAG_BYTES));
    if (view.unsavedBytes() < minBytes || view.unsavedBytes() === 0) return false;
    try {
      ensurePrivateDir(this.cacheDir);
    } catch (error) {
      if (error instanceof PeerpostError) throw error;
      throw ioError("create", this.cacheDir, error);
    }
    return await view.save();
  }

  /** Store items for events, each scoped like the message it is, or is about. */
  private items(view: MailboxView, events: MailboxEvent[]): AppendItem<MailboxEvent>[] {
    return events.map((record) => {
      const message = record.type === "msg" ? record : view.state.messages[record.id];
      return message ? { record, scopes: scopesOf(message) } : { record };
    });
  }

  /**
   * Appends what `decide` returns, deciding under the store's exclusion on `scope`'s view folded to the
   * end of the log. Returns that view refreshed past the append, and the earlier record that won over
   * this decision in log order, if one did (its events are then in the log, and lose in every fold).
   */
  protected async appendDeciding(scope: string, decide: (view: MailboxView) => MailboxDecision): Promise<{ view: MailboxView; conflict?: MailboxEvent }> {
    const view = this.view(scope);
    const outcome = await this.store.appendDeciding(() => {
      view.refresh();
      const decision = decide(view);
      return decision.conflicts ? { items: this.items(view, decision.events), conflicts: decision.conflicts } : { items: this.items(view, decision.events) };
    });
    view.refresh();
    return outcome.conflict ? { view, conflict: outcome.conflict.record } : { view };
  }

  /** A deciding append whose events nothing earlier can void (role changes: the latest one wins). */
  async appendFor(scope: string, decide: (view: MailboxView) => MailboxEvent[]): Promise<MailboxView> {
    return (await this.appendDeciding(scope, (view) => ({ events: decide(view) }))).view;
  }

  /** Appends events that decide nothing (no lock); returns the view refreshed past them. */
  protected async appendPlain(view: MailboxView, events: MailboxEvent[]): Promise<MailboxView> {
    if (events.length > 0) await this.store.append(this.items(view, events));
    view.refresh();
    return view;
  }

  /** Appends one new message that decides nothing; returns where its line starts. Past the size setting, calls for a compaction. */
  protected async appendMessage(view: MailboxView, event: MailboxEvent): Promise<number> {
    const entry = (await this.store.append(this.items(view, [event]))).entries[0]!;
    this.compactor.compactWhenLarge(Number(entry.next));
    return Number(entry.position);
  }

  /**
   * Appends one new message and `more` records in one batch, each event scoped like the message (a store
   * that fails stores none of them: one write, or one transaction); returns the view refreshed past them.
   */
  protected async appendMessageWith(view: MailboxView, event: MailboxEvent & { type: "msg" }, events: MailboxEvent[], more: AppendItem<MailboxEvent>[]): Promise<MailboxView> {
    const items: AppendItem<MailboxEvent>[] = [event, ...events].map((record) => ({ record, scopes: scopesOf(event) }));
    const entries = (await this.store.append([...items, ...more])).entries;
    this.compactor.compactWhenLarge(Number(entries[entries.length - 1]!.next));
    view.refresh();
    return view;
  }

  /**
   * A message this process just appended. Missing only while a compaction swaps files (its line was
   * copied into the old file's tail, not yet brought over): finish that step, catch up, look again.
   */
  protected readBack(view: MailboxView, id: string): MessageState {
    if (view.state.messages[id]) return view.state.messages[id];
    this.compactor.bringOverSwap();
    view.refresh();
    const message = view.state.messages[id];
    if (!message)
      throw new PeerpostError("state_io_error", `Message ${id} was written but cannot be read back from the mailbox.`, {
        details: { messageId: id, offset: view.offset },
        hint: "Another process may have replaced or truncated mailbox.jsonl; `peerpost doctor` inspects it.",
      });
    return message;
  }

  /** A message's body, from its line in the live log or, for one compaction moved, in the archive. */
  body(message: MessageState): string {
    const at = (offset: number) => {
      const live = this.log.readAt(offset);
      const record = live?.type === "msg" && live.id === message.id ? live : this.archive.readAt(offset);
      return record?.type === "msg" && record.id === message.id ? record : undefined;
    };
    let record = at(message.offset);
    if (!record) {
      // Neither: a compaction swapped the files since the message was folded. Its line is found anew, once.
      const moved = this.lookups.scanFor((candidate) => candidate.id === message.id)[0];
      if (moved) record = at(moved.offset);
    }
    if (!record)
      throw new PeerpostError("state_io_error", `The mailbox line of message ${message.id} could not be read at offset ${message.offset}.`, {
        details: { messageId: message.id, offset: message.offset },
        hint: "The mailbox may have been edited by hand; delete the state dir's cache/ folder to rebuild the views, and run `peerpost doctor`.",
      });
    return record.body;
  }

  /** The role procedure a message carries, read from its role event; undefined for most messages. */
  procedure(message: MessageState): ProcedureText | undefined {
    if (!message.procedure) return undefined;
    const record = this.log.readAt(message.procedure.offset);
    if (!record || record.type !== "role" || !record.procedure || record.procedure.version !== message.procedure.version) return undefined;
    return { role: message.procedure.role, version: record.procedure.version, text: record.procedure.text };
  }
}
