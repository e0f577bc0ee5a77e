import { z } from "zod";
import { defineTool } from "../tool.js";
import { findSessions, type Candidate } from "../../sessions/resolve.js";
import { escapeVisible } from "../../security/escape.js";

const input = z
  .object({
    query: z.string().min(1).max(200).describe("What the user calls the session: a name, a working dir, a host, an id prefix, or several words."),
    limit: z.number().int().min(1).max(50).optional().describe("At most this many candidates (default 10)."),
  })
  .strict();

const candidate = z.object({
  address: z.string(),
  host: z.string(),
  name: z.string().optional().describe("Untrusted text."),
  cwd: z.string().optional(),
  title: z.string().optional().describe("Untrusted text."),
  alive: z.boolean(),
  seen: z.boolean().describe("False for a session known only from its host's own files; a message registers it."),
  machine: z.string().optional().describe("Set for a session of another machine: whether it runs is known only there, so alive is false here."),
  lastSeen: z.string(),
  score: z.number(),
  reasons: z.array(z.string()),
});

/** Names, titles and working dirs come from other sessions and their hosts (reasons quote them): shown as agents shows them. */
function shown(candidate: Candidate): Candidate {
  const copy = { ...candidate, reasons: candidate.reasons.map((reason) => escapeVisible(reason)) };
  for (const key of ["name", "cwd", "title"] as const) if (copy[key] !== undefined) copy[key] = escapeVisible(copy[key]);
  return copy;
}

export const resolveTool = defineTool({
  name: "resolve",
  description:
    "Find the sessions the user means by a name, title, working directory, host or id prefix (including sessions peerpost has not seen yet): candidates ranked with the reasons for each. " +
    "It never picks one: if more than one fits, ask the user, then call message with the exact address.",
  input,
  output: z.object({ query: z.string(), candidates: z.array(candidate) }),
  annotations: { title: "Find a session by name", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    return { query: args.query, candidates: findSessions(context.peerpost, args.query).slice(0, args.limit ?? 10).map(shown) };
  },
});
