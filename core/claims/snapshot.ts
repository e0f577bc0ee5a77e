// The claims fold's snapshot: the entries that stand (an expired one too, until a release ends it), by
// repository, each a row checked as the fold writes it. An edit hook then starts from the claims that
// stand instead of folding every claim and release ever written. Rows, not objects: a hook parses and
// checks every one of them, and a repository's path is written once, not in every entry and key.
import { acceptsClaimRow } from "../records/record-check.js";
import { key, restoreClaims, type ClaimEntry, type ClaimsState } from "./fold.js";
import type { WorkFoldSnapshot } from "./work-fold.js";

type ClaimRow = [holder: string, path: string, shared: boolean, since: string, until: string, claimId: string, reason?: string];

function row(entry: ClaimEntry): ClaimRow {
  const row: ClaimRow = [entry.holder, entry.path, entry.shared, entry.since, entry.until, entry.claimId];
  if (entry.reason !== undefined) row.push(entry.reason);
  return row;
}

export const CLAIMS_SNAPSHOT: WorkFoldSnapshot<ClaimsState> = {
  file: "work-claims.json",
  version: 2,
  encode(state) {
    const repos: Record<string, ClaimRow[]> = {};
    for (const entry of state.entries.values()) (repos[entry.repo] ??= []).push(row(entry));
    return { repos };
  },
  decode(value) {
    const repos = (value as { repos?: unknown } | null)?.repos;
    if (typeof repos !== "object" || repos === null || Array.isArray(repos) || Object.keys(value as object).length !== 1) return { problem: "snapshot.state is not { repos }" };
    const entries = new Map<string, ClaimEntry>();
    for (const [repo, rows] of Object.entries(repos)) {
      if (!Array.isArray(rows) || repo.length === 0 || repo.length > 4096) return { problem: `snapshot.state.repos[${JSON.stringify(repo)}] is not a list of claims` };
      for (const claim of rows) {
        if (!acceptsClaimRow(claim)) return { problem: `snapshot.state.repos[${JSON.stringify(repo)}] holds a row that is not a claim` };
        const [holder, path, shared, since, until, claimId, reason] = claim as ClaimRow;
        const slot = key(repo, holder, path);
        if (entries.has(slot)) return { problem: `snapshot.state.repos[${JSON.stringify(repo)}] holds ${holder}'s ${path} twice` };
        entries.set(slot, reason === undefined ? { holder, repo, path, shared, since, until, claimId } : { holder, repo, path, shared, reason, since, until, claimId });
      }
    }
    return { state: restoreClaims(entries) };
  },
};
