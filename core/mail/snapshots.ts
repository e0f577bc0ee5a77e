// Snapshots of mailbox views. A snapshot is derived data: it is trusted only when every field is valid
// and consistent (snapshot-check.ts) and the log it was taken from is the same file (device + inode), at
// least as long as the snapshot's offset, with the same bytes just before that offset. Anything else —
// missing, corrupt, malformed, replaced or truncated log — makes the reader rebuild from the log.
import { closeSync, constants, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { fnv1a64 } from "../common/hash.js";
import type { MailboxState } from "./fold.js";
import type { CorruptSummary } from "../log/types.js";
import { FILE_MODE, openStateFile, readStateFile } from "../security/trust.js";
import { ioError } from "../common/errors.js";
import { snapshotProblem } from "./snapshot-check.js";

/** Raised whenever the fold's state changes shape (2: run-time roles and role mail in every view). */
export const SNAPSHOT_VERSION = 2;

export interface Snapshot {
  v: typeof SNAPSHOT_VERSION;
  kind: "mailbox-view";
  scope: string | null;
  log: { path: string; dev: number; ino: number; offset: number; tail: string };
  state: MailboxState;
  corrupt: CorruptSummary;
}

const TAIL_BYTES = 256;

/** A hash of the bytes just before `offset`: detects a log that was rewritten to the same length or longer. */
export function tailFingerprint(logPath: string, offset: number): string {
  const length = Math.min(TAIL_BYTES, offset);
  const buffer = Buffer.alloc(length);
  if (length > 0) {
    const fd = openStateFile(logPath, constants.O_RDONLY);
    try {
      readSync(fd, buffer, 0, length, offset - length);
    } finally {
      closeSync(fd);
    }
  }
  return fnv1a64(buffer);
}

export type SnapshotLoad = { status: "valid"; snapshot: Snapshot } | { status: "missing" } | { status: "invalid"; reason: string };

export function loadSnapshot(snapshotPath: string, logPath: string, scope: string | undefined): SnapshotLoad {
  let text: string;
  try {
    text = readStateFile(snapshotPath);
  } catch {
    return { status: "missing" };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { status: "invalid", reason: "not JSON" };
  }
  const problem = snapshotProblem(value, { logPath, scope: scope ?? null, version: SNAPSHOT_VERSION });
  if (problem) return { status: "invalid", reason: problem };
  const snapshot = value as Snapshot;
  try {
    const stat = statSync(logPath);
    if (stat.ino !== snapshot.log.ino || stat.dev !== snapshot.log.dev) return { status: "invalid", reason: "log replaced" };
    if (stat.size < snapshot.log.offset) return { status: "invalid", reason: "log truncated" };
    if (tailFingerprint(logPath, snapshot.log.offset) !== snapshot.log.tail) return { status: "invalid", reason: "log rewritten" };
  } catch {
    return { status: "invalid", reason: "log missing" };
  }
  return { status: "valid", snapshot };
}

export async function saveSnapshot(snapshotPath: string, snapshot: Snapshot): Promise<void> {
  // Loaded only when a snapshot is written, which most prompt hooks never do. By require, not import():
  // in a CommonJS hook bundle import() starts the ES module loader and lexes the package (~8 ms).
  const writeFileAtomic = (typeof require === "function" ? require("write-file-atomic") : createRequire(import.meta.url)("write-file-atomic")) as typeof import("write-file-atomic");
  try {
    // No fsync: a snapshot lost in a crash is rebuilt from the log.
    await writeFileAtomic(snapshotPath, JSON.stringify(snapshot), { mode: FILE_MODE, fsync: false });
  } catch (error) {
    throw ioError("write the cache", snapshotPath, error);
  }
}

/** File name of a scope's snapshot: a hash, so no address ever becomes a path. */
export function snapshotFileName(scope: string | undefined): string {
  return `view-${fnv1a64(scope ?? "*")}.json`;
}

export interface InvalidSnapshot {
  path: string;
  reason: string;
}

/** Every snapshot in the cache dir that a reader would not trust (for `peerpost doctor`); read-only. */
export function invalidSnapshots(cacheDir: string, logPath: string): { checked: number; invalid: InvalidSnapshot[] } {
  let names: string[];
  try {
    names = readdirSync(cacheDir).filter((name) => /^view-[0-9a-f]+\.json$/.test(name));
  } catch {
    return { checked: 0, invalid: [] };
  }
  const invalid: InvalidSnapshot[] = [];
  for (const name of names) {
    const path = join(cacheDir, name);
    let scope: unknown;
    try {
      scope = (JSON.parse(readStateFile(path)) as { scope?: unknown } | null)?.scope;
    } catch {
      scope = undefined;
    }
    // A snapshot is read only under the name its scope hashes to; one under another name is never used.
    const claimed = typeof scope === "string" ? scope : undefined;
    if ((typeof scope !== "string" && scope !== null) || snapshotFileName(claimed) !== name) {
      invalid.push({ path, reason: "not a snapshot of any scope under this name" });
      continue;
    }
    const loaded = loadSnapshot(path, logPath, claimed);
    if (loaded.status === "invalid") invalid.push({ path, reason: loaded.reason });
  }
  return { checked: names.length, invalid };
}
