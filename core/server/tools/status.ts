import { z } from "zod";
import { defineTool } from "../tool.js";
import { PeerpostError } from "../../errors.js";
import { byId, type MessageState } from "../../fold.js";
import { describeMessage, messageFields } from "../projection.js";
import { renderReason } from "../../envelope.js";
import { describeRun } from "../../wake/describe.js";
import { isStale, staleNote } from "../../wake/stale.js";

const input = z.object({ messageId: z.string().describe("The id of a message you sent or received.") }).strict();

const historyEntry = z.object({ event: z.enum(["sent", "handover", "delivered", "noticed", "woken", "read", "reminder", "resolved"]), at: z.string(), detail: z.string().optional() });

const output = z.object({
  message: messageFields.extend({ history: z.array(historyEntry), reminders: z.number(), replyId: z.string().optional(), reason: z.string().optional(), stale: z.boolean() }),
  wakes: z.array(z.record(z.string(), z.unknown())).describe("Headless runs of the recipient that carried this message, newest first, with their outcome."),
  thread: z.array(messageFields),
});

function history(message: MessageState): z.infer<typeof historyEntry>[] {
  // Where it went first: the holder before any handover.
  const firstTo = message.handovers?.[0]?.from ?? message.to;
  const entries: z.infer<typeof historyEntry>[] = [{ event: "sent", at: message.sentAt, detail: `by ${message.from} to ${message.via ? `${message.via} (held by ${firstTo === message.via ? "nobody" : firstTo})` : firstTo}` }];
  for (const step of message.handovers ?? [])
    entries.push({ event: "handover", at: step.at, detail: `${message.via} moved from ${step.from === message.via ? "nobody" : step.from} to ${step.to === message.via ? "nobody" : step.to}` });
  if (message.delivered) entries.push({ event: "delivered", at: message.delivered.at, detail: `via ${message.delivered.via}` });
  if (message.noticed) entries.push({ event: "noticed", at: message.noticed.at, detail: `told at a turn end (${message.noticed.via})` });
  if (message.read) entries.push({ event: "read", at: message.read.at, detail: `by ${message.read.by}` });
  if (message.reminders.lastAt) entries.push({ event: "reminder", at: message.reminders.lastAt, detail: `${message.reminders.count} so far` });
  if (message.resolved) entries.push({ event: "resolved", at: message.resolved.at, detail: message.resolved.resolution });
  return entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

export const statusTool = defineTool({
  name: "status",
  description: "Show the state and history of one message you sent or received (queued, delivered, read, replied, declined, done, unresolved, expired), and its conversation. It shows no bodies.",
  input,
  output,
  annotations: { title: "Message status", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const me = context.identity();
    const { mailbox } = context.peerpost;
    const message = mailbox.view(me.address).state.messages[args.messageId];
    if (!message)
      throw new PeerpostError("not_found", `No message ${args.messageId} to or from ${me.address}.`, {
        details: { messageId: args.messageId },
        hint: "Use an id from message, read or wait results; you can only see messages you sent or received.",
      });
    const { config, wakes } = context.peerpost;
    const now = config.now();
    const stale = !message.read && !message.resolved && isStale(message, now, config.staleMs);
    if (stale) context.warn({ code: "stale", message: staleNote(message, config.staleMs) });
    const runs = wakes.fold().runsFor({ messageId: message.id }).map((run) => describeRun(run, now));
    const entries = history(message);
    for (const run of runs) entries.push({ event: "woken", at: String(run.claimedAt), detail: `${run.kind} ${run.id}: ${run.state}${run.reason ? ` (${run.reason})` : ""}` });
    entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    const detail: Record<string, unknown> = { ...describeMessage(message, mailbox.status(message)), history: entries, reminders: message.reminders.count, stale };
    if (message.resolved?.replyId !== undefined) detail.replyId = message.resolved.replyId;
    if (message.resolved?.reason !== undefined) detail.reason = renderReason(message, message.resolved.reason);
    const view = mailbox.view(me.address);
    const thread = Object.values(view.state.messages)
      .filter((other) => other.conversationId === message.conversationId)
      .sort(byId)
      .map((other) => describeMessage(other, mailbox.status(other)));
    return { message: detail, thread, wakes: runs };
  },
});
