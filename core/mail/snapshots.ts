// Snapshots of mailbox views. A snapshot is derived data: it is trusted only when every field is valid
// and consistent (snapshot-check.ts) and the log it was taken from is the same file (device + inode), at
// least as long as the snapshot's offset, with the same bytes just before that offset. Anything else —
// missing, corrupt, malformed, replaced or truncated log — makes the reader rebuild from the log.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fnv1a64 } from "../common/hash.js";
import type { MailboxState } from "./fold.js";
import type { CorruptSummary } from "../log/types.js";
import { readStateFile } from "../security/trust.js";
import { positionProblem, readSnapshotFile, writeSnapshotFile, type LogPosition } from "../log/log-snapshot.js";
import { snapshotProblem } from "./snapshot-check.js";

/** Raised whenever the fold's state changes shape (2: run-time roles and role mail in every view). */
export const SNAPSHOT_VERSION = 2;

export interface Snapshot {
  v: typeof SNAPSHOT_VERSION;
  kind: "mailbox-view";
  scope: string | null;
  log: LogPosition;
  state: MailboxState;
  corrupt: CorruptSummary;
}

export type SnapshotLoad = { status: "valid"; snapshot: Snapshot } | { status: "missing" } | { status: "invalid"; reason: string };

export function loadSnapshot(snapshotPath: string, logPath: string, scope: string | undefined): SnapshotLoad {
  const read = readSnapshotFile(snapshotPath);
  if (read.status !== "read") return read;
  const problem = snapshotProblem(read.value, { logPath, scope: scope ?? null, version: SNAPSHOT_VERSION });
  if (problem) return { status: "invalid", reason: problem };
  const snapshot = read.value as Snapshot;
  // As a fold's own maps (fold.ts), none with a prototype.
  for (const map of [snapshot.state.messages, snapshot.state.idempotency, snapshot.state.roles]) Object.setPrototypeOf(map, null);
  const moved = positionProblem(logPath, snapshot.log);
  return moved ? { status: "invalid", reason: moved } : { status: "valid", snapshot };
}

export function saveSnapshot(snapshotPath: string, snapshot: Snapshot): Promise<void> {
  return writeSnapshotFile(snapshotPath, snapshot);
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
