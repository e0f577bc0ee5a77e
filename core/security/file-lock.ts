// A lock for the read-change-write of a small state file (wake.json, overrides.json, a damaged machine-id):
// a directory beside it, made or not at once. Taken for microseconds, so a process waits for it, never long:
// one left by a process that died is taken over after STALE_MS, sooner than a hook's deadline, whose timer
// cannot fire while this waits.
import { lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync, type Stats } from "node:fs";
import { join } from "node:path";
import { ioError, PeerpostError } from "../common/errors.js";
import { DIR_MODE, FILE_MODE } from "./state-dir.js";
import { readStateFileIfAny, writeStateFile } from "./trust.js";
import { sleepSync } from "../common/sleep.js";

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
      sleepSync(WAIT_MS);
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

/**
 * A small JSON state file's top-level object ({} where the file is missing). One that is no JSON object,
 * or whose `objects` fields are no objects, is refused as damaged: a person's settings in it are neither
 * guessed at (read as none, a switch turned off would be on again) nor written over by the next change.
 */
export function readJsonStateFile(path: string, objects: readonly string[] = []): Record<string, unknown> {
  const text = readStateFileIfAny(path);
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw damaged(path, error instanceof Error ? error.message : String(error));
  }
  if (!isObject(value)) throw damaged(path, "it holds no JSON object");
  const field = objects.find((key) => value[key] !== undefined && !isObject(value[key]));
  if (field !== undefined) throw damaged(path, `its ${JSON.stringify(field)} is no object`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function damaged(path: string, why: string): PeerpostError {
  return new PeerpostError("state_io_error", `${path} is damaged (${why}); peerpost neither applies its settings nor writes over them.`, {
    details: { path, reason: "damaged" },
    hint: `Fix its JSON by hand, or move it aside to start again from the defaults: mv ${path} ${path}.damaged`,
  });
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
