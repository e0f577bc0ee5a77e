// Stale mail: past its replyBy, or unread for longer than the staleness limit. Neither a wake nor a live
// push delivers it (the sender has likely moved on); it waits for `read`, and wait/status say so.
import type { MessageState } from "../mail/fold.js";

export function isStale(message: MessageState, now: number, staleMs: number): boolean {
  if (message.replyBy !== undefined && now > Date.parse(message.replyBy)) return true;
  return now - Date.parse(message.sentAt) > staleMs;
}

export function staleNote(message: MessageState, staleMs: number): string {
  return message.replyBy !== undefined && Date.parse(message.replyBy) < Date.parse(message.sentAt) + staleMs
    ? `Message ${message.id} is past its replyBy (${message.replyBy}): peerpost no longer wakes or pushes it; it waits for its recipient to call read.`
    : `Message ${message.id} is stale (unread for more than ${Math.round(staleMs / 60_000)} min, PEERPOST_STALE_MS): peerpost no longer wakes or pushes it; it waits for its recipient to call read.`;
}
