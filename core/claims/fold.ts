// The pure fold of claim and release events into the claims that stand, decided by log order: a claim
// that overlaps a standing claim of another holder (exclusive against anything, or anything against
// exclusive) at its own time is void, whole, whatever its writer saw. A claim on a pattern its holder
// already holds renews it. A claim ends at its TTL (read at a time, not written), or by a release event.
import type { ClaimEvent, ReleaseEvent } from "../records/schemas.js";
import { patternCovers, patternsOverlap, type MatchOptions } from "./glob.js";

export interface ClaimEntry {
  holder: string;
  repo: string;
  path: string;
  shared: boolean;
  reason?: string;
  /** When the holder first claimed it (a renewal keeps it). */
  since: string;
  until: string;
  /** The claim event that set it last. */
  claimId: string;
}

export interface ClaimsState {
  /** Standing claims by `${repo}\n${holder}\n${path}`; an expired one stays until a release event ends it. */
  entries: Record<string, ClaimEntry>;
}

export function emptyClaims(): ClaimsState {
  return { entries: {} };
}

function key(repo: string, holder: string, path: string): string {
  return `${repo}\n${holder}\n${path}`;
}

/** Whether a claim still stands at `at` (its TTL not run out). */
export function isLive(entry: ClaimEntry, at: number): boolean {
  return Date.parse(entry.until) > at;
}

export interface ClaimRequest {
  holder: string;
  repo: string;
  paths: readonly string[];
  shared: boolean;
}

/** The standing claims of other holders a request collides with at `at`, in the order they were set. */
export function conflictsWith(state: ClaimsState, request: ClaimRequest, at: number, options: MatchOptions = {}): Array<{ entry: ClaimEntry; path: string }> {
  const found: Array<{ entry: ClaimEntry; path: string }> = [];
  for (const entry of Object.values(state.entries)) {
    if (entry.repo !== request.repo || entry.holder === request.holder || !isLive(entry, at)) continue;
    if (entry.shared && request.shared) continue;
    const path = request.paths.find((wanted) => patternsOverlap(wanted, entry.path, options));
    if (path !== undefined) found.push({ entry, path });
  }
  return found.sort((a, b) => (a.entry.claimId < b.entry.claimId ? -1 : a.entry.claimId > b.entry.claimId ? 1 : 0));
}

export function applyClaimEvent(state: ClaimsState, event: ClaimEvent | ReleaseEvent, options: MatchOptions = {}): void {
  if (event.type === "release") {
    for (const path of event.paths) delete state.entries[key(event.repo, event.holder, path)];
    return;
  }
  const at = Date.parse(event.at);
  if (conflictsWith(state, event, at, options).length > 0) return;
  for (const path of event.paths) {
    const slot = key(event.repo, event.holder, path);
    const held = state.entries[slot];
    const entry: ClaimEntry = { holder: event.holder, repo: event.repo, path, shared: event.shared, since: held && isLive(held, at) ? held.since : event.at, until: event.until, claimId: event.id };
    if (event.reason !== undefined) entry.reason = event.reason;
    state.entries[slot] = entry;
  }
}

/** The claims of one holder that stand at `at`. */
export function claimsOf(state: ClaimsState, holder: string, at: number): ClaimEntry[] {
  return Object.values(state.entries).filter((entry) => entry.holder === holder && isLive(entry, at));
}

/** The standing claims of other holders that cover a path (relative to its repository) and keep others out. */
export function blockingClaims(state: ClaimsState, repo: string, path: string, editor: string, at: number, options: MatchOptions = {}): ClaimEntry[] {
  return Object.values(state.entries).filter(
    (entry) => entry.repo === repo && entry.holder !== editor && !entry.shared && isLive(entry, at) && patternCovers(entry.path, path, options),
  );
}
