// How messages appear in tool results and the CLI's --json: structured fields plus, where a body is shown,
// the envelope. The shapes' zod schemas are message-fields.ts, loaded by the MCP tools, not by the CLI.
import type { z } from "zod";
import type { messageFields, shownMessage } from "./message-fields.js";
import type { MessageState, MessageStatus } from "../mail/fold.js";
import type { Mailbox } from "../mail/mailbox.js";
import { renderEnvelope } from "../mail/envelope.js";

export function describeMessage(message: MessageState, status: MessageStatus): z.infer<typeof messageFields> {
  const fields: z.infer<typeof messageFields> = {
    id: message.id,
    from: message.from,
    fromVerified: message.fromVerified,
    to: message.to,
    sentAt: message.sentAt,
    anticipation: message.anticipation,
    conversationId: message.conversationId,
    hop: message.hop,
    status,
    bodyBytes: message.bodyBytes,
  };
  if (message.via !== undefined) fields.via = message.via;
  if (message.replyBy !== undefined) fields.replyBy = message.replyBy;
  if (message.inReplyTo !== undefined) fields.inReplyTo = message.inReplyTo;
  return fields;
}

export function showMessage(mailbox: Mailbox, message: MessageState, body: string = mailbox.body(message)): z.infer<typeof shownMessage> {
  return { ...describeMessage(message, mailbox.status(message)), envelope: renderEnvelope(message, body, mailbox.procedure(message)) };
}
