// The runs of the wakes archive that one read shows. The archive only grows (every run past the log
// retention), so it is read through an index of its own (scope-index.ts): a run's lines are filed about
// its id and about each message it carried, and under its session's address, so `status` of a message
// reads that message's runs and no others. The newest runs are read back from the archive's end.
import type { JsonlLog } from "../log/log.js";
import { committedArchiveBytes, type CompactionPaths } from "../store/file/compaction-swap.js";
import { ScopeIndex, type ScopesOf } from "../store/file/scope-index.js";
import type { WakeRecord } from "./records.js";
import { WakeFold } from "./wake-fold.js";

/**
 * A claim is filed as its run's first line (later lines find its address through it) and about the
 * messages it carries; a launch's bound line adds its session's address and first message. Every line is
 * about its run, so a run is read whole once any of its lines is found.
 */
const runScopes: ScopesOf<WakeRecord> = (record, scopesOfRun) => {
  if (record.type === "wake") return { id: record.id, scopes: record.address === undefined ? [] : [record.address], about: record.messageIds };
  const scopes = scopesOfRun(record.id) ?? [];
  if (record.type === "wake-bound") return { scopes: [...new Set([...scopes, record.address])], about: [record.id, ...record.messageIds] };
  return { scopes, about: [record.id] };
};

export class ArchivedRuns {
  readonly index: ScopeIndex<WakeRecord>;

  constructor(
    private readonly archive: JsonlLog<WakeRecord>,
    private readonly paths: CompactionPaths,
    indexDir: string,
  ) {
    this.index = new ScopeIndex(archive, indexDir, runScopes, { segments: true });
  }

  /** The archived runs that carried `messageId` (a fold that may hold others too: callers filter it). */
  carrying(messageId: string): WakeFold {
    return this.runsAt((index) => index.linesAbout(messageId)?.offsets);
  }

  /** Whether the archive holds any committed run at all. */
  holdsRuns(): boolean {
    return committedArchiveBytes(this.paths) > 0;
  }

  /** The newest archived run of `address`'s session: the one whose claim (or a launch's bound line) comes last in its lines. */
  lastOf(address: string): WakeFold {
    return this.runsAt((index) => {
      const offsets = index.lookup(address)?.offsets;
      if (!offsets) return undefined;
      for (let at = offsets.length - 1; at >= 0; at--) {
        let starts = false;
        this.archive.readLinesAt([offsets[at]!], ({ record }) => void (starts = record.type === "wake" || record.type === "wake-bound"));
        if (starts) return [offsets[at]!];
      }
      return [];
    });
  }

  /** The first archived run of `address`'s session (a launched session's is its launch). */
  firstOf(address: string): WakeFold {
    return this.runsAt((index) => index.lookup(address)?.offsets.slice(0, 1));
  }

  /** At least the `count` newest archived runs, read back from the archive's end. */
  newest(count: number): WakeFold {
    const committed = committedArchiveBytes(this.paths);
    const lines: WakeRecord[] = [];
    let claims = 0;
    if (committed > 0) this.archive.scanBackward(committed, ({ record }) => (lines.push(record), record.type !== "wake" || ++claims < count));
    // Folded in log order: a run's lines after its claim, which is among them for every run counted.
    const fold = new WakeFold();
    for (const record of lines.reverse()) fold.apply(record);
    return fold;
  }

  /** Indexes the archive to its committed end: a compaction that moved runs does it, not the next status. */
  indexAll(): void {
    const committed = committedArchiveBytes(this.paths);
    try {
      if (committed > 0 && this.index.covered() !== committed) this.index.extend(committed);
    } catch {
      // Derived data: readers read the archive whole until it is indexed.
    }
  }

  /**
   * The whole runs of the lines `found` finds through the index, folded; the whole archive folded when
   * the index cannot serve (damaged, or another process is extending it).
   */
  private runsAt(found: (index: ScopeIndex<WakeRecord>) => number[] | undefined): WakeFold {
    const fold = new WakeFold();
    const committed = committedArchiveBytes(this.paths);
    if (committed === 0) return fold;
    const offsets = this.wholeRuns(committed, found);
    if (offsets) this.archive.readLinesAt(offsets, ({ record }) => fold.apply(record));
    else this.archive.scan(0, ({ record }) => fold.apply(record), { until: committed });
    return fold;
  }

  /** The offsets of every line of the runs whose lines `found` finds, in log order; undefined when the index cannot serve. */
  private wholeRuns(committed: number, found: (index: ScopeIndex<WakeRecord>) => number[] | undefined): number[] | undefined {
    try {
      if (this.index.covered() !== committed) this.index.extend(committed);
      if (this.index.covered() !== committed) return undefined;
      const first = found(this.index);
      if (!first) return undefined;
      const runs = new Set<string>();
      this.archive.readLinesAt(first, ({ record }) => void runs.add(record.id));
      const offsets = new Set<number>();
      for (const run of runs) {
        const lines = this.index.linesAbout(run);
        if (!lines) return undefined;
        for (const offset of lines.offsets) offsets.add(offset);
      }
      return [...offsets].sort((a, b) => a - b);
    } catch {
      return undefined;
    }
  }
}
