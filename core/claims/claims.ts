// Claims on paths: a session (or a person) claims files, directories or globs of one repository for a
// while, exclusively or shared. Each claim and each release is an event in the mailbox log, decided under
// the store's exclusion and confirmed by log order: of two overlapping claims the earlier one stands, the
// later one is refused with `claim_conflict`. A claim whose holder's session has ended is released (an
// event saying so) by the claim that finds it in its way; one past its TTL simply no longer stands.
import { dirname } from "node:path";
import { PeerpostError } from "../common/errors.js";
import { parseAddress } from "../common/address.js";
import { idFactory } from "../common/ids.js";
import type { Peerpost } from "../peerpost.js";
import type { ClaimEvent, MailboxEvent, ReleaseEvent } from "../records/schemas.js";
import { CLAIMS_SCOPE } from "../records/work-scope.js";
import type { AppendItem } from "../store/types.js";
import { applyClaimEvent, conflictsWith, emptyClaims, isLive, type ClaimEntry, type ClaimRequest, type ClaimsState } from "./fold.js";
import { patternsOverlap } from "./glob.js";
import { heldBefore, holderGone } from "./holders.js";
import { checkPatternText, gitTopsOf, MAX_PATTERNS, repositoryOf, repositoryOfPattern, repositoryPattern, slashRelative } from "./paths.js";
import { keptWorkFold, type WorkFoldSpec } from "./work-fold.js";
import { parseTtl } from "./ttl.js";
import { CLAIMS_SNAPSHOT } from "./snapshot.js";
import { escapeVisible } from "../security/escape.js";

export const CLAIMS_FOLD: WorkFoldSpec<ClaimsState> = {
  scope: CLAIMS_SCOPE,
  types: ["claim", "release"],
  empty: emptyClaims,
  apply: (state, event) => applyClaimEvent(state, event as ClaimEvent | ReleaseEvent),
  snapshot: CLAIMS_SNAPSHOT,
};

/**
 * Runs `read` on this process's fold of the claims, brought up to the end of the log. Started from a
 * snapshot, the fold reads only the segments `read` looks at (standing.ts), and a damaged one found on
 * the way makes it fold the log again and run `read` once more.
 */
export function readClaims<R>(peerpost: Peerpost, read: (state: ClaimsState) => R): R {
  return keptWorkFold(peerpost.mailbox, CLAIMS_FOLD).read(read);
}

/** The claims, every one read (and checked) now. */
export function claimsState(peerpost: Peerpost): ClaimsState {
  return readClaims(peerpost, (state) => {
    state.readAll();
    return state;
  });
}

export interface ClaimInput {
  holder: string;
  /** Where relative paths start; its repository is the claim's. */
  cwd: string;
  paths: readonly string[];
  shared?: boolean | undefined;
  /** "30m", "2h", "1d"; default 2h. */
  ttl?: string | undefined;
  reason?: string | undefined;
  /** Allow a pattern that names the whole repository. */
  all?: boolean | undefined;
}

export interface ClaimResult {
  repo: string;
  claims: ClaimEntry[];
}

function checkPaths(paths: readonly string[], verb: "claim" | "release"): void {
  if (paths.length === 0)
    throw new PeerpostError("invalid_arguments", `No path to ${verb} was given.`, {
      details: { field: "paths", reason: "empty" },
      hint: verb === "claim" ? "Give one or more files, directories or globs, e.g. src/parser.ts or src/**." : "Give the paths as claimed (the claims tool lists them), or all: true (--all) for every claim of yours in the repository.",
    });
  if (paths.length > MAX_PATTERNS)
    throw new PeerpostError("invalid_arguments", `${paths.length} paths in one call; the limit is ${MAX_PATTERNS}.`, { details: { field: "paths", reason: "too_many" }, hint: "Claim a directory or a glob that covers them." });
  // Before the walk up the tree that finds each one's repository: a path of megabytes made it take minutes.
  for (const path of paths) checkPatternText(path);
}

function checkReason(reason: string | undefined): void {
  if (reason !== undefined && reason.length > 2000)
    throw new PeerpostError("invalid_arguments", "The reason is longer than 2000 characters.", { details: { field: "reason" }, hint: "Say in a line why you hold it." });
}

