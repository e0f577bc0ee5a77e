// Inspects the state dir for `health` and `peerpost doctor`: permissions, log sizes, corrupt lines,
// torn tails, stale locks and recent hook errors. Read-only.
import { accessSync, constants, lstatSync, readdirSync, statSync, type Dirent } from "node:fs";
import { join, relative } from "node:path";
import { readStateFile } from "../security/trust.js";
import type { Peerpost } from "../peerpost.js";
import { type JsonlLog } from "../log/log.js";
import { RECENT_CORRUPT, type CorruptLine, type CorruptReport } from "../log/types.js";
import { errorLogPath } from "../common/error-log.js";
import { invalidSnapshots, type InvalidSnapshot } from "../mail/snapshots.js";
import { inspectWorkSnapshot } from "../claims/work-fold.js";
import { CLAIMS_FOLD } from "../claims/claims.js";
import { compactedLogsReport, type CompactedLog, type CompactedLogReport } from "./log-compaction.js";

export interface LogReport {
  path: string;
  exists: boolean;
  bytes: number;
  mode?: string;
  corrupt: number;
  recentCorrupt: CorruptLine[];
  tornTail: boolean;
  lock: "none" | "held" | "stale";
}

/** Where compaction and the index stand (the file store's mailbox). */
export interface StorageReport {
  /**
   * `indexed`: the archive's index reaches its committed end (else `status` of an archived message scans it);
   * `indexBytes`: the size of that index's files; `lastCompactedAt`: when a compaction last moved mail here (null: never).
   */
  archive: { path: string; bytes: number; indexed: boolean; indexBytes: number; lastCompactedAt: string | null };
  /** The compaction marker, while one stands: a compaction under way, or one that died (readers are unaffected). */
  marker: { path: string; ageMs: number } | null;
  /** A compaction marker older than a minute: a compaction died there (readers are unaffected; the next one completes or undoes it). */
  compactionInterrupted: boolean;
  /** Bytes of the mailbox the per-address index does not cover, whether that is beyond what readers index on their way, and the size of its files. */
  index: { lagBytes: number; farBehind: boolean; bytes: number };
  /** Index files found disagreeing with their checksums in the last day (each index then rebuilt from its log): path under the state dir, what was wrong, when. */
  indexDamage: Array<{ file: string; problem: string; at: string }>;
  /** The receipts, sessions and wakes logs: live and archive sizes, when each last compacted, and whether a compaction's marker stands. */
  compactedLogs: Record<CompactedLog, CompactedLogReport>;
}

export interface StateReport {
  stateDir: { path: string; source: string; mode: string; private: boolean; writable: boolean };
  logs: { mailbox: LogReport; receipts: LogReport; sessions: LogReport };
  storage: StorageReport;
  /** Cached views a reader would not trust (it rebuilds them from the log). */
  snapshots: { checked: number; invalid: InvalidSnapshot[] };
  /**
   * The work folds' snapshots: the claims' (trusted, at which log offset; stale, the log moved on under it
   * and the next fold saves a new one; invalid; or missing). The tasks' fold keeps none: it reads the
   * index's task lines and the archive's each time a process starts.
   */
  work: { claims: { path: string; status: "trusted" | "stale" | "invalid" | "missing"; offset?: number; reason?: string } };
  recentErrors: string[];
}

function modeOf(path: string): string | undefined {
  try {
    return "0" + (statSync(path).mode & 0o777).toString(8);
  } catch {
    return undefined;
  }
}

function lockState(logPath: string, staleMs: number): LogReport["lock"] {
  try {
    const age = Date.now() - statSync(`${logPath}.lock`).mtimeMs;
    return age > staleMs ? "stale" : "held";
  } catch {
    return "none";
  }
}

export function inspectLog<T>(log: JsonlLog<T>, staleMs: number, corrupt?: CorruptReport): LogReport {
  const identity = log.identity();
  const report: LogReport = { path: log.path, exists: identity !== undefined, bytes: identity?.size ?? 0, corrupt: 0, recentCorrupt: [], tornTail: false, lock: lockState(log.path, staleMs) };
  const mode = modeOf(log.path);
  if (mode !== undefined) report.mode = mode;
  if (!identity) return report;
  if (corrupt) {
    report.corrupt = corrupt.count;
    report.recentCorrupt = corrupt.recent;
    report.tornTail = corrupt.tornTail;
  } else {
    const scanned = log.scan(0, () => undefined);
    report.corrupt = scanned.corrupt.length;
    report.recentCorrupt = scanned.corrupt.slice(-RECENT_CORRUPT);
    report.tornTail = scanned.tornTail;
  }
  return report;
}

/** A marker this old belongs to no running compaction (one takes seconds even at a million messages' worth of moves). */
export const INTERRUPTED_AFTER_MS = 60_000;

/**
 * Damage found in the indexes of the mailbox, the receipts and their archives, the sessions and the wakes archive in the last day.
 * With `verify` (doctor), every index file is checked against its checksum first.
 */
