// The claims fold's snapshot: the entries that stand (an expired one too, until a release ends it), each
// checked as the fold writes it and filed under its own key. An edit hook then starts from the claims
// that stand instead of folding every claim and release ever written.
import { acceptsClaimEntry } from "../records/record-check.js";
import { key, restoreClaims, type ClaimEntry, type ClaimsState } from "./fold.js";
import type { WorkFoldSnapshot } from "./work-fold.js";

export const CLAIMS_SNAPSHOT: WorkFoldSnapshot<ClaimsState> = {
  file: "work-claims.json",
  version: 1,
  encode: (state) => ({ entries: state.entries }),
  decode(value) {
    const entries = (value as { entries?: unknown } | null)?.entries;
    if (typeof entries !== "object" || entries === null || Array.isArray(entries) || Object.keys(value as object).length !== 1) return { problem: "snapshot.state is not { entries }" };
    for (const [slot, entry] of Object.entries(entries)) {
      if (!acceptsClaimEntry(entry)) return { problem: `snapshot.state.entries[${JSON.stringify(slot)}] is not a claim` };
      const { repo, holder, path } = entry as ClaimEntry;
      if (slot !== key(repo, holder, path)) return { problem: `snapshot.state.entries[${JSON.stringify(slot)}] holds another claim` };
    }
    return { state: restoreClaims(entries as Record<string, ClaimEntry>) };
  },
};
