// The pure fold of claim and release events into the claims that stand, decided by log order: a claim
// that overlaps a standing claim of another holder (exclusive against anything, or anything against
// exclusive) at its own time is void, whole, whatever its writer saw. A claim on a pattern its holder
// already holds renews it. A claim ends at its TTL (read at a time, not written), or by a release event.
import type { ClaimEvent, ReleaseEvent } from "../records/schemas.js";
import { patternCovers, patternsOverlap, type MatchOptions } from "./glob.js";
import { StandingClaims, type ClaimEntry } from "./standing.js";

export type { ClaimEntry } from "./standing.js";
export type ClaimsState = StandingClaims;

export function emptyClaims(): ClaimsState {
  return new StandingClaims();
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

const byClaimId = (a: ClaimEntry, b: ClaimEntry) => (a.claimId < b.claimId ? -1 : a.claimId > b.claimId ? 1 : 0);

/** The standing claims of other holders a request collides with at `at`, in the order they were set. */
export function conflictsWith(state: ClaimsState, request: ClaimRequest, at: number, options: MatchOptions = {}): Array<{ entry: ClaimEntry; path: string }> {
  const found = new Map<ClaimEntry, string>();
  for (const path of request.paths)
    state.candidates(request.repo, path, (entry) => {
      if (found.has(entry) || entry.holder === request.holder || !isLive(entry, at) || (entry.shared && request.shared)) return;
      if (patternsOverlap(path, entry.path, options)) found.set(entry, path);
    });
  if (found.size === 0) return [];
  return [...found].map(([entry, path]) => ({ entry, path })).sort((a, b) => byClaimId(a.entry, b.entry));
}

export function applyClaimEvent(state: ClaimsState, event: ClaimEvent | ReleaseEvent, options: MatchOptions = {}): void {
  if (event.type === "release") {
    for (const path of event.paths) state.delete(event.repo, event.holder, path);
    return;
  }
  const at = Date.parse(event.at);
  if (conflictsWith(state, event, at, options).length > 0) return;
  for (const path of event.paths) {
    const held = state.get(event.repo, event.holder, path);
    const entry: ClaimEntry = { holder: event.holder, repo: event.repo, path, shared: event.shared, since: held && isLive(held, at) ? held.since : event.at, until: event.until, claimId: event.id };
    if (event.reason !== undefined) entry.reason = event.reason;
    state.set(entry);
  }
}

/** The claims of one holder that stand at `at`. */
export function claimsOf(state: ClaimsState, holder: string, at: number): ClaimEntry[] {
  return [...state.all()].filter((entry) => entry.holder === holder && isLive(entry, at));
}

/** The standing claims of other holders that cover a path (relative to its repository) and keep others out, the earliest claim first. */
export function blockingClaims(state: ClaimsState, repo: string, path: string, editor: string, at: number, options: MatchOptions = {}): ClaimEntry[] {
  return keepingOut(state, repo, path, editor, at, (entry) => patternCovers(entry.path, path, options));
}

/** The same for anything under a directory (`""`: the whole repository): a submodule, whose commit a superproject's commit moves as one path. */
export function blockingWithin(state: ClaimsState, repo: string, dir: string, editor: string, at: number, options: MatchOptions = {}): ClaimEntry[] {
  const under = dir === "" ? "**" : `${dir}/**`;
  return keepingOut(state, repo, under, editor, at, (entry) => patternsOverlap(entry.path, under, options));
}

function keepingOut(state: ClaimsState, repo: string, path: string, editor: string, at: number, applies: (entry: ClaimEntry) => boolean): ClaimEntry[] {
  const blocking: ClaimEntry[] = [];
  state.candidates(repo, path, (entry) => {
    if (entry.holder !== editor && !entry.shared && isLive(entry, at) && applies(entry)) blocking.push(entry);
  });
  return blocking.sort(byClaimId);
}
