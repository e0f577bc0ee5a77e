// When a terminal transport may type a request into a running session. Each rule is its own small
// function, so they can join the rules every live transport shares. A rule that says no returns why.
import type { Peerpost } from "../peerpost.js";
import { expectsResolution, type MessageState } from "../mail/fold.js";
import { isStale } from "../wake/stale.js";
import { readTurn, turnEnded } from "./turns.js";

const HOUR_MS = 3_600_000;

/** Only requests (reply or action) are typed; fyi waits for read and the hooks. */
export function notARequest(message: MessageState): string | undefined {
  return expectsResolution(message) ? undefined : `message ${message.id} is fyi: only requests are typed into a session`;
}

/** Past its replyBy, or unread longer than the staleness limit: never typed. */
export function staleRefusal(message: MessageState, now: number, staleMs: number): string | undefined {
  return isStale(message, now, staleMs) ? `message ${message.id} is stale: it waits for read` : undefined;
}

/** The wake budget (PEERPOST_WAKE_PER_HOUR) counts the turns typed into one session, so two agents cannot keep typing into each other. */
export function typedBudgetRefusal(peerpost: Peerpost, address: string, vias: readonly string[], now: number): string | undefined {
  const perHour = peerpost.config.wake.perHour;
  const typed = Object.values(peerpost.mailbox.view(address).state.messages).filter(
    (message) => message.to === address && message.delivered !== undefined && vias.includes(message.delivered.via) && now - Date.parse(message.delivered.at) < HOUR_MS,
  ).length;
  return typed >= perHour ? `${typed} turn(s) were already typed into ${address} in the last hour (PEERPOST_WAKE_PER_HOUR=${perHour})` : undefined;
}

/** The session's last turn ended (Stop/agentStop after its last prompt). */
export function busyRefusal(stateDir: string, address: string): string | undefined {
  return turnEnded(readTurn(stateDir, address)) ? undefined : `${address} is in a turn: its stop hook has not run since its last prompt`;
}

/** The rules about the message and the session that every terminal transport checks before it claims a message. */
export function terminalRefusal(peerpost: Peerpost, address: string, message: MessageState, vias: readonly string[]): string | undefined {
  const now = peerpost.config.now();
  return notARequest(message) ?? staleRefusal(message, now, peerpost.config.staleMs) ?? busyRefusal(peerpost.stateDir.path, address) ?? typedBudgetRefusal(peerpost, address, vias, now);
}

/** The one line typed into the session: who asks, for what, and that `read` shows it. The body stays in the mailbox: it is untrusted, and read shows it in its envelope. */
export function typedLine(message: MessageState): string {
  const wants = message.anticipation === "action" ? "asks you to act on a request" : "asks for a reply";
  return `peerpost: ${message.from} ${wants} (message ${message.id}). Call peerpost's read tool to see it, then answer with reply.`;
}

/**
 * The pause between the typed line and its Enter. Codex takes keys that arrive close together for a
 * paste and holds an Enter that follows within ~120 ms as part of it (verified on codex-cli 0.171.0:
 * the line stayed in the input); a separate Enter after the pause submits it.
 */
export const ENTER_AFTER_MS = 200;
