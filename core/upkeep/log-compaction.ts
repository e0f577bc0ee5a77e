// Compaction of the receipts, the sessions registry and the wakes log, each bounded as the mailbox is:
// receipts and ended wake runs older than PEERPOST_LOG_RETENTION_DAYS move to an archive their readers
// still read; the registry keeps only what each session's latest state needs. Run by `peerpost compact`,
// and by the detached `index-run` for a log past PEERPOST_LOG_COMPACT_AT_BYTES. On PostgreSQL the same plan
// compacts the database's table (core/store/postgres/retention.ts), then this machine's mirror of it,
// keeping the mirror's last line, where its sync resumes.
import { statSync } from "node:fs";
import type { Peerpost } from "../peerpost.js";
import type { JsonlLog } from "../log/log.js";
import type { CompactionFault } from "../store/file/line-moves.js";
import { compactByPlan, compactionFault, keepingLastLine, type CompactionPlan, type LogCompactionResult, type SwapFollower } from "../store/file/log-compaction.js";
import type { LocalStore, SourceCompaction } from "../store/local.js";
import type { CompactionPaths } from "../store/file/compaction-swap.js";
import { receiptRetentionPlan } from "../mail/receipt-retention.js";
import { latestStatePlan } from "../sessions/registry-compaction.js";
import { wakeRetentionPlan } from "../wake/wake-retention.js";

export const COMPACTED_LOGS = ["receipts", "sessions", "wakes"] as const;
export type CompactedLog = (typeof COMPACTED_LOGS)[number];

/** A log's compaction: its local file's, and on PostgreSQL first the database's (`database`). */
export type LogCompactionOutcome = ({ log: CompactedLog; database?: SourceCompaction } & LogCompactionResult) | { log: CompactedLog; skipped: string };

interface Compactable<T> {
  log: JsonlLog<T>;
  swaps: SwapFollower;
  /** The store, where the log has one (the wakes log is this machine's own file). */
  store?: LocalStore<T>;
  plan(): CompactionPlan<T>;
}

/** Calls `visit` with the log called `name`: its file, how it is rewritten, and its compaction's plan. */
function withLog<R>(peerpost: Peerpost, name: CompactedLog, visit: <T>(part: Compactable<T>) => R, cutoff = 0): R {
  const { receipts, sessions, wakes } = peerpost;
  if (name === "receipts") return visit({ log: receipts.log, swaps: receipts.swaps, store: receipts.store, plan: () => receiptRetentionPlan(cutoff) });
  if (name === "sessions") return visit({ log: sessions.log, swaps: sessions.swaps, store: sessions.store, plan: latestStatePlan });
  // The wakes log is this machine's own file, whatever the store.
  return visit({ log: wakes.log, swaps: wakes.swaps, plan: () => wakeRetentionPlan(cutoff, peerpost.config.now()) });
}

/** Whether the log's local file may be compacted: the log itself, or a mirror that follows its database's compaction. */
function compactable<T>(part: Compactable<T>): boolean {
  return !part.store || part.store.rewritable || part.store.compactSource !== undefined;
}

/** Compacts one log's part under its lock; `beforeMoves` runs under the lock first. On PostgreSQL, the database's table and then this machine's mirror. */
async function compactPart<T>(name: CompactedLog, part: Compactable<T>, beforeMoves: () => void, fault: CompactionFault | undefined): Promise<LogCompactionOutcome> {
  const compactLocal = (plan: CompactionPlan<T>) => () => {
    beforeMoves();
    return compactByPlan(part.log, plan, fault);
  };
  const { store } = part;
  if (!store) return { log: name, ...(await part.log.exclusive(compactLocal(part.plan()))) };
  if (store.rewritable) return { log: name, ...(await store.rewrite(compactLocal(part.plan()))) };
  if (!store.compactSource) return { log: name, skipped: "the local file mirrors a store that keeps this log itself" };
  const { source, local } = await store.compactSource(part.plan(), compactLocal(keepingLastLine(part.plan())));
  return { log: name, database: source, ...local };
}

