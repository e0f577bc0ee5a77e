// When a mirror was last found to hold everything the database had committed: every sync that reaches
// the database's end records the time its last read started (mirror-<log>.current.json). A read sees
// every row committed before it started, so a mirror found current at T holds all mail sent before T. A
// prompt hook that reads such a mirror without connecting for at most N ms after T shows every message
// at the latest N ms after it was sent: that is the bound PEERPOST_MIRROR_TRUST_MS sets.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { readStateFile, writeStateFile } from "../../security/trust.js";

interface Current {
  v: 1;
  /** The store the mirror was synced from, as shown (password masked): a mirror of another store is not trusted. */
  store: string;
  /** Epoch ms at which the read that found the database's end started. */
  asOf: number;
}

function currentPath(stateDir: string, log: string): string {
  return join(stateDir, `mirror-${log}.current.json`);
}

/** Records that the mirror of `log` held the database's end as of `asOf`. Best effort: without it, hooks connect. */
export function markMirrorCurrent(stateDir: string, log: string, store: string, asOf: number): void {
  try {
    writeStateFile(currentPath(stateDir, log), JSON.stringify({ v: 1, store, asOf } satisfies Current) + "\n");
  } catch {
    // Hooks then connect, as they would without the record.
  }
}

/** Forgets that the mirror of `log` was found current: it is starting over, and holds only part of its database until a sync reaches the end again. */
export function forgetMirrorCurrent(stateDir: string, log: string): void {
  rmSync(currentPath(stateDir, log), { force: true });
}

/**
 * Whether the mirror of `log` was found current within the last `maxAgeMs` (by `now`), synced from
 * `store`. A record from the future (a clock set back) is not trusted.
 */
export function mirrorCurrentWithin(stateDir: string, log: string, store: string, maxAgeMs: number, now = Date.now()): boolean {
  if (maxAgeMs <= 0) return false;
  let value: Partial<Current>;
  try {
    value = JSON.parse(readStateFile(currentPath(stateDir, log))) as Partial<Current>;
  } catch {
    return false;
  }
  if (value.v !== 1 || value.store !== store || typeof value.asOf !== "number") return false;
  const age = now - value.asOf;
  return age >= 0 && age <= maxAgeMs;
}
