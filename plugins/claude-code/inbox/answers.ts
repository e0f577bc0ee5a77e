// An answer that arrived on a request's reply socket (Claude's SendMessage to the `from` address) becomes
// that request's reply, decided by log order like every other reply. An answer to a request already
// resolved, or moved to a role's new holder meanwhile, is kept as a follow-up message to the same sender,
// never dropped. The socket is reachable by any process of the user, so the reply is recorded as not verified.
import type { Peerpost } from "../../../core/peerpost.js";
import type { Identity } from "../../../core/server/adapter.js";
import { receiptOrigin } from "../../../core/server/adapter.js";
import { PeerpostError } from "../../../core/common/errors.js";
import { MAX_BODY_BYTES } from "../../../core/records/schemas.js";
import { cutToBytes } from "../../../core/common/utf8.js";
import { unwrapEnvelope } from "./frame.js";

export const ANSWER_VIA = "claude-inbox";

function answerText(frame: Record<string, unknown>): string | undefined {
  if (frame.type !== "user") return undefined;
  const content = (frame.message as { content?: unknown } | undefined)?.content;
  if (typeof content !== "string") return undefined;
  const text = unwrapEnvelope(content).trim();
  if (text === "") return undefined;
  return Buffer.byteLength(text, "utf8") <= MAX_BODY_BYTES ? text : `${cutToBytes(text, MAX_BODY_BYTES - 64)}\n[cut at 64 KiB by peerpost]`;
}

export async function recordInboxAnswer(peerpost: Peerpost, identity: Identity, messageId: string, frame: Record<string, unknown>): Promise<void> {
  const text = answerText(frame);
  if (text === undefined) return;
  const { mailbox, receipts } = peerpost;
  let to: string;
  let answerId: string;
  try {
    const { message, reply } = await mailbox.resolve({ id: messageId, by: identity.address, byVerified: false, resolution: "reply", text });
    to = message.from;
    answerId = reply?.id ?? message.id;
  } catch (error) {
    // Resolved meanwhile, or moved to a role's new holder (wrong_recipient): the answer still reaches the sender.
    if (!(error instanceof PeerpostError) || (error.code !== "already_resolved" && error.code !== "wrong_recipient")) throw error;
    const original = mailbox.find(messageId);
    if (!original) throw error;
    const { message } = await mailbox.send({ from: identity.address, fromVerified: false, to: original.from, body: text, anticipation: "fyi", replyToMessageId: messageId });
    to = original.from;
    answerId = message.id;
  }
  await receipts.record({ kind: "reply", host: "claude-code", from: identity.address, to, messageId: answerId, delivery: "queued", via: ANSWER_VIA, warnings: [], origin: receiptOrigin(identity, false) });
}
