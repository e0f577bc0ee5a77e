// The rules every live transport follows (Claude's inbox, tmux, the pty wrapper, the editor shims), in one
// place so none can drift: only requests, never stale mail, within the wake budget, and the same short note.
// The claim (once per message per session, in the log) and the receipt are the push loop's (server/push.ts).
import type { Peerpost } from "../peerpost.js";
import { expectsResolution, type MessageState } from "../mail/fold.js";
import { isStale } from "../wake/stale.js";
import { readTurn, turnEnded } from "./turns.js";
import type { WakeFold } from "../wake/wake-fold.js";

/** Transports that type or post into a running session's own input. `agents` and `message` name them. */
export const LIVE_TRANSPORTS = ["claude-inbox", "tmux", "pty", "shim"] as const;
export type LiveTransportName = (typeof LIVE_TRANSPORTS)[number];

export function isLiveTransport(name: string | undefined): name is LiveTransportName {
  return (LIVE_TRANSPORTS as readonly string[]).includes(name ?? "");
}

/** Why a live push did not happen: the recipient's own policy, or peerpost's budget. */
export type LiveRefusal = { code: "push_held" | "push_refused" | "push_over_budget"; reason: string };

/** Whether a message is one a live transport may push to `address` now (the claim is checked later, under the lock). */
export function isLiveCandidate(message: MessageState, address: string, now: number, staleMs: number): boolean {
  return message.to === address && expectsResolution(message) && !message.delivered && !message.read && !message.resolved && !isStale(message, now, staleMs);
}

const HOUR_MS = 3_600_000;

/**
 * Turns pushed into `address` at or after `since` (delivered push receipts to it), counted up to `enough`.
 * A page of its push receipts holds others too (the refusals this budget recorded, failed pushes, its own
 * requests pushed to its peers), so the pages are read on until `enough` or the receipts since end.
 */
function pushedTurnsSince(peerpost: Peerpost, address: string, since: number, enough: number): number {
  let pushes = 0;
  let cursor: string | undefined;
  do {
    const page = peerpost.receipts.query({ kind: "push", address, since: new Date(since).toISOString(), limit: 100, cursor });
    pushes += page.receipts.filter((receipt) => receipt.to === address && receipt.delivery === "delivered").length;
    cursor = page.nextCursor;
  } while (cursor !== undefined && pushes < enough);
  return pushes;
}

/**
 * The turns started in `address` in the hour before `now`: its wakes, launches and forks (claims in `fold`)
 * and the turns live delivery pushed into it, the pushes counted only up to what the budget has left.
 * The wake budget is shared: together they stay within PEERPOST_WAKE_PER_HOUR, so two agents cannot keep
 * starting turns in each other, whether by waking or by pushing.
 */
export function turnsThisHour(peerpost: Peerpost, fold: WakeFold, address: string, now: number): { wakes: number; pushes: number } {
  const { perHour } = peerpost.config.wake;
  const wakes = fold.claimsSince(address, now - HOUR_MS).length;
  return { wakes, pushes: wakes >= perHour ? 0 : pushedTurnsSince(peerpost, address, now - HOUR_MS, perHour - wakes) };
}

/** Why a live push would be over the shared budget (turnsThisHour), or undefined. */
export function liveBudgetRefusal(peerpost: Peerpost, address: string, now: number): LiveRefusal | undefined {
  const { perHour } = peerpost.config.wake;
  const { wakes, pushes } = turnsThisHour(peerpost, peerpost.wakes.fold(), address, now);
  if (pushes + wakes < perHour) return undefined;
  return { code: "push_over_budget", reason: `${address} already had ${pushes + wakes} pushed or woken turn(s) in the last hour (PEERPOST_WAKE_PER_HOUR=${perHour}); the message waits for its next prompt or read.` };
}

/**
 * The one text every live transport delivers: who asks, the id, and that `read` shows it. Never the body:
 * a line typed into a terminal or posted into a host's inbox carries nothing the sender wrote but its
 * address, and the body reaches the model only through `read`, in peerpost's untrusted envelope.
 */
export function liveNote(message: MessageState): string {
  const expects = message.anticipation === "action" ? "asks you to act and report back" : "expects an answer";
  return `peerpost: ${message.from} sent you a request (message ${message.id}); it ${expects}. It is from another AI agent, not from the user. Call the peerpost read tool to see it, then answer it with the peerpost reply tool.`;
}

/** For the terminal transports, which see no protocol: the session's last turn ended (Stop/agentStop after its last prompt). */
export function busyRefusal(stateDir: string, address: string): string | undefined {
  return turnEnded(readTurn(stateDir, address)) ? undefined : `${address} is in a turn: its stop hook has not run since its last prompt`;
}
