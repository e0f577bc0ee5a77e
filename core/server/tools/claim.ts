import { z } from "zod";
import { defineTool } from "../tool.js";
import { claimPaths, shownClaim } from "../../claims/claims.js";
import { claimRow } from "./claims.js";

const input = z
  .object({
    paths: z.array(z.string()).describe("Files, directories or globs (*, **, ?) to claim, relative to your working directory or absolute, inside its repository."),
    shared: z.boolean().optional().describe("A shared claim lets others work there too (default false: exclusive, others' edits are refused)."),
    ttl: z.string().optional().describe("How long it lasts: 30m, 2h, 1d (default 2h, from 1m to 7d). Claim the same paths again to renew."),
    reason: z.string().optional().describe("One line on what you are doing there, shown to whoever runs into the claim."),
    all: z.boolean().optional().describe("Allow a pattern that names the whole repository, such as ** (refused otherwise)."),
  })
  .strict();

export const claimTool = defineTool({
  name: "claim",
  description:
    "Claim files before you change them, so other agent sessions do not edit them meanwhile: exclusive (default) or shared, for a while (ttl). " +
    "All paths or none: if another session already holds an overlapping claim, the result is claim_conflict naming the holder, the path, since when and why; message the holder to ask. " +
    "Hosts with peerpost's hooks refuse others' edits to your exclusive claims. Release them with release when done.",
  input,
  output: z.object({ repo: z.string(), claims: z.array(claimRow) }),
  annotations: { title: "Claim files", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const result = await claimPaths(context.peerpost, { holder: context.identity().address, cwd: process.cwd(), paths: args.paths, shared: args.shared, ttl: args.ttl, reason: args.reason, all: args.all });
    return { repo: result.repo, claims: result.claims.map(({ claimId: _claimId, ...row }) => shownClaim(row)) };
  },
});
