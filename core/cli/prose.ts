// Messages written out for a person: who sent it and when, what it asks for, where it stands, the body
// as readable text (dangerous characters shown as ⟨U+XXXX⟩, nothing HTML-escaped), and the next command.
import type { MessageState, MessageStatus } from "../mail/fold.js";
import { visible } from "../security/visible.js";

const ASKS = { reply: "asks for a reply", action: "asks for an action and a report", fyi: "fyi, no answer expected" } as const;

import { when } from "../common/time.js";

export { localTime, when } from "../common/time.js";

export function sender(message: Pick<MessageState, "from" | "fromVerified" | "via">): string {
  return `${message.from}${message.fromVerified ? "" : " (unverified: set by the sender, not by its host)"}${message.via ? ` via ${message.via}` : ""}`;
}

/** What to run next for a message, as the person acting for `reader` (its recipient or its sender). */
export function nextStep(message: MessageState, status: MessageStatus, reader: string): string {
  const id = message.id;
  if (reader === message.to) {
    if (message.resolved || status === "expired") return `To follow up: peerpost send --from ${reader} --to ${message.from} --reply-to ${id} TEXT`;
    if (message.anticipation === "fyi") return `No answer expected. To answer anyway: peerpost send --from ${reader} --to ${message.from} --reply-to ${id} TEXT`;
    return `To answer: peerpost reply ${id} --as ${reader} --reply TEXT   (or --decline REASON, or --done)`;
  }
  if (message.resolved) return message.resolved.replyId ? `The answer is message ${message.resolved.replyId}: peerpost status ${message.resolved.replyId}` : `Details: peerpost status ${id}`;
  return `To check on it later: peerpost status ${id}`;
}

function indent(text: string): string {
  return text.split("\n").map((line) => `    ${line}`).join("\n");
}

/** One message as a block of prose; `reader` decides the next step shown. */
export function messageBlock(message: MessageState, body: string, status: MessageStatus, now: number, reader: string): string {
  const lines = [
    `From ${visible(sender(message))}, ${when(message.sentAt, now)}`,
    `  to ${message.to} · ${ASKS[message.anticipation]}${message.replyBy ? ` by ${message.replyBy}` : ""} · status ${status}`,
    `  id ${message.id}${message.inReplyTo ? ` · in reply to ${message.inReplyTo}` : ""} · conversation ${message.conversationId}, hop ${message.hop}`,
    "",
    indent(visible(body, true)),
    "",
    `  ${nextStep(message, status, reader)}`,
  ];
  return lines.join("\n");
}
