import { z } from "zod";
import { defineTool } from "../tool.js";
import { SESSION_HOSTS } from "../../records/schemas.js";
import { PeerpostError } from "../../common/errors.js";
import { launchSession } from "../../wake/launch.js";
import { recordReceipt } from "../receipt.js";
import { receiptOrigin } from "../adapter.js";

const input = z
  .object({
    host: z.enum(SESSION_HOSTS).describe("Which agent CLI to start: claude-code, codex, copilot or grok."),
    cwd: z.string().min(1).describe("Absolute path of the directory the new session works in."),
    message: z.string().min(1).describe("The task or question: the new session's first prompt (at most 64 KiB of UTF-8)."),
    anticipation: z.enum(["reply", "action"]).optional().describe("What you expect back (default reply)."),
    model: z.string().min(1).max(64).optional().describe("Model for the new session, as the host's own --model flag takes it (e.g. opus, gpt-5.4). Default: the host's."),
    effort: z.string().min(1).max(16).optional().describe("Reasoning effort, as the host takes it (Claude Code: low…max; Copilot: none…max; Codex: minimal…xhigh). Default: the host's."),
  })
  .strict();

const output = z.object({ address: z.string(), messageId: z.string(), runId: z.string() });

export const launchTool = defineTool({
  name: "launch",
  description:
    "Start a new headless agent session (Claude Code, Codex, Copilot CLI or Grok) in a directory, with your message as its first prompt, and get its address (at once; for Codex once it has named its thread). " +
    "Use wait with the returned messageId for its answer. Only works when a person turned launching on (`peerpost launch on`); runs count against the machine's wake budget.",
  input,
  output,
  annotations: { title: "Launch a helper session", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, context) {
    const me = context.identity();
    if (!context.wake) throw new PeerpostError("unsupported", "This server cannot start sessions.", { hint: "Use a host plugin's server or `peerpost serve`." });
    const launched = await launchSession(context.peerpost, context.wake, { from: me.address, fromVerified: me.verified, host: args.host, cwd: args.cwd, text: args.message, anticipation: args.anticipation, settings: { model: args.model, effort: args.effort } });
    await recordReceipt(context, { kind: "send", host: context.adapter.host, from: me.address, to: launched.address, messageId: launched.messageId, delivery: "queued", via: `launch:${launched.claimId}`, warnings: [], origin: receiptOrigin(me) });
    return { address: launched.address, messageId: launched.messageId, runId: launched.claimId };
  },
});
