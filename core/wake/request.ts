// Deciding a wake: a request (reply/action) to a session whose host process is gone, with waking on for
// it, within budget. The claim is appended to the wakes log under its lock before anything starts, so two
// senders (or two servers) never start two runs for one session; the loser hears "running".
import { startDetached } from "../common/detached.js";
import type { Peerpost } from "../peerpost.js";
import { byId, expectsResolution, type MessageState } from "../mail/fold.js";
import { idFactory } from "../common/ids.js";
import { isSameProcess } from "../sessions/process-tree.js";
import type { Warning } from "../server/results.js";
import { switchesOrRefusal, wakeSetting } from "./switches.js";
import { toErrorValue } from "../common/errors.js";
import { isStale } from "./stale.js";
import { sessionLiveness } from "./liveness.js";
import type { WakeDeps } from "./waker.js";
import type { WakeClaim, WakeRecord } from "./records.js";
import type { WakeFold } from "./wake-fold.js";
import { sessionOverrides, type SessionOverrides } from "./overrides.js";
import { turnsThisHour } from "../live/rules.js";

function runSettings(overrides: SessionOverrides | undefined): Pick<WakeClaim, "settings"> {
  const settings = { ...(overrides?.model ? { model: overrides.model } : {}), ...(overrides?.effort ? { effort: overrides.effort } : {}) };
  return Object.keys(settings).length > 0 ? { settings } : {};
}

/** A runner that died is given this long past the turn's timeout before its claim is released. */
export const CLAIM_GRACE_MS = 30_000;
/** The window the wake budget counts runs in (PEERPOST_WAKE_PER_HOUR): compaction keeps its runs live (wake-retention.ts). */
export const HOUR_MS = 3_600_000;

/** The outcomes a send reports to its sender (the `message` tool's `wake`); the others say nothing was tried. */
export const REPORTED_WAKE_OUTCOMES = ["started", "running", "over_budget", "unsupported", "unsure"] as const;

export type WakeDecision =
  | { outcome: "started"; claimId: string }
  | { outcome: "running"; claimId: string; warning: Warning }
  | { outcome: "over_budget"; warning: Warning }
  | { outcome: "unsupported"; warning: Warning }
  | { outcome: "unsure"; warning: Warning }
  | { outcome: "off" | "alive" | "nothing" | "unknown" };

/**
 * What a sender hears about where its request waits, once the wake is decided: a wake that started (or
 * one already running) replaces "not running, it waits" with what actually happens next.
 */
export function sendWarnings(recipient: { code: string; message: string } | undefined, decision: WakeDecision | undefined, address: string): Warning[] {
  const waking = decision?.outcome === "started" || decision?.outcome === "running";
  const warnings: Warning[] = [];
  if (recipient && !(waking && recipient.code === "recipient_not_running")) warnings.push(recipient);
  if (decision?.outcome === "started") warnings.push({ code: "recipient_waking", message: `${address} is not running now; peerpost started a headless turn of it (run ${decision.claimId}) to answer.` });
  if (decision && "warning" in decision) warnings.push(decision.warning);
  return warnings;
}

/** The requests a wake of `address` would carry: unread, open, not stale, oldest first. */
export function wakeCandidates(peerpost: Peerpost, address: string): MessageState[] {
  const now = peerpost.config.now();
  return Object.values(peerpost.mailbox.view(address).state.messages)
    .filter((message) => message.to === address && expectsResolution(message) && !message.read && !message.resolved && !isStale(message, now, peerpost.config.staleMs))
    .sort(byId);
}

/**
 * Claims past their deadline with no outcome get one ("abandoned"), written by whoever decides next. A
 * host process the dead runner left behind is past its turn's timeout: it is stopped first (its whole
 * process group), so a next wake never runs beside it on one transcript.
 */
export function releaseAbandoned(fold: WakeFold, now: number): WakeRecord[] {
  return fold.abandoned(now).map((run) => {
    const orphan = run.host !== undefined && isSameProcess(run.host.pid, run.host.pidStart) ? run.host.pid : undefined;
    if (orphan !== undefined) stopGroup(orphan);
    const stopped = orphan === undefined ? "" : `; its host process ${orphan} was still running and was stopped`;
    return { v: 1, type: "wake-ended", id: run.claim.id, outcome: "abandoned", reason: `the run never reported an outcome before its deadline (its runner died); the claim is released${stopped}`, at: new Date(now).toISOString() };
  });
}

/** SIGKILL to a host's whole process group (the runner starts each host as a group leader). */
export function stopGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // gone meanwhile
  }
}

/** Budget left for one more run of `address` on this machine, or the warning that says why not. */
export function budgetRefusal(peerpost: Peerpost, fold: WakeFold, address: string, now: number): Warning | undefined {
  const { perHour, concurrency } = peerpost.config.wake;
  // Turns pushed into the session while it ran share the budget.
  const { wakes, pushes } = turnsThisHour(peerpost, fold, address, now);
  if (wakes + pushes >= perHour)
    return { code: "wake_over_budget", message: `${address} was already woken ${wakes} time(s)${pushes > 0 ? ` and had ${pushes} pushed turn(s)` : ""} in the last hour (PEERPOST_WAKE_PER_HOUR=${perHour}); the message waits for its next prompt or read.` };
  const running = fold.active(now).length;
  if (running >= concurrency)
    return { code: "wake_over_budget", message: `${running} woken or launched turn(s) already run on this machine (PEERPOST_WAKE_CONCURRENCY=${concurrency}); the message waits for its next prompt or read.` };
  return undefined;
}

