// Compaction of the file store's smaller logs (receipts, sessions, wakes) by a plan of their own: a first
// pass shows the plan every record, then the plan places each line (archive, keep, drop) and the crash-safe
// moves and swap of the mailbox's compaction do the rest (line-moves.ts, compaction-swap.ts). A reader of
// such a log calls `SwapFollower.check` when the log's file changed, to bring over lines a compactor that
// died past its rename left in the old file.
import { existsSync, statSync } from "node:fs";
import type { JsonlLog } from "../../log/log.js";
import type { LogEntry } from "../../log/types.js";
import { compactionPaths, finishRenamedCompaction, recoverCompaction, type CompactionPaths } from "./compaction-swap.js";
import { moveLines, type CompactionFault, type Placement } from "./line-moves.js";

export interface CompactionPlan<T> {
  /** Pass 1: the lines worth parsing (by default all); the others are neither observed nor checked. */
  wanted?: (line: Buffer) => boolean;
  /** Pass 1: every valid record it wanted, in log order. */
  observe(entry: LogEntry<T>): void;
  /** After pass 1, with the offsets of the corrupt lines it met (they always stay): whether any line leaves the live log. */
  anyLeaves(corrupt: ReadonlySet<number>): boolean;
  /** Pass 2: where each line goes, by its record read again, or by its offset alone. */
  place: Placement<T>;
}

export interface LogCompactionResult {
  movedLines: number;
  droppedLines: number;
  keptLines: number;
  liveBytesBefore: number;
  liveBytesAfter: number;
  archiveBytes: number;
}

function sizeOf(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

/** Compacts `log` as `plan` says; the caller holds the log's lock (no deciding append, nor other compaction, runs meanwhile). */
export function compactByPlan<T>(log: JsonlLog<T>, plan: CompactionPlan<T>, fault?: CompactionFault): LogCompactionResult {
  const paths = compactionPaths(log.path);
  recoverCompaction(paths);
  const liveBytesBefore = log.identity()?.size ?? 0;
  const result: LogCompactionResult = { movedLines: 0, droppedLines: 0, keptLines: 0, liveBytesBefore, liveBytesAfter: liveBytesBefore, archiveBytes: sizeOf(paths.archive) };
  if (liveBytesBefore === 0) return result;
  const firstPass = log.scan(0, (entry) => plan.observe(entry), plan.wanted ? { wanted: plan.wanted } : {});
  if (!plan.anyLeaves(new Set(firstPass.corrupt.map((line) => line.offset)))) return result;
  const moves = moveLines(log, paths, firstPass.next, plan.place, fault);
  return { ...moves, liveBytesBefore, liveBytesAfter: log.identity()?.size ?? 0, archiveBytes: sizeOf(paths.archive) };
}

/**
 * `plan`, but the last record it observes stays wherever the plan would place it: a mirror of a database
 * resumes its sync after its last line, so a compaction of the mirror must leave that line in it.
 */
export function keepingLastLine<T>(plan: CompactionPlan<T>): CompactionPlan<T> {
  let last = -1;
  const { place } = plan;
  return {
    ...(plan.wanted ? { wanted: (line: Buffer) => plan.wanted!(line) } : {}),
    observe(entry) {
      last = entry.offset;
      plan.observe(entry);
    },
    anyLeaves: (corrupt) => plan.anyLeaves(corrupt),
    place: typeof place === "function" ? (entry) => (entry.offset === last ? "keep" : place(entry)) : { atOffset: (offset, line) => (offset === last ? "keep" : place.atOffset(offset, line)) },
  };
}

/** A compaction fault of the process's fault setting, for the crash tests. */
export function compactionFault(fault: string | undefined): CompactionFault | undefined {
  return fault?.startsWith("compact-") ? (fault.slice("compact-".length) as CompactionFault) : undefined;
}

/**
 * Brings over, once per swap, the lines a compaction that swapped a new file in left in the old one (it
 * died past its rename, or is finishing), so that a reader sees every acknowledged line. Looks for the
 * marker only when the log's file changed since the last look: a swap always changes it.
 */
export class SwapFollower {
  readonly paths: CompactionPaths;
  private checkedFor: string | undefined | null = null;
  private broughtOver: string | undefined;

  constructor(livePath: string) {
    this.paths = compactionPaths(livePath);
  }

  check(file: string | undefined): void {
    if (file === this.checkedFor) return;
    if (existsSync(this.paths.marker)) this.broughtOver = finishRenamedCompaction(this.paths, this.broughtOver);
    this.checkedFor = file;
  }
}
