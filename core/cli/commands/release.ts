// peerpost release PATH…: ends your own claims, or with --force (a person) anyone's that overlap.
import { releasePaths } from "../../claims/claims.js";
import { defineCommand } from "../command.js";
import { printJson } from "../output.js";
import { addressOrMine, openStore } from "../store.js";
import { claimsTable } from "./claim.js";

export const releaseCommand = defineCommand({
  name: "release",
  summary: "release claims: your own, or (--force) others' that overlap, telling each holder",
  usage: "[--force] [--as ADDR] [--all] PATH|GLOB…",
  details: "Without --force, releases the claims you (or --as ADDR) hold on exactly these patterns, or with --all every one of yours in this repository. With --force, a person ends every other holder's claim that overlaps the patterns; each holder is told in its mailbox.",
  flags: {
    force: { type: "boolean", help: "End other holders' overlapping claims (a person only); each holder is told." },
    as: { type: "string", value: "ADDR", help: "Release the claims of this address instead of yours.", default: "user:<PEERPOST_USER, else your login name>", complete: "address" },
    all: { type: "boolean", help: "Every claim you hold in this repository." },
  },
  args: { min: 0, max: Infinity, name: "PATH|GLOB…" },
  examples: ["peerpost release src/parser.ts", "peerpost release --force 'src/**'"],
  async run({ flags, args, json, usageError }) {
    if (args.length === 0 && !flags.all) throw usageError("needs PATH|GLOB… as claimed (peerpost claims lists them), or --all for every claim of yours here");
    const peerpost = await openStore();
    const by = addressOrMine(peerpost, flags.as, "--as");
    const result = await releasePaths(peerpost, { by, cwd: process.cwd(), paths: args, force: flags.force, all: flags.all });
    if (json) printJson({ ok: true, repo: result.repo, released: result.released });
    else process.stdout.write(`released in ${result.repo}:\n${claimsTable(result.released)}`);
    return 0;
  },
});
