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
  /** Standing claims by `${repo}\n${holder}\n${path}`; an expired one stays until a release event ends it. A Map: an object took microseconds per new key. */
  entries: Map<string, ClaimEntry>;
  /**
   * The same entries by repository, then by first path segment ("*" for a segment with a wildcard): a
   * claim is compared only with those that can share its first segment, so a fold of many claims stays linear.
   */
  buckets: Map<string, Map<string, Set<ClaimEntry>>>;
}

export function emptyClaims(): ClaimsState {
  return { entries: new Map(), buckets: new Map() };
}

const WILD = "*";

function firstSegment(path: string): string {
  const slash = path.indexOf("/");
  const segment = slash < 0 ? path : path.slice(0, slash);
  return segment.includes("*") || segment.includes("?") ? WILD : segment;
}

function setEntry(state: ClaimsState, slot: string, entry: ClaimEntry): void {
  deleteEntry(state, slot);
  state.entries.set(slot, entry);
  let segments = state.buckets.get(entry.repo);
  if (!segments) state.buckets.set(entry.repo, (segments = new Map()));
  const segment = firstSegment(entry.path);
  let bucket = segments.get(segment);
  if (!bucket) segments.set(segment, (bucket = new Set()));
  bucket.add(entry);
}

function deleteEntry(state: ClaimsState, slot: string): void {
  const entry = state.entries.get(slot);
  if (!entry) return;
  state.entries.delete(slot);
  state.buckets.get(entry.repo)?.get(firstSegment(entry.path))?.delete(entry);
}

/** Visits the standing entries of a repository that may share a path with `path`. */
function forCandidates(state: ClaimsState, repo: string, path: string, visit: (entry: ClaimEntry) => void): void {
  const segments = state.buckets.get(repo);
  if (!segments) return;
  const segment = firstSegment(path);
  if (segment === WILD) {
    for (const bucket of segments.values()) for (const entry of bucket) visit(entry);
    return;
  }
  const named = segments.get(segment);
  if (named) for (const entry of named) visit(entry);
  const wild = segments.get(WILD);
  if (wild) for (const entry of wild) visit(entry);
}

/** A state holding these entries (a snapshot's), with its buckets built again. */
export function restoreClaims(entries: Map<string, ClaimEntry>): ClaimsState {
  const state = emptyClaims();
  for (const [slot, entry] of entries) setEntry(state, slot, entry);
  return state;
}

export function key(repo: string, holder: string, path: string): string {
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
  const found = new Map<ClaimEntry, string>();
  for (const path of request.paths)
    forCandidates(state, request.repo, path, (entry) => {
      if (found.has(entry) || entry.holder === request.holder || !isLive(entry, at) || (entry.shared && request.shared)) return;
      if (patternsOverlap(path, entry.path, options)) found.set(entry, path);
    });
  if (found.size === 0) return [];
  return [...found].map(([entry, path]) => ({ entry, path })).sort((a, b) => (a.entry.claimId < b.entry.claimId ? -1 : a.entry.claimId > b.entry.claimId ? 1 : 0));
}

export function applyClaimEvent(state: ClaimsState, event: ClaimEvent | ReleaseEvent, options: MatchOptions = {}): void {
  if (event.type === "release") {
    for (const path of event.paths) deleteEntry(state, key(event.repo, event.holder, path));
    return;
  }
  const at = Date.parse(event.at);
  if (conflictsWith(state, event, at, options).length > 0) return;
  for (const path of event.paths) {
    const slot = key(event.repo, event.holder, path);
    const held = state.entries.get(slot);
    const entry: ClaimEntry = { holder: event.holder, repo: event.repo, path, shared: event.shared, since: held && isLive(held, at) ? held.since : event.at, until: event.until, claimId: event.id };
    if (event.reason !== undefined) entry.reason = event.reason;
    setEntry(state, slot, entry);
  }
}

/** The claims of one holder that stand at `at`. */
export function claimsOf(state: ClaimsState, holder: string, at: number): ClaimEntry[] {
  return [...state.entries.values()].filter((entry) => entry.holder === holder && isLive(entry, at));
}

/** The standing claims of other holders that cover a path (relative to its repository) and keep others out. */
export function blockingClaims(state: ClaimsState, repo: string, path: string, editor: string, at: number, options: MatchOptions = {}): ClaimEntry[] {
  const blocking: ClaimEntry[] = [];
  forCandidates(state, repo, path, (entry) => {
    if (entry.holder !== editor && !entry.shared && isLive(entry, at) && patternCovers(entry.path, path, options)) blocking.push(entry);
  });
  return blocking;
}