/** A run's claim made at `now` by this process, due to report an outcome by the turn timeout and a grace. */
export function newClaim(peerpost: Peerpost, id: string, now: number, kind: WakeClaim["kind"], fields: Omit<WakeClaim, "v" | "type" | "id" | "kind" | "at" | "deadline" | "by">): WakeClaim {
  return { v: 1, type: "wake", id, kind, ...fields, at: new Date(now).toISOString(), deadline: new Date(now + peerpost.config.wake.timeoutMs + CLAIM_GRACE_MS).toISOString(), by: process.pid };
}

/** Starts `wake-run <id>` detached, in its own process group, so it outlives a short-lived sender. */
export function startRunner(peerpost: Peerpost, deps: WakeDeps, claimId: string): void {
  startDetached(deps.runnerEntry, ["wake-run", claimId], peerpost.stateDir.path);
}

/**
 * A state file the wake reads (wake.json, overrides.json) refused (trust.ts): asked after the send, so the
 * message is stored, and only its wake is skipped, with a warning that says why.
 */
function unreadable(address: string, error: unknown): WakeDecision {
  return { outcome: "unsure", warning: { code: "wake_unsure", message: `peerpost does not wake ${address}: ${toErrorValue(error).message} The message waits for its next prompt or read.` } };
}

/**
 * Wakes `address` if it should be: called after a send. `start` runs the claimed wake (by default a
 * detached runner); a wake runner that finds more mail after its turn passes itself.
 */
export async function requestWake(peerpost: Peerpost, address: string, deps: WakeDeps, start: (claimId: string) => void | Promise<void> = (id) => startRunner(peerpost, deps, id)): Promise<WakeDecision> {
  const entry = peerpost.sessions.get(address);
  if (!entry) return { outcome: "unknown" };
  const { switches, refusal } = switchesOrRefusal(peerpost.stateDir.path);
  if (refusal !== undefined) return unreadable(address, refusal);
  if (!wakeSetting(switches, entry).on) return { outcome: "off" };
  if (entry.alive) return { outcome: "alive" };
  // A session of another machine (a shared store) is resumed only there, never here.
  if (!entry.local)
    return { outcome: "unsupported", warning: { code: "wake_unsupported", message: `${address} runs on machine ${entry.machine ?? "?"}, not this one; peerpost wakes only sessions of its own machine, so the message waits for its next prompt or read there.` } };
  // Never a second writer on one transcript: a live session gets push or its hooks, and one whose host
  // process peerpost cannot rule out is not woken either (liveness.ts).
  const liveness = sessionLiveness(peerpost, entry, deps.wakers[entry.host]);
  if (liveness.state === "alive") return { outcome: "alive" };
  if (liveness.state === "unsure") return { outcome: "unsure", warning: { code: "wake_unsure", message: `peerpost does not wake ${address}: ${liveness.why}, so its host may still hold it. The message waits for its next prompt or read.` } };
  if (!deps.wakers[entry.host]) return { outcome: "unsupported", warning: { code: "wake_unsupported", message: `peerpost cannot wake ${entry.host} sessions from here; the message waits for ${address}'s next prompt or read.` } };
  if (entry.cwd === undefined) return { outcome: "unsupported", warning: { code: "wake_unsupported", message: `${address} has no recorded working directory, so it cannot be resumed; the message waits.` } };
  const candidates = wakeCandidates(peerpost, address);
  if (candidates.length === 0) return { outcome: "nothing" };
  let decision: WakeDecision = { outcome: "nothing" };
  // Settings a message changed for this session (overrides.ts) go with every later wake.
  let overrides: ReturnType<typeof sessionOverrides>;
  try {
    overrides = sessionOverrides(peerpost.stateDir.path, address);
  } catch (error) {
    return unreadable(address, error);
  }
  const newId = await idFactory();
  // The message is stored already: a wakes log that cannot be read or written (refused, locked, full)
  // skips only the wake, with why, never turns the send into an error its sender would repeat.
  const decided = await peerpost.wakes.decide((fold) => {
    const now = peerpost.config.now();
    const records = releaseAbandoned(fold, now);
    const running = fold.holding(now, address);
    if (running) {
      decision = { outcome: "running", claimId: running.claim.id, warning: { code: "wake_running", message: `${address} is being woken already (run ${running.claim.id}); that run or the next one takes this message.` } };
      return records;
    }
    const refusal = budgetRefusal(peerpost, fold, address, now);
    if (refusal) {
      decision = { outcome: "over_budget", warning: refusal };
      return records;
    }
    const carried = fold.carried(now);
    const messageIds = candidates.filter((message) => !carried.has(message.id)).map((message) => message.id);
    if (messageIds.length === 0) return records;
    const claim = newClaim(peerpost, newId(now), now, "wake", { address, host: entry.host, sessionId: entry.sessionId, cwd: overrides?.cwd ?? entry.cwd!, ...runSettings(overrides), messageIds });
    decision = { outcome: "started", claimId: claim.id };
    return [...records, claim];
  }).then(
    () => decision as WakeDecision,
    (error: unknown) => unreadable(address, error),
  );
  if (decided.outcome === "started") await start(decided.claimId);
  return decided;
}
