// Compaction of the receipts, the sessions registry and the wakes log, each bounded as the mailbox is:
// receipts and ended wake runs older than PEERPOST_LOG_RETENTION_DAYS move to an archive their readers
// still read; the registry keeps only what each session's latest state needs. Run by `peerpost compact`,
// and by the detached `index-run` for a log past PEERPOST_LOG_COMPACT_AT_BYTES. A store whose local file
// is a mirror of a database (derived data) is not rewritten: its log is reported as skipped.
import { statSync } from "node:fs";
import type { Peerpost } from "../peerpost.js";
import type { JsonlLog } from "../log/log.js";
import { compactByPlan, compactionFault, type CompactionPlan, type LogCompactionResult, type SwapFollower } from "../store/file/log-compaction.js";
import { receiptRetentionPlan } from "../mail/receipt-retention.js";
import { latestStatePlan } from "../sessions/registry-compaction.js";
import { wakeRetentionPlan } from "../wake/wake-retention.js";

export const COMPACTED_LOGS = ["receipts", "sessions", "wakes"] as const;
export type CompactedLog = (typeof COMPACTED_LOGS)[number];

export type LogCompactionOutcome = ({ log: CompactedLog } & LogCompactionResult) | { log: CompactedLog; skipped: string };

interface Compactable<T> {
  log: JsonlLog<T>;
  swaps: SwapFollower;
  rewritable: boolean;
  rewrite<R>(work: () => R): Promise<R>;
  plan(): CompactionPlan<T>;
}

/** Calls `visit` with the log called `name`: its file, how it is rewritten, and its compaction's plan. */
function withLog<R>(peerpost: Peerpost, name: CompactedLog, visit: <T>(part: Compactable<T>) => R, cutoff = 0): R {
  const { receipts, sessions, wakes } = peerpost;
  if (name === "receipts") return visit({ log: receipts.log, swaps: receipts.swaps, rewritable: receipts.store.rewritable, rewrite: (work) => receipts.store.rewrite(work), plan: () => receiptRetentionPlan(cutoff) });
  if (name === "sessions") return visit({ log: sessions.log, swaps: sessions.swaps, rewritable: sessions.store.rewritable, rewrite: (work) => sessions.store.rewrite(work), plan: latestStatePlan });
  // The wakes log is this machine's own file, whatever the store.
  return visit({ log: wakes.log, swaps: wakes.swaps, rewritable: true, rewrite: (work) => wakes.log.exclusive(work), plan: () => wakeRetentionPlan(cutoff) });
}

/** Compacts one log under its lock; a mirror of a database is skipped. */
export async function compactOneLog(peerpost: Peerpost, name: CompactedLog): Promise<LogCompactionOutcome> {
  const fault = compactionFault(peerpost.config.fault);
  const cutoff = peerpost.config.now() - peerpost.config.logRetentionDays * 86_400_000;
  const result = await withLog(
    peerpost,
    name,
    (part) =>
      part.rewritable
        ? part.rewrite(() => {
            // Noted before any receipt moves, under the lock: a compaction killed later leaves the note true.
            if (name === "receipts") peerpost.receipts.noteArchivedBefore(cutoff);
            return compactByPlan(part.log, part.plan(), fault);
          })
        : undefined,
    cutoff,
  );
  if (!result) return { log: name, skipped: "the local file mirrors the database: the database keeps this log" };
  return { log: name, ...result };
}

/** Compacts `names` (by default every one), one after the other, then indexes the receipts' archive to its new end (not left to the first page that reads it). */
export async function compactLogs(peerpost: Peerpost, names: readonly CompactedLog[] = COMPACTED_LOGS): Promise<LogCompactionOutcome[]> {
  const outcomes: LogCompactionOutcome[] = [];
  for (const name of names) outcomes.push(await compactOneLog(peerpost, name));
  if (outcomes.some((outcome) => outcome.log === "receipts" && "movedLines" in outcome && outcome.movedLines > 0)) peerpost.receipts.indexAll();
  return outcomes;
}

/** The logs past PEERPOST_LOG_COMPACT_AT_BYTES that may be rewritten: what `index-run` compacts. */
export function logsPastCompactionSize(peerpost: Peerpost): CompactedLog[] {
  return COMPACTED_LOGS.filter((name) => withLog(peerpost, name, (part) => part.rewritable && (part.log.identity()?.size ?? 0) >= peerpost.config.logCompactAtBytes));
}

export interface CompactedLogReport {
  bytes: number;
  archiveBytes: number;
  /** When a compaction last swapped a new live file in (null: never). */
  lastCompacted: string | null;
  /** A compaction marker is there: one is running, or died (the next one completes or undoes it). */
  compacting: boolean;
}

function statOf(path: string): { size: number; mtime: string } | undefined {
  try {
    const stat = statSync(path);
    return { size: stat.size, mtime: stat.mtime.toISOString() };
  } catch {
    return undefined;
  }
}

/** Each log's size, its archive's, and when it was last compacted: a few stats, for `health` and `doctor`. */
export function compactedLogsReport(peerpost: Peerpost): Record<CompactedLog, CompactedLogReport> {
  const report = {} as Record<CompactedLog, CompactedLogReport>;
  for (const name of COMPACTED_LOGS) {
    const { paths } = withLog(peerpost, name, (part) => part.swaps);
    report[name] = { bytes: statOf(paths.live)?.size ?? 0, archiveBytes: statOf(paths.archive)?.size ?? 0, lastCompacted: statOf(paths.swap)?.mtime ?? null, compacting: statOf(paths.marker) !== undefined };
  }
  return report;
}