/** The one repository the patterns of a call go into (the working directory's when none is in git). */
function repositoryOfCall(cwd: string, paths: readonly string[]): string {
  const fallback = repositoryOf(cwd);
  const repos = [...new Set(paths.map((path) => repositoryOfPattern(path, cwd) ?? fallback))];
  if (repos.length > 1)
    throw new PeerpostError("invalid_arguments", `These paths are in ${repos.length} repositories: ${repos.join(", ")}.`, {
      details: { field: "paths", reason: "repositories", repos },
      hint: "Claim (or release) each repository's paths in a call of their own.",
    });
  return repos[0] ?? fallback;
}

/** The patterns of a call, relative to its repository, without repeats. */
function patternsOf(input: { cwd: string; paths: readonly string[]; all?: boolean | undefined }, verb: "claim" | "release"): { repo: string; paths: string[] } {
  checkPaths(input.paths, verb);
  const repo = repositoryOfCall(input.cwd, input.paths);
  return { repo, paths: [...new Set(input.paths.map((path) => repositoryPattern(path, { root: repo, cwd: input.cwd, all: input.all ?? false })))] };
}

/** The refusal for a claim that meets a standing one: who holds what, since when, until when and why. */
export function claimConflict(entry: ClaimEntry, wanted: string): PeerpostError {
  // The holder's reason, path and repository are another session's text: shown with invisible and control characters made visible.
  const shown = shownClaim(entry);
  const why = entry.reason !== undefined ? ` (${JSON.stringify(escapeVisible(entry.reason, { multiline: true }))})` : "";
  return new PeerpostError("claim_conflict", `${escapeVisible(wanted)} overlaps ${shown.path}, claimed ${entry.shared ? "shared" : "exclusively"} by ${entry.holder} since ${entry.since} until ${entry.until}${why}.`, {
    details: { holder: entry.holder, path: shown.path, wanted: escapeVisible(wanted), repo: shown.repo, shared: entry.shared, since: entry.since, until: entry.until, reason: shown.reason ?? null },
    hint: `Ask the holder with message to ${entry.holder}, claim something else, or wait until ${entry.until}. A person can end the claim with \`peerpost release --force ${shown.path}\`.`,
  });
}

/** A claim as a model or a terminal is shown it: its reason, path and repository (another session's text) escaped as escapeVisible does. */
export function shownClaim<T extends Pick<ClaimEntry, "path" | "repo" | "reason">>(entry: T): T {
  const shown = { ...entry, path: escapeVisible(entry.path), repo: escapeVisible(entry.repo) };
  if (entry.reason !== undefined) shown.reason = escapeVisible(entry.reason);
  return shown;
}

/**
 * The standing claims a request meets: in its repository, and in the repositories around and below it on
 * the same files (a superproject's `sub/**` and the submodule's own `x.ts`), which the edit hook and the
 * guard count alike. Each with the request's pattern it meets.
 */
function allConflicts(state: ClaimsState, request: ClaimRequest, now: number): Array<{ entry: ClaimEntry; path: string }> {
  const found = conflictsWith(state, request, now);
  // Outside git, the claims made from any directory above reach here too: the edit hook counts them (edit-check.ts).
  const tops = gitTopsOf(request.repo);
  for (const superproject of (tops.length > 0 ? tops : directoriesAbove(request.repo)).filter((top) => top !== request.repo)) {
    const prefix = slashRelative(superproject, request.repo);
    for (const { entry, path } of conflictsWith(state, { ...request, repo: superproject, paths: request.paths.map((path) => `${prefix}/${path}`) }, now))
      found.push({ entry, path: path.slice(prefix.length + 1) });
  }
  for (const entry of state.all()) {
    if (!entry.repo.startsWith(`${request.repo}/`) || entry.holder === request.holder || !isLive(entry, now) || (entry.shared && request.shared)) continue;
    const theirs = `${slashRelative(request.repo, entry.repo)}/${entry.path}`;
    const path = request.paths.find((mine) => patternsOverlap(mine, theirs));
    if (path !== undefined) found.push({ entry, path });
  }
  return found;
}

/** Every directory above `dir`, nearest first, up to the root. */
function directoriesAbove(dir: string): string[] {
  const dirs: string[] = [];
  for (let at = dirname(dir); at !== dir; dir = at, at = dirname(at)) dirs.push(at);
  return dirs;
}

