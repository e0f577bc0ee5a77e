// What sending and resolving take and give back, the body limit every text is held to, and the errors
// for a message that is missing or already resolved: shared by the mailbox and the callers that check
// before they send (a launch checks its request's body before it starts anything).
import { MAX_BODY_BYTES, type Anticipation, type Resolution } from "../records/schemas.js";
import type { MessageState, MessageStatus } from "./fold.js";
import { PeerpostError } from "../common/errors.js";
import { HINTS } from "../common/hints.js";

export interface SendInput {
  from: string;
  fromVerified: boolean;
  to: string;
  via?: string | undefined;
  body: string;
  anticipation?: Anticipation | undefined;
  replyBy?: string | undefined;
  replyToMessageId?: string | undefined;
  idempotencyKey?: string | undefined;
  allowSelf?: boolean | undefined;
  /** A notice of what was done (task_unblocked, claim_released): it continues no conversation, whose hop budget could refuse it. */
  notice?: boolean | undefined;
}

export interface SendResult {
  message: MessageState;
  /** False when an earlier send with the same idempotency key is returned instead. */
  created: boolean;
}

export interface ResolveInput {
  id: string;
  by: string;
  /** Whether `by` came from the host runtime (not from an argument); carried by the reply message. Default false. */
  byVerified?: boolean | undefined;
  resolution: Resolution;
  /** The reply text (resolution reply) or the reason (decline, optional for done). */
  text?: string | undefined;
}

export interface ResolveResult {
  message: MessageState;
  reply?: MessageState;
}

export interface InboxEntry {
  message: MessageState;
  body: string;
  status: MessageStatus;
}

export const BODY_TOO_LARGE_HINT = "Shorten it, or put the long content in a file both agents can read and send its path.";

export function checkBody(body: string, field = "message"): void {
  const bytes = Buffer.byteLength(body, "utf8");
  if (bytes > MAX_BODY_BYTES)
    throw new PeerpostError("body_too_large", `The ${field} is ${bytes} bytes of UTF-8; the limit is ${MAX_BODY_BYTES}.`, {
      details: { field, bytes, limit: MAX_BODY_BYTES },
      hint: BODY_TOO_LARGE_HINT,
    });
}

export function alreadyResolved(id: string, resolved: { resolution: Resolution; at: string }): PeerpostError {
  return new PeerpostError("already_resolved", `Message ${id} was already resolved (${resolved.resolution}) at ${resolved.at}.`, {
    details: { messageId: id, resolution: resolved.resolution, at: resolved.at },
    hint: HINTS.alreadyResolved,
  });
}

export function notFound(id: string): PeerpostError {
  return new PeerpostError("not_found", `No message ${id} in the mailbox.`, {
    details: { messageId: id },
    hint: HINTS.unknownMessage,
  });
}
