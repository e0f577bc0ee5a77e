// A lock for the read-change-write of a small state file (wake.json, overrides.json, a damaged machine-id):
// a directory beside it, made or not at once. Taken for microseconds, so a process waits for it, never long:
// one left by a process that died is taken over after STALE_MS, sooner than a hook's deadline, whose timer
// cannot fire while this waits.
import { lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync, type Stats } from "node:fs";
import { join } from "node:path";
import { ioError } from "../common/errors.js";
import { DIR_MODE, FILE_MODE } from "./state-dir.js";
import { writeStateFile } from "./trust.js";

const STALE_MS = 1000;
const WAIT_MS = 2;

/** Runs `work` holding the lock on `path`; throws state_io_error when it cannot be had in twice STALE_MS. */
export function withFileLock<T>(path: string, work: () => T): T {
  const lock = `${path}.updating`;
  const owner = `${process.pid}.${Math.random().toString(36).slice(2)}`;
  for (let waited = 0; ; waited += WAIT_MS) {
    try {
      mkdirSync(lock, { mode: DIR_MODE });
      writeFileSync(join(lock, "owner"), owner, { mode: FILE_MODE });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || waited > 2 * STALE_MS) throw ioError("lock", path, error);
      // Never through a link: anything but a directory there is no lock of ours, and goes at once.
      const held = lstatSync(lock, { throwIfNoEntry: false });
      if (held && (!held.isDirectory() || Math.abs(Date.now() - held.mtimeMs) > STALE_MS)) breakStale(lock, held);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, WAIT_MS);
    }
  }
  try {
    return work();
  } finally {
    // Only its own: a holder stopped past STALE_MS (SIGSTOP) was taken over, and the lock there is another's.
    if (ownerOf(lock) === owner) rmSync(lock, { recursive: true, force: true });
  }
}

function ownerOf(lock: string): string | undefined {
  try {
    return readFileSync(join(lock, "owner"), "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Removes a lock judged stale, only if it is still that one: waiters check again and remove it one at a
 * time, under a second lock, so one that judged the old lock stale never removes the lock another took since.
 */
function breakStale(lock: string, held: Stats): void {
  const breaker = `${lock}.breaking`;
  try {
    mkdirSync(breaker, { mode: DIR_MODE });
  } catch {
    // Another waiter is at it; one left by a process killed in those microseconds is cleared after a while.
    const left = lstatSync(breaker, { throwIfNoEntry: false });
    if (left && Math.abs(Date.now() - left.mtimeMs) > 2 * STALE_MS) rmSync(breaker, { recursive: true, force: true });
    return;
  }
  try {
    const again = lstatSync(lock, { throwIfNoEntry: false });
    if (again && again.ino === held.ino && again.mtimeMs === held.mtimeMs) rmSync(lock, { recursive: true, force: true });
  } finally {
    rmSync(breaker, { recursive: true, force: true });
  }
}

/** Reads a small JSON state file's value (`read`), lets `change` alter it, and writes it back whole, all under the lock; returns what `change` returns. */
export function updateJsonFile<V extends object, R>(path: string, read: () => V, change: (value: V) => R): R {
  return withFileLock(path, () => {
    const value = read();
    const result = change(value);
    try {
      writeStateFile(path, JSON.stringify({ v: 1, ...value }, null, 2) + "\n");
    } catch (error) {
      throw ioError("write", path, error);
    }
    return result;
  });
}
