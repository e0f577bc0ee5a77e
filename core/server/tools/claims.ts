import { z } from "zod";
import { defineTool } from "../tool.js";
import { listClaims, shownClaim } from "../../claims/claims.js";
import { repositoryOf } from "../../claims/paths.js";

const input = z
  .object({
    everywhere: z.boolean().optional().describe("List the claims of every repository, not only this session's (default false)."),
  })
  .strict();

export const claimRow = z.object({
  holder: z.string().describe("The session (or person) holding it."),
  repo: z.string().describe("The repository (git top level, or a working directory outside git)."),
  path: z.string().describe("The claimed path or glob, relative to the repository; a directory is claimed as dir/**."),
  shared: z.boolean().describe("Shared claims let others claim and edit too; exclusive ones keep them out."),
  reason: z.string().optional(),
  since: z.string(),
  until: z.string().describe("When the claim runs out unless its holder claims it again."),
});

export const claimsTool = defineTool({
  name: "claims",
  description:
    "List the standing claims on files (who holds which paths, exclusive or shared, since and until when, why), in this session's repository or everywhere. " +
    "Before editing files another session may be working on, look here; ask a holder with message.",
  input,
  output: z.object({ repo: z.string(), claims: z.array(claimRow) }),
  annotations: { title: "List file claims", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const repo = repositoryOf(process.cwd());
    return { repo, claims: listClaims(context.peerpost, args.everywhere ? undefined : repo).claims.map(({ claimId: _claimId, ...row }) => shownClaim(row)) };
  },
});