/** Claims grouped as a release event names them: per holder and repository, each pattern once. */
function byHolderAndRepo(entries: readonly ClaimEntry[]): Array<{ holder: string; repo: string; paths: string[] }> {
  const groups = new Map<string, { holder: string; repo: string; paths: string[] }>();
  for (const entry of entries) {
    const key = `${entry.holder}\0${entry.repo}`;
    const group = groups.get(key) ?? { holder: entry.holder, repo: entry.repo, paths: [] };
    if (!group.paths.includes(entry.path)) group.paths.push(entry.path);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** Claims all the paths or none: refused with `claim_conflict` when a live holder's claim overlaps. */
export async function claimPaths(peerpost: Peerpost, input: ClaimInput): Promise<ClaimResult> {
  parseAddress(input.holder, "holder");
  const ttlMs = parseTtl(input.ttl);
  checkReason(input.reason);
  const { repo, paths } = patternsOf(input, "claim");
  const shared = input.shared ?? false;
  const newId = await idFactory();
  const request = { holder: input.holder, repo, paths, shared };
  const outcome = await peerpost.mailbox.store.appendDeciding(() => {
    const state = claimsState(peerpost);
    const now = peerpost.config.now();
    const at = new Date(now).toISOString();
    const events: MailboxEvent[] = [];
    // Claims of sessions that have ended give way, with an event that says so; the claimer's own from before
    // a /clear (its process's earlier sessions: heldBefore) pass to it as they are, so the new claim stands
    // beside them; any other stands.
    const ending: ClaimEntry[] = [];
    const handedOver: ClaimEntry[] = [];
    for (const { entry, path } of allConflicts(state, request, now)) {
      const own = heldBefore(peerpost, entry.holder, input.holder);
      if (!own && !holderGone(peerpost, entry.holder)) throw claimConflict(entry, path);
      if (own) handedOver.push(entry);
      ending.push(entry);
    }
    for (const group of byHolderAndRepo(ending))
      events.push({ v: 1, type: "release", id: newId(now), ...group, why: heldBefore(peerpost, group.holder, input.holder) ? "released" : "gone", by: input.holder, at });
    for (const entry of handedOver) {
      const kept: ClaimEvent = { v: 1, type: "claim", id: newId(now), holder: input.holder, repo: entry.repo, paths: [entry.path], shared: entry.shared, at, until: entry.until };
      if (entry.reason !== undefined) kept.reason = entry.reason;
      events.push(kept);
    }
    const claim: ClaimEvent = { v: 1, type: "claim", id: newId(now), holder: input.holder, repo, paths, shared, at, until: new Date(now + ttlMs).toISOString() };
    if (input.reason !== undefined) claim.reason = input.reason;
    events.push(claim);
    return {
      items: events.map((record) => ({ record, scopes: [CLAIMS_SCOPE] })),
      // Another writer's overlapping claim that landed first (a lock taken over) wins.
      conflicts: (earlier) => earlier.type === "claim" && earlier.repo === repo && earlier.holder !== input.holder && !(earlier.shared && shared) && paths.some((path) => earlier.paths.some((theirs) => patternsOverlap(path, theirs))),
    };
  });
  const state = claimsState(peerpost);
  if (outcome.conflict) {
    const [first] = allConflicts(state, request, peerpost.config.now());
    if (first) throw claimConflict(first.entry, first.path);
  }
  return { repo, claims: paths.map((path) => state.get(repo, input.holder, path)!).filter(Boolean) };
}

export interface ReleaseInput {
  /** Who releases: the holder itself, or with `force` a person ending others' claims. */
  by: string;
  cwd: string;
  paths: readonly string[];
  /** End other holders' claims that overlap the paths (a person only); each holder is told in its mailbox. */
  force?: boolean | undefined;
  /** Every claim of `by` in the repository (paths may then be empty). */
  all?: boolean | undefined;
}

export interface ReleaseResult {
  repo: string;
  released: ClaimEntry[];
}

/** Releases claims: one's own by their patterns, or with `force` others' that overlap them; `not_found` when none stands. */
export async function releasePaths(peerpost: Peerpost, input: ReleaseInput): Promise<ReleaseResult> {
  const by = parseAddress(input.by, "by");
  if (input.force && by.kind !== "user")
    throw new PeerpostError("permission_denied", "Only a person can end another holder's claim.", { details: { field: "force", by: input.by }, hint: "Ask the holder with message, or ask the user to run `peerpost release --force PATH`." });
  const everything = input.all === true && input.paths.length === 0 && !input.force;
  const { repo, paths } = everything ? { repo: repositoryOf(input.cwd), paths: [] as string[] } : patternsOf({ cwd: input.cwd, paths: input.paths, all: true }, "release");
  const newId = await idFactory();
  let released: ClaimEntry[] = [];
  await peerpost.mailbox.store.appendDeciding(() => {
    const now = peerpost.config.now();
    // Claims past their TTL that nothing released are released too: `health` asks for that (claims_expired).
    // All of one's claims: those of the repository and of those below it, where a path written from here goes.
    const standing = [...claimsState(peerpost).all()].filter((entry) => entry.repo === repo || (everything && entry.repo.startsWith(`${repo}/`)));
    // A name reads as `name/**` while it is a directory and as `name` when it is none: either way it still
    // names the claim it made (a file that became a directory, a directory since removed).
    const named = (path: string) => paths.includes(path) || paths.includes(`${path}/**`) || (path.endsWith("/**") && paths.includes(path.slice(0, -3)));
    released = standing.filter((entry) =>
      input.force ? entry.holder !== input.by && paths.some((path) => patternsOverlap(path, entry.path)) : (entry.holder === input.by || heldBefore(peerpost, entry.holder, input.by)) && (everything || named(entry.path)),
    );
    if (released.length === 0)
      throw new PeerpostError("not_found", `No standing claim ${input.force ? "of another holder overlaps" : "of yours is on"} ${everything ? "anything" : paths.join(", ")} in ${repo}.`, {
        details: { repo, paths, by: input.by },
        hint: "`peerpost claims` (the claims tool) lists the standing claims with their exact patterns.",
      });
    const at = new Date(now).toISOString();
    const events: ReleaseEvent[] = byHolderAndRepo(released).map((group) => ({ v: 1, type: "release", id: newId(now), ...group, why: input.force ? "forced" : "released", by: input.by, at }));
    // A holder is told of the claims that still stood (one past its TTL kept nobody out), in the same append:
    // a store lost after the release would leave the holder never told, and a retry finds nothing to release.
    const told = input.force ? tellHolders(peerpost, input.by, repo, released.filter((entry) => isLive(entry, now)), newId) : [];
    return { items: [...events.map((record) => ({ record, scopes: [CLAIMS_SCOPE] })), ...told] };
  });
  return { repo, released };
}

/** A forced release is told to each holder, in its mailbox: the messages to append with it. */
function tellHolders(peerpost: Peerpost, by: string, repo: string, released: ClaimEntry[], newId: (seedTime?: number) => string): AppendItem<MailboxEvent>[] {
  const holders = [...new Set(released.map((entry) => entry.holder))];
  return holders.map((holder) => {
    const paths = released.filter((entry) => entry.holder === holder).map((entry) => entry.path);
    return peerpost.mailbox.messageEvent({ from: by, fromVerified: false, to: holder, anticipation: "fyi", notice: true, body: `claim_released: ${by} ended your claim on ${paths.join(", ")} in ${repo}. Claim again (claim tool) before you edit there, or ask ${by} why.` }, newId);
  });
}

export interface ClaimListing {
  claims: ClaimEntry[];
  /**
   * Claims past their TTL that no release ended, within the retention (for `health`): compaction moves
   * older ones to the archive, so the count is the same before and after it.
   */
  expired: ClaimEntry[];
}

/** The standing claims (of one repository, or all), oldest first, and those that expired unreleased lately. */
export function listClaims(peerpost: Peerpost, repo?: string): ClaimListing {
  const now = peerpost.config.now();
  const since = now - peerpost.config.retentionDays * 86_400_000;
  const entries = [...claimsState(peerpost).all()]
    .filter((entry) => repo === undefined || entry.repo === repo)
    .sort((a, b) => (a.since < b.since ? -1 : a.since > b.since ? 1 : a.path < b.path ? -1 : 1));
  return { claims: entries.filter((entry) => isLive(entry, now) && !holderGone(peerpost, entry.holder)), expired: entries.filter((entry) => !isLive(entry, now) && Date.parse(entry.until) >= since) };
}

/** The `claims_expired` warning of a listing, as the health tool and `peerpost health`/`doctor` give it. */
export function expiredClaimsWarning(listing: ClaimListing): { code: "claims_expired"; message: string } | undefined {
  const oldest = listing.expired[0];
  if (oldest === undefined) return undefined;
  return { code: "claims_expired", message: `${listing.expired.length} claims ran past their TTL without a release (oldest: ${escapeVisible(oldest.path)} of ${oldest.holder}); they keep nobody out. Holders release with the release tool, a person with \`peerpost release --force\`.` };
}
