// When and how the live mailbox is compacted: a run on request (`peerpost compact`), a run the size
// setting calls for (in this process, or handed to a detached one by a server), and the bring-over of
// lines a compaction's file swap left in the old file (it died, or is finishing). The moves themselves
// are compaction.ts's; a database's mirror is compacted as the log itself is, but keeps its last line.
import { existsSync } from "node:fs";
import type { LocalStore } from "../local.js";
import type { LogOptions } from "../../log/types.js";
import type { MailboxEvent } from "../../records/schemas.js";
import { compactLog, type CompactionFault, type CompactionResult } from "./compaction.js";
import { compactionPaths, finishRenamedCompaction, type CompactionPaths } from "./compaction-swap.js";
import { CompactionCalls } from "./compaction-calls.js";

const DAY_MS = 86_400_000;

export interface CompactionSettings {
  now: () => number;
  /** How long a finished message stays in the live log (default 30 days). */
  retentionMs?: number;
  /** Live log size past which a long-running process compacts it by itself (default 64 MiB). */
  compactAtBytes?: number;
  /** Most messages one round of a compaction retires (compaction.ts; default 1,000,000). */
  roundMessages?: number;
}

export class MailboxCompactor {
  readonly paths: CompactionPaths;
  private compacting: Promise<CompactionResult> | undefined;
  /** The last compaction swap whose old file's tail this process brought over (each once). */
  private swapBroughtOver: string | undefined;
  /** The log's file (dev:ino) when this process last looked for a compaction's marker; null before the first look. */
  private swapCheckedFor: string | undefined | null = null;
  private readonly calls: CompactionCalls;
  /**
   * Where a compaction the size setting calls for runs: by default in this process, after the send (a CLI
   * exits first). A server hands it to a detached run instead, so its memory and its answers stay as they
   * were. Returns whether one was started (a run under way already may decide before this send).
   */
  private compactLarge: () => boolean = () => {
    setTimeout(() => void this.compact().catch(() => undefined), 0).unref();
    return true;
  };

  constructor(
    private readonly store: LocalStore<MailboxEvent>,
    private readonly settings: CompactionSettings,
    private readonly fault: LogOptions["fault"],
    /** Runs after each compaction: the indexes of a replaced log start over. */
    private readonly afterCompaction: () => void,
    /** The archive's task lines, which a compaction folds before the live log's (readers do). */
    private readonly archivedTasks: (visit: (entry: { record: MailboxEvent }) => void) => void,
  ) {
    this.paths = compactionPaths(store.log.path);
    this.calls = new CompactionCalls(this.paths, settings.now);
  }

  /** Moves finished messages older than the retention to the archive, under the log's lock (a database's mirror: see LocalStore.rewrite). */
  compact(): Promise<CompactionResult> {
    this.compacting ??= this.store
      .rewrite(() => {
        const fault = this.fault?.startsWith("compact-") ? (this.fault.slice("compact-".length) as CompactionFault) : undefined;
        return compactLog(this.store.log, { retentionMs: this.settings.retentionMs ?? 30 * DAY_MS, now: this.settings.now(), fault, archivedTasks: this.archivedTasks, roundMessages: this.settings.roundMessages, keepLastLine: !this.store.rewritable });
      })
      .then((result) => {
        this.afterCompaction();
        return result;
      })
      .finally(() => (this.compacting = undefined));
    return this.compacting;
  }

  compactElsewhere(start: () => boolean): void {
    this.compactLarge = start;
  }

  /** Past the size setting, calls for a compaction, not again too soon (compaction-calls.ts): a log of mail too young to move is not read whole at every send. */
  compactWhenLarge(end: number): void {
    const atBytes = this.compactAtBytes();
    if (this.compacting || end < atBytes) return;
    const identity = this.store.log.identity();
    if (identity) this.calls.callFor(identity, end, atBytes, () => this.compactLarge());
  }

  /** The live log size past which peerpost compacts by itself. */
  private compactAtBytes(): number {
    return this.settings.compactAtBytes ?? 64 * 1024 * 1024;
  }

  /** Whether the live log is past the size at which peerpost compacts it by itself. */
  pastCompactionSize(): boolean {
    return (this.store.log.identity()?.size ?? 0) >= this.compactAtBytes();
  }

  /**
   * Whether a compaction that swapped a new file in left lines of the old one to bring over (it died, or
   * is finishing), now brought over. Its marker is looked for only when the log's file changed since the
   * last look (and on the first): a swap always changes it, and a look on every call costs each send.
   */
  swapLeftLines(file: string | undefined): boolean {
    if (file === this.swapCheckedFor) return false;
    const marked = existsSync(this.paths.marker);
    // Recorded only once done: a bring-over that failed (a busy process out of descriptors) is tried again.
    if (marked) this.bringOverSwap();
    this.swapCheckedFor = file;
    return marked;
  }

  /** A compaction swapped files in and may have left lines in the old file (it died, or is finishing): bring them over. */
  bringOverSwap(): void {
    this.swapBroughtOver = finishRenamedCompaction(this.paths, this.swapBroughtOver);
  }
}
