// What `message` tells the sender about a live push of its request: the recipient's server claims and
// pushes it within moments (or records why not), so the send waits briefly (PEERPOST_PUSH_CONFIRM_MS) to
// answer `delivery: delivered` with the transport, or a warning with the refusal's code.
import type { Peerpost } from "../peerpost.js";
import type { MessageState } from "../mail/fold.js";
import { waitFor } from "../mail/wait.js";
import type { Warning } from "../server/results.js";
import { isLiveTransport } from "./rules.js";

export type LiveOutcome = { delivered: { via: string; at: string } } | { warning: Warning };

/** The live transport a request to this recipient would take, if its server reported one. */
export function liveTransportOf(peerpost: Peerpost, address: string): string | undefined {
  const entry = peerpost.sessions.get(address);
  return entry?.alive && isLiveTransport(entry.push) ? entry.push : undefined;
}

function outcomeNow(peerpost: Peerpost, message: MessageState, transport: string): LiveOutcome | undefined {
  const state = peerpost.mailbox.view(message.to).state.messages[message.id];
  const receipts = peerpost.receipts.query({ kind: "push", address: message.to, since: message.sentAt, limit: 20 }).receipts.filter((receipt) => receipt.messageId === message.id);
  // The claim comes before the push: a transport may still refuse (the person started typing) and give it
  // back. Delivered once its receipt says so; a claim with no receipt yet counts only when the wait ends.
  if (state?.delivered && receipts.some((receipt) => receipt.delivery === "delivered")) return { delivered: state.delivered };
  const skipped = receipts.find((receipt) => receipt.delivery === "skipped");
  const said = skipped?.warnings[0];
  if (said === undefined) return undefined;
  const colon = said.indexOf(": ");
  return { warning: { code: colon > 0 ? said.slice(0, colon) : "push_held", message: `${transport}: ${colon > 0 ? said.slice(colon + 2) : said}` } };
}

/** Waits up to the confirm time for the push of a new request; undefined when nothing was decided by then. */
export async function awaitLiveOutcome(peerpost: Peerpost, message: MessageState, transport: string, signal?: AbortSignal): Promise<LiveOutcome | undefined> {
  const waited = await waitFor(() => outcomeNow(peerpost, message, transport), {
    timeoutMs: peerpost.config.pushConfirmMs,
    pollMs: Math.min(peerpost.config.waitPollMs, 50),
    watchDir: peerpost.stateDir.path,
    signal,
  });
  if (waited.outcome === "match") return waited.value;
  // A push still under way when the wait ends (a terminal waits for its Enter to be taken) holds its claim.
  const state = waited.outcome === "timeout" ? peerpost.mailbox.view(message.to).state.messages[message.id] : undefined;
  return state?.delivered ? { delivered: state.delivered } : undefined;
}
