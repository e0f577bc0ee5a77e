import { z } from "zod";
import { receiptOrigin } from "../adapter.js";
import { recordReceipt } from "../receipt.js";
import { mailOwner } from "../claimed.js";
import { defineTool } from "../tool.js";
import { MESSAGE_STATUSES, idArgument } from "../message-fields.js";

const input = z
  .object({
    messageId: idArgument().describe("The id of a message in your inbox."),
    resolution: z.enum(["reply", "decline", "done"]).describe("reply: send an answer; decline: refuse, with the reason in message; done: nothing more to say."),
    message: z.string().optional().describe("The reply text (required for reply), or the reason (decline), or an optional note (done). At most 64 KiB."),
  })
  .strict();

const output = z.object({
  messageId: z.string(),
  resolution: z.enum(["reply", "decline", "done"]),
  status: z.enum(MESSAGE_STATUSES),
  replyId: z.string().optional(),
  to: z.string(),
  conversationId: z.string(),
});

export const replyTool = defineTool({
  name: "reply",
  description:
    "Resolve a message another agent sent you: resolution reply (with your answer in message), decline (with the reason) or done. " +
    "This is the only way a sender gets an answer — your final response to the user is never sent to other agents. Only the recipient can resolve a message, once.",
  input,
  output,
  annotations: { title: "Reply to a peer", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, context) {
    const me = mailOwner(context, "answer");
    const { mailbox } = context.peerpost;
    const { message, reply } = await mailbox.resolve({ id: args.messageId, by: me.address, byVerified: me.verified, resolution: args.resolution, text: args.message });
    await recordReceipt(context, {
      kind: "reply",
      host: context.adapter.host,
      from: me.address,
      to: message.from,
      messageId: reply?.id ?? message.id,
      delivery: "queued",
      warnings: [],
      origin: receiptOrigin(me),
    });
    const result: Record<string, unknown> = { messageId: message.id, resolution: args.resolution, status: mailbox.status(message), to: message.from, conversationId: message.conversationId };
    if (reply) result.replyId = reply.id;
    return result;
  },
});
