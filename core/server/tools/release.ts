import { z } from "zod";
import { defineTool } from "../tool.js";
import { releasePaths } from "../../claims/claims.js";
import { claimRow } from "./claims.js";

const input = z
  .object({
    paths: z.array(z.string()).optional().describe("The patterns you claimed, as claims lists them (relative to the repository) or as you gave them."),
    all: z.boolean().optional().describe("Release every claim you hold in this repository (then leave paths out)."),
  })
  .strict();

export const releaseTool = defineTool({
  name: "release",
  description: "Release claims you hold on files, so others may edit them: by the paths you claimed, or all of yours in this repository.",
  input,
  output: z.object({ repo: z.string(), released: z.array(claimRow) }),
  annotations: { title: "Release file claims", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, context) {
    const result = await releasePaths(context.peerpost, { by: context.identity().address, cwd: process.cwd(), paths: args.paths ?? [], all: args.all });
    return { repo: result.repo, released: result.released.map(({ claimId: _claimId, ...row }) => row) };
  },
});