function indexDamage(peerpost: Peerpost, verify: boolean): StorageReport["indexDamage"] {
  const indexes = [peerpost.mailbox.index, peerpost.mailbox.archiveIndex, peerpost.receipts.index, peerpost.receipts.archiveIndex, peerpost.sessions.index, peerpost.wakes.archived.index];
  return indexes.flatMap((index) => {
    if (verify) index.verifyAll();
    return index.damageNotes().map((note) => ({ file: relative(peerpost.stateDir.path, join(index.dir, note.file)), problem: note.problem, at: note.at }));
  });
}

/** A file's size and modification time, looked at without following a link; undefined when there is none. */
function look(path: string): { size: number; mtimeMs: number } | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** Bytes of an index's files: its own and those one dir down (scopes/, ids/). */
function indexBytes(dir: string): number {
  let bytes = 0;
  const add = (path: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isFile()) bytes += look(join(path, entry.name))?.size ?? 0;
      else if (entry.isDirectory() && depth > 0) add(join(path, entry.name), depth - 1);
    }
  };
  add(dir, 1);
  return bytes;
}

function inspectStorage(peerpost: Peerpost, verify: boolean): StorageReport {
  const { mailbox } = peerpost;
  const { archive, marker, swap } = mailbox.compaction;
  const markerFile = look(marker);
  const markerAge = markerFile && Date.now() - markerFile.mtimeMs;
  // Each compaction that moves mail records its swap last: that record's time is the last compaction's.
  const swapped = look(swap);
  return {
    archive: { path: archive, bytes: look(archive)?.size ?? 0, indexed: !mailbox.archiveIndexLags(), indexBytes: indexBytes(mailbox.archiveIndex.dir), lastCompactedAt: swapped ? new Date(swapped.mtimeMs).toISOString() : null },
    marker: markerAge === undefined ? null : { path: marker, ageMs: Math.round(markerAge) },
    compactionInterrupted: markerAge !== undefined && markerAge > INTERRUPTED_AFTER_MS,
    index: { ...mailbox.indexLag(), bytes: indexBytes(mailbox.index.dir) },
    indexDamage: indexDamage(peerpost, verify),
    compactedLogs: compactedLogsReport(peerpost),
  };
}

/** How long a logged error counts as recent: `doctor` reports it as a problem (and exits 1) only meanwhile. */
const RECENT_ERROR_MS = 86_400_000;

/**
 * The error log's last `count` lines from the last day (one whose time cannot be read counts): a passing
 * failure, a lock that timed out once, is not a problem for good.
 */
export function recentErrors(stateDir: string, now: number, count = 10): string[] {
  let lines: string[];
  try {
    lines = readStateFile(errorLogPath(stateDir)).trim().split("\n").filter(Boolean);
  } catch {
    return [];
  }
  const recent = (line: string) => {
    try {
      const at = Date.parse((JSON.parse(line) as { at?: unknown }).at as string);
      return Number.isNaN(at) || now - at < RECENT_ERROR_MS;
    } catch {
      return true;
    }
  };
  return lines.slice(-count).filter(recent);
}

/** Each log's corrupt lines from its index and a scan of the lines past it: what `health` reports without reading whole logs. */
export function indexedCorruptLines(peerpost: Peerpost): Record<"mailbox" | "receipts" | "sessions", CorruptReport> {
  return { mailbox: peerpost.mailbox.corruptLines(), receipts: peerpost.receipts.corruptLines(), sessions: peerpost.sessions.corruptLines() };
}

/** Without `corrupt` (doctor), each log is read whole for its corrupt lines, and each index checked whole. */
export function inspectState(peerpost: Peerpost, corrupt?: Record<"mailbox" | "receipts" | "sessions", CorruptReport>): StateReport {
  const { stateDir, config } = peerpost;
  let writable = true;
  try {
    accessSync(stateDir.path, constants.W_OK);
  } catch {
    writable = false;
  }
  const mode = modeOf(stateDir.path) ?? stateDir.mode;
  return {
    stateDir: { path: stateDir.path, source: stateDir.source, mode, private: mode === "0700", writable },
    logs: {
      mailbox: inspectLog(peerpost.mailbox.log, config.lockStaleMs, corrupt?.mailbox),
      receipts: inspectLog(peerpost.receipts.log, config.lockStaleMs, corrupt?.receipts),
      sessions: inspectLog(peerpost.sessions.log, config.lockStaleMs, corrupt?.sessions),
    },
    storage: inspectStorage(peerpost, corrupt === undefined),
    snapshots: invalidSnapshots(peerpost.mailbox.cacheDir, peerpost.mailbox.log.path),
    work: { claims: inspectWorkSnapshot(peerpost.mailbox, CLAIMS_FOLD)! },
    recentErrors: recentErrors(stateDir.path, config.now()),
  };
}
