// peerpost claims: the standing claims of this repository (or all, --everywhere).
import { listClaims } from "../../claims/claims.js";
import { repositoryOf } from "../../claims/paths.js";
import { defineCommand } from "../command.js";
import { printJson } from "../output.js";
import { openStore } from "../store.js";
import { claimsTable } from "./claim.js";

export const claimsCommand = defineCommand({
  name: "claims",
  summary: "list the standing claims on files: holder, path, exclusive or shared, until when",
  usage: "[--everywhere]",
  flags: { everywhere: { type: "boolean", help: "Every repository's claims, not only this one's." } },
  args: { min: 0, max: 0, name: "" },
  examples: ["peerpost claims", "peerpost claims --everywhere --json"],
  async run({ flags, json }) {
    const repo = repositoryOf(process.cwd());
    const { claims } = listClaims(await openStore(), flags.everywhere ? undefined : repo);
    if (json) printJson({ ok: true, repo, claims });
    else if (claims.length === 0) process.stdout.write(`no standing claims in ${flags.everywhere ? "any repository" : repo}\n`);
    else process.stdout.write(claimsTable(claims));
    return 0;
  },
});
