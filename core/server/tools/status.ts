import { z } from "zod";
import { mailOwner } from "../claimed.js";
import { defineTool } from "../tool.js";
import { PeerpostError } from "../../common/errors.js";
import { addressedMessage, addressedThread } from "../../mail/addressed.js";
import { HISTORY_EVENTS, messageHistory } from "../../mail/history.js";
import { HINTS } from "../../common/hints.js";
import { describeMessage } from "../projection.js";
import { messageFields, idArgument } from "../message-fields.js";
import { renderReason } from "../../mail/envelope.js";
import { describeRun } from "../../wake/describe.js";
import { isStale, staleNote } from "../../wake/stale.js";

const input = z.object({ messageId: idArgument().describe("The id of a message you sent or received.") }).strict();

const historyEntry = z.object({ event: z.enum(HISTORY_EVENTS), at: z.string(), detail: z.string().optional() });

const output = z.object({
  message: messageFields.extend({ history: z.array(historyEntry), reminders: z.number(), replyId: z.string().optional(), reason: z.string().optional(), stale: z.boolean() }),
  wakes: z.array(z.record(z.string(), z.unknown())).describe("Headless runs of the recipient that carried this message, newest first, with their outcome."),
  thread: z.array(messageFields),
});

export const statusTool = defineTool({
  name: "status",
  description: "Show the state and history of one message you sent or received (queued, delivered, read, replied, declined, done, unresolved, expired), and its conversation. It shows no bodies.",
  input,
  output,
  annotations: { title: "Message status", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const me = mailOwner(context, "show the status of");
    const { mailbox } = context.peerpost;
    const message = addressedMessage(mailbox, me.address, args.messageId);
    if (!message)
      throw new PeerpostError("not_found", `No message ${args.messageId} to or from ${me.address}.`, {
        details: { messageId: args.messageId },
        hint: HINTS.unknownMessage,
      });
    const { config, wakes } = context.peerpost;
    const now = config.now();
    const stale = !message.read && !message.resolved && isStale(message, now, config.staleMs);
    if (stale) context.warn({ code: "stale", message: staleNote(message, config.staleMs) });
    const runs = wakes.runsCarrying(message.id).map((run) => describeRun(run, now));
    const entries = messageHistory(message);
    for (const run of runs) entries.push({ event: "woken", at: String(run.claimedAt), detail: `${run.kind} ${run.id}: ${run.state}${run.reason ? ` (${run.reason})` : ""}` });
    entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    const detail: Record<string, unknown> = { ...describeMessage(message, mailbox.status(message)), history: entries, reminders: message.reminders.count, stale };
    if (message.resolved?.replyId !== undefined) detail.replyId = message.resolved.replyId;
    if (message.resolved?.reason !== undefined) detail.reason = renderReason(message, message.resolved.reason);
    const thread = addressedThread(mailbox, me.address, message).map((other) => describeMessage(other, mailbox.status(other)));
    return { message: detail, thread, wakes: runs };
  },
});
