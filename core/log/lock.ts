// The lock a deciding append or a compaction takes on a log: proper-lockfile's mkdir lock, with stale
// takeover after lockStaleMs. It is a performance aid, not what makes decisions right: a holder stopped
// past the stale time may still write, and the log-order check after every deciding write settles that.
import { createRequire } from "node:module";
import { rmdirSync, statSync } from "node:fs";
import { PeerpostError, ioError } from "../common/errors.js";
import type { LogOptions } from "./types.js";

/** Slack for clock granularity before a lock's mtime counts as in the future. */
const FUTURE_LOCK_SLACK_MS = 2000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Takes the lock on the log at `path`, retrying until the timeout; resolves to its release. */
export async function lockLog(path: string, options: LogOptions): Promise<() => Promise<void>> {
  // Loaded on first deciding append only: readers (every prompt hook) never pay for it.
  const lockfile = (typeof require === "function" ? require("proper-lockfile") : createRequire(import.meta.url)("proper-lockfile")) as typeof import("proper-lockfile");
  const deadline = Date.now() + options.lockTimeoutMs;
  for (;;) {
    try {
      return await lockfile.lock(path, {
        stale: options.lockStaleMs,
        update: Math.max(1000, Math.floor(options.lockStaleMs / 2)),
        retries: 0,
        realpath: false,
        // A compromised lock (we stalled past the stale window) must not crash the process from a timer;
        // the log-order check after the write keeps the outcome right.
        onCompromised: () => undefined,
      });
    } catch (error) {
      // ENOENT: the lock dir vanished while it was being taken (another process cleared it as stale).
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ELOCKED" && code !== "ENOENT") throw ioError("lock", path, error);
      if (clearFutureLock(path)) continue;
      if (Date.now() >= deadline)
        throw new PeerpostError("state_io_error", `Timed out after ${options.lockTimeoutMs} ms waiting for the lock on ${path}.`, {
          details: { path, lock: `${path}.lock`, timeoutMs: options.lockTimeoutMs },
          hint: "Another peerpost process is holding the lock. A lock whose holder died is taken over after PEERPOST_LOCK_STALE_MS; `peerpost doctor` shows stale locks.",
        });
      await sleep(1 + Math.random() * 4);
    }
  }
}

/** A lock dated in the future was not written by a live holder on this clock: it would never go stale, so it is removed at once. */
function clearFutureLock(path: string): boolean {
  const lockPath = `${path}.lock`;
  try {
    if (statSync(lockPath).mtimeMs <= Date.now() + FUTURE_LOCK_SLACK_MS) return false;
    rmdirSync(lockPath);
    return true;
  } catch {
    return false;
  }
}
