// peerpost claim PATH|GLOB…: claims files of the repository you are in, as a person or for a session (--as).
import { claimPaths } from "../../claims/claims.js";
import type { ClaimEntry } from "../../claims/fold.js";
import { DEFAULT_TTL } from "../../claims/ttl.js";
import { defineCommand } from "../command.js";
import { printJson, table } from "../output.js";
import { addressOrMine, openStore } from "../store.js";

export function claimsTable(rows: readonly ClaimEntry[]): string {
  return table([["HOLDER", "PATH", "KIND", "SINCE", "UNTIL", "REASON"], ...rows.map((row) => [row.holder, row.path, row.shared ? "shared" : "exclusive", row.since, row.until, row.reason ?? ""])]);
}

export const claimCommand = defineCommand({
  name: "claim",
  summary: "claim files or globs of this repository, exclusive or shared, for a while",
  usage: "[--shared] [--ttl 2h] [--reason TEXT] [--as ADDR] [--all] PATH|GLOB…",
  details:
    "The repository is the git top level of the working directory (the directory itself outside git). Paths are relative to where you are; a directory is claimed with everything under it. " +
    "All or none: an overlapping claim of a live holder refuses the call with claim_conflict. Claim again to renew. Edits by other sessions to an exclusive claim are refused by their hosts' hooks, and `peerpost guard install` refuses such commits.",
  flags: {
    shared: { type: "boolean", help: "Others may claim and edit there too." },
    ttl: { type: "string", value: "DURATION", help: "How long it lasts, 1m to 7d.", default: DEFAULT_TTL },
    reason: { type: "string", value: "TEXT", help: "What you are doing there, shown to whoever runs into it." },
    as: { type: "string", value: "ADDR", help: "Claim for this address instead of yourself.", default: "user:<PEERPOST_USER, else your login name>", complete: "address" },
    all: { type: "boolean", help: "Allow a pattern that names the whole repository (such as **)." },
  },
  args: { min: 1, max: Infinity, name: "PATH|GLOB…" },
  examples: ["peerpost claim src/parser.ts --reason 'fixing #12'", "peerpost claim 'docs/**' --shared --ttl 30m"],
  async run({ flags, args, json }) {
    const peerpost = await openStore();
    const holder = addressOrMine(peerpost, flags.as, "--as");
    const result = await claimPaths(peerpost, { holder, cwd: process.cwd(), paths: args, shared: flags.shared, ttl: flags.ttl, reason: flags.reason, all: flags.all });
    if (json) printJson({ ok: true, repo: result.repo, claims: result.claims });
    else process.stdout.write(`claimed in ${result.repo}:\n${claimsTable(result.claims)}`);
    return 0;
  },
});
