import { z } from "zod";
import { defineTool } from "../tool.js";
import { mailOwner } from "../claimed.js";
import { ADDRESS_PATTERN } from "../../common/address.js";
import { PeerpostError } from "../../common/errors.js";
import { resolveRecipient } from "../../sessions/recipients.js";
import { forkSession } from "../../wake/fork.js";

const input = z
  .object({
    address: z.string().regex(ADDRESS_PATTERN, "must be a session's address, e.g. claude:<id>").describe("The session to fork, as agents lists it (it may be running: its transcript is not touched)."),
    message: z.string().min(1).describe("What the fork should do: its prompt, run on a copy of the session's history (at most 64 KiB)."),
    model: z.string().min(1).max(64).optional().describe("Model for the fork, through the host's own flag; the original keeps its model and prompt cache."),
    effort: z.string().min(1).max(16).optional().describe("Reasoning effort for the fork, through the host's own flag."),
    cwd: z.string().min(1).optional().describe("Working dir for the fork, inside the session's own (only hosts whose sessions resume from anywhere: Codex)."),
    keep: z.boolean().optional().describe("Keep the fork session when it completes (a failed fork is always kept)."),
  })
  .strict();

const output = z.object({ runId: z.string(), forkAddress: z.string().optional() });

export const forkTool = defineTool({
  name: "fork",
  description:
    "Fork a session (Claude Code, Codex or Grok; not Copilot CLI, which cannot) onto a copy of its history and run a message there, optionally with another model, effort or working dir. " +
    "Runs detached within the wake budget; the fork's final answer comes back to the forked session as one message starting with <fork thread model effort status/>. When you fork your own session, `read` shows it; the run and its outcome are in `receipts` (kind fork, its messageId the runId).",
  input,
  output,
  annotations: { title: "Fork a session", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, context) {
    const me = context.identity();
    if (!context.wake) throw new PeerpostError("unsupported", "This server cannot start runs.", { hint: "Use a host plugin's server or `peerpost serve`." });
    const session = await resolveRecipient(context.peerpost, args.address);
    // One's own session forks without a wake switch: not a claimed one, which another running host serves.
    if (session.address === me.address) mailOwner(context, "fork");
    const forked = await forkSession(context.peerpost, context.wake, { from: me.address, fromVerified: me.verified, byAgent: true, session, text: args.message, settings: { model: args.model, effort: args.effort }, cwd: args.cwd, keep: args.keep ?? false });
    return { ...forked };
  },
});