/** Compacts one log under its lock: on PostgreSQL, the database's table and then this machine's mirror. */
export async function compactOneLog(peerpost: Peerpost, name: CompactedLog): Promise<LogCompactionOutcome> {
  const cutoff = peerpost.config.now() - peerpost.config.logRetentionDays * 86_400_000;
  // Noted before any receipt moves, under the lock: a compaction killed later leaves the note true.
  const beforeMoves = () => void (name === "receipts" && peerpost.receipts.noteArchivedBefore(cutoff));
  return withLog(peerpost, name, (part) => compactPart(name, part, beforeMoves, compactionFault(peerpost.config.fault)), cutoff);
}

/** Compacts `names` (by default every one), one after the other, then indexes the receipts' and the wakes' archives and a compacted registry to their new ends (not left to the first read). */
export async function compactLogs(peerpost: Peerpost, names: readonly CompactedLog[] = COMPACTED_LOGS): Promise<LogCompactionOutcome[]> {
  const outcomes: LogCompactionOutcome[] = [];
  for (const name of names) outcomes.push(await compactOneLog(peerpost, name));
  const moved = (name: CompactedLog) => outcomes.some((outcome) => outcome.log === name && "movedLines" in outcome && outcome.movedLines > 0);
  if (moved("receipts")) peerpost.receipts.indexAll();
  if (moved("wakes")) peerpost.wakes.archived.indexAll();
  // The registry's new file voids its index, which every hook reads through (sessions.get): built here,
  // not in the next person's prompt (seconds for some ten thousand sessions). Derived data: best effort.
  if (outcomes.some((outcome) => outcome.log === "sessions" && "droppedLines" in outcome && outcome.droppedLines > 0)) {
    try {
      peerpost.sessions.index.extend();
    } catch {
      // The next reader extends it on its way.
    }
  }
  return outcomes;
}

/** The logs whose local file a compaction may rewrite, each with that file and its compaction's files. */
export function compactableLogs(peerpost: Peerpost): Array<{ name: CompactedLog; log: JsonlLog<unknown>; paths: CompactionPaths }> {
  return COMPACTED_LOGS.flatMap((name) => withLog(peerpost, name, (part) => (compactable(part) ? [{ name, log: part.log as JsonlLog<unknown>, paths: part.swaps.paths }] : [])));
}

/** The logs past PEERPOST_LOG_COMPACT_AT_BYTES that may be rewritten: what `index-run` compacts. */
export function logsPastCompactionSize(peerpost: Peerpost): CompactedLog[] {
  return compactableLogs(peerpost)
    .filter(({ log }) => (log.identity()?.size ?? 0) >= peerpost.config.logCompactAtBytes)
    .map(({ name }) => name);
}

export interface CompactedLogReport {
  bytes: number;
  archiveBytes: number;
  /** When a compaction last swapped a new live file in (null: never). */
  lastCompacted: string | null;
  /** A compaction marker is there: one is running, or died (the next one completes or undoes it). */
  compacting: boolean;
  /** How long ago that marker was written (null: none); `doctor` reports an old one as a compaction that stopped. */
  markerAgeMs: number | null;
}

function statOf(path: string): { size: number; mtime: string; mtimeMs: number } | undefined {
  try {
    const stat = statSync(path);
    return { size: stat.size, mtime: stat.mtime.toISOString(), mtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

/** Each log's size, its archive's, and when it was last compacted: a few stats, for `health` and `doctor`. */
export function compactedLogsReport(peerpost: Peerpost): Record<CompactedLog, CompactedLogReport> {
  const report = {} as Record<CompactedLog, CompactedLogReport>;
  for (const name of COMPACTED_LOGS) {
    const { paths } = withLog(peerpost, name, (part) => part.swaps);
    const marker = statOf(paths.marker);
    report[name] = { bytes: statOf(paths.live)?.size ?? 0, archiveBytes: statOf(paths.archive)?.size ?? 0, lastCompacted: statOf(paths.swap)?.mtime ?? null, compacting: marker !== undefined, markerAgeMs: marker ? Math.round(Date.now() - marker.mtimeMs) : null };
  }
  return report;
}
