// `index-run`: the detached catch-up a server or a hook starts, in any peerpost bundle. It brings this
// machine's mirrors of a shared store to the database's end (a machine new to a large store copies it
// here, not inside a prompt), compacts a live mailbox past PEERPOST_COMPACT_AT_BYTES (a server's own
// memory and answers stay out of it) and the receipts, sessions or wakes log past PEERPOST_LOG_COMPACT_AT_BYTES,
// then indexes the mailbox and the receipts when they are far ahead
// of their indexes, at the lowest priority. One runs at a time: a run under way makes the next start a no-op (and the log's and
// the index's locks guard the work).
import { rmSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { constants, setPriority } from "node:os";
import { openPeerpost, type Peerpost } from "../peerpost.js";
import { logError } from "../common/error-log.js";
import { startDetached } from "../common/detached.js";
import { isAlive } from "../sessions/process-tree.js";
import { readStateFile, writeStateFile } from "../security/trust.js";
import { withFileLock } from "../security/file-lock.js";
import { compactLogs, logsPastCompactionSize } from "./log-compaction.js";

/** A run's pid file older than this does not hold the next one back (the pid may have been reused). */
const RUN_FILE_FRESH_MS = 10 * 60_000;

function runFile(stateDir: string): string {
  return join(stateDir, "index-run.pid");
}

/** Whether an `index-run` started recently is still running. */
function running(stateDir: string): boolean {
  try {
    const path = runFile(stateDir);
    // Stale either way: an old file, or one dated ahead of a clock that was set back.
    if (Math.abs(Date.now() - statSync(path).mtimeMs) > RUN_FILE_FRESH_MS) return false;
    const pid = Number(readStateFile(path).trim());
    return Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid);
  } catch {
    return false;
  }
}

/**
 * Names the run under way in its file, unless another runs: checked and written under the file's lock, so
 * of two started at once (two hooks, a server and a hook, each seeing none) one goes on. `pid` gives the
 * run's pid (this process's, or a child it starts), or undefined when there is none.
 */
function claimRun(stateDir: string, pid: () => number | undefined): boolean {
  return withFileLock(runFile(stateDir), () => {
    if (running(stateDir)) return false;
    const run = pid();
    if (run !== undefined) writeStateFile(runFile(stateDir), `${run}\n`);
    return run !== undefined;
  });
}

/** Dates the run's file now: a run longer than RUN_FILE_FRESH_MS (a large catch-up, then an index build) still holds the next one back. */
function stillRunning(stateDir: string): void {
  try {
    const now = new Date();
    utimesSync(runFile(stateDir), now, now);
  } catch {
    // Gone: the next start may run beside this one, which the logs' and the index's own locks guard.
  }
}

export async function indexRunCommand(): Promise<number> {
  const peerpost = openPeerpost({});
  const stateDir = peerpost.stateDir.path;
  let code = 0;
  try {
    if (!claimRun(stateDir, () => process.pid)) {
      await peerpost.backend.close().catch(() => undefined);
      return 0;
    }
  } catch (error) {
    logError(stateDir, "index-run", error);
  }
  try {
    try {
      await peerpost.backend.sync();
    } catch (error) {
      // A database away now: the mirrors wait for the next run, the index is built all the same.
      logError(stateDir, "index-run", error);
      code = 1;
    }
    // A compaction indexes what it keeps; otherwise (or when it failed) the index is brought to the end here.
    let indexed = false;
    stillRunning(stateDir);
    if (peerpost.mailbox.pastCompactionSize()) {
      try {
        await peerpost.mailbox.compact();
        indexed = true;
      } catch (error) {
        logError(stateDir, "index-run", error);
        code = 1;
      }
    }
    stillRunning(stateDir);
    try {
      await compactLogs(peerpost, logsPastCompactionSize(peerpost));
    } catch (error) {
      logError(stateDir, "index-run", error);
      code = 1;
    }
    // Last, and at the lowest priority: the indexes are derived data that readers extend on their way, and
    // a build of a large log must not slow the hooks and sessions it runs beside. Only now, as the
    // compactions before hold locks that sends wait on (a lowered priority cannot be raised again).
    yieldToInteractiveWork();
    stillRunning(stateDir);
    if (!indexed) peerpost.mailbox.indexAll();
    stillRunning(stateDir);
    peerpost.receipts.indexAll();
  } catch (error) {
    logError(stateDir, "index-run", error);
    code = 1;
  } finally {
    await peerpost.backend.close().catch(() => undefined);
    try {
      if (readStateFile(runFile(stateDir)).trim() === String(process.pid)) rmSync(runFile(stateDir), { force: true });
    } catch {
      // Gone already, or another run's.
    }
  }
  return code;
}

/** Lowers this process's priority to the least (nice 19); where the system refuses, it runs as it was. */
function yieldToInteractiveWork(): void {
  try {
    setPriority(constants.priority.PRIORITY_LOW);
  } catch {
    // Not allowed here: the build runs at the priority it has.
  }
}

/** Starts `index-run` from `entry` (mirrors a budgeted sync left behind, a mailbox past its compaction size, an index far behind), unless one is running; returns whether it did. */
export function catchUpDetached(peerpost: Peerpost, entry: string): boolean {
  const stateDir = peerpost.stateDir.path;
  if (running(stateDir)) return false;
  // Named in the run's file at once, under its lock: a second look moments later (another hook, a server)
  // sees it, before the child has loaded its bundle and named itself there.
  try {
    return claimRun(stateDir, () => startDetached(entry, ["index-run"], stateDir));
  } catch {
    // The lock or the file cannot be had now: the next look starts one.
    return false;
  }
}

/** Starts `index-run` from `entry` when the mailbox's or the receipts' index lags too far for readers to extend it on their way, or the archive's lags at all. */
export function indexWhenFarBehind(peerpost: Peerpost, entry: string): void {
  let farBehind = false;
  try {
    // Not for a log past its compaction size: one whose records are too young to move stays so, and every
    // status or prompt would start a run that reads it whole for nothing. Servers call for those, at most
    // once per growth or hour (log-size-watch.ts).
    farBehind = peerpost.mailbox.indexLag().farBehind || peerpost.mailbox.archiveIndexLags() || peerpost.receipts.indexFarBehind();
  } catch {
    // A mailbox that cannot be looked at now is left to its readers (and their own error).
  }
  if (farBehind) catchUpDetached(peerpost, entry);
}
