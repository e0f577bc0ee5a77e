// What a live turn (a message typed or injected into a running session as a new turn) may carry. A turn
// interrupts nobody but costs the recipient a model turn, so it is for requests only, and it shares the
// wake budget: two agents that keep asking each other cannot keep starting turns in each other.
// (Stale mail is never pushed at all: push.ts checks that for every transport.)
import type { Peerpost } from "../peerpost.js";
import { expectsResolution, type MessageState } from "../mail/fold.js";

const HOUR_MS = 3_600_000;

/** Only a request (reply or action) starts a turn; fyi mail waits for the hooks and read. */
export function isLiveTurnRequest(message: MessageState): boolean {
  return expectsResolution(message);
}

/**
 * Why one more live turn for `address` would be over the wake budget (PEERPOST_WAKE_PER_HOUR per session
 * per hour, counting wakes and pushed turns together), or undefined when it is within it.
 */
export function liveTurnBudgetRefusal(peerpost: Peerpost, address: string, now: number): string | undefined {
  const since = now - HOUR_MS;
  const perHour = peerpost.config.wake.perHour;
  const wakes = peerpost.wakes.fold().claimsSince(address, since).length;
  const pushed = Object.values(peerpost.mailbox.view(address).state.messages).filter((message) => message.to === address && message.delivered !== undefined && Date.parse(message.delivered.at) >= since).length;
  if (wakes + pushed < perHour) return undefined;
  return `${address} already took ${wakes + pushed} woken or pushed turn(s) in the last hour (PEERPOST_WAKE_PER_HOUR=${perHour}); the message waits for its next prompt or read.`;
}
