// The sweeper of a running server, for runs whose runner stopped (killed, a machine that slept): past
// their deadline they are released as abandoned, a session whose wake or launch died is woken again for
// the mail it carried, and every ended fork run without its answer sent back gets it (fork-run.ts).
import type { Peerpost } from "../peerpost.js";
import { budgetRefusal, newClaim, releaseAbandoned, requestWake, startRunner, wakeCandidates } from "./request.js";
import { idFactory } from "../common/ids.js";
import type { WakeState } from "./wake-fold.js";
import { reconcileFork } from "./fork-run.js";
import type { WakeDeps } from "./waker.js";

/**
 * One sweep: releases the runs whose runner died, and wakes again each session whose wake or launch died
 * (for the mail it carried, and the requests told "running" meanwhile); then reconciles every ended fork
 * run that has no answer sent yet. Returns how many it reconciled.
 */
export async function sweepRuns(peerpost: Peerpost, deps: WakeDeps): Promise<number> {
  const now = peerpost.config.now();
  let fold = peerpost.wakes.fold();
  const abandoned = fold.abandoned(now);
  if (abandoned.length > 0) {
    await peerpost.wakes.decide((current) => releaseAbandoned(current, now));
    // A launch whose host never started has no session for its host to resume: it is launched again.
    const unstarted = abandoned.filter((run) => run.claim.kind === "launch" && run.host === undefined && run.bound !== undefined && run.claim.sessionId !== undefined);
    for (const run of unstarted) await relaunch(peerpost, deps, run).catch(() => undefined);
    const stranded = new Set(abandoned.flatMap((run) => (run.claim.kind !== "fork" && !unstarted.includes(run) && run.claim.address !== undefined ? [run.claim.address] : [])));
    for (const address of stranded) await requestWake(peerpost, address, deps).catch(() => undefined);
    fold = peerpost.wakes.fold();
  }
  const ended = [...fold.runs.values()].filter((run) => run.claim.kind === "fork" && !run.reconciled && run.ended);
  // One fork whose answer cannot be sent does not hold back the others'.
  for (const run of ended) await reconcileFork(peerpost, run, deps.wakers[run.claim.host]).catch(() => undefined);
  return ended.length;
}

/**
 * Claims a new launch run for an abandoned one whose host never started, with its session, first message
 * and settings (its message is carried again only if it is still unread and open), and starts its runner.
 */
async function relaunch(peerpost: Peerpost, deps: WakeDeps, run: Readonly<WakeState>): Promise<void> {
  const { claim } = run;
  if (claim.address === undefined) return;
  const address = claim.address;
  const open = new Set(wakeCandidates(peerpost, address).map((message) => message.id));
  const messageIds = claim.messageIds.filter((id) => open.has(id));
  if (messageIds.length === 0) return;
  const newId = await idFactory();
  let claimId: string | undefined;
  await peerpost.wakes.decide((fold) => {
    const now = peerpost.config.now();
    if (fold.holding(now, address) || [...fold.runs.values()].some((other) => other.claim.kind === "launch" && other.claim.address === address && other.claim.id > claim.id)) return [];
    if (budgetRefusal(peerpost, fold, address, now)) return [];
    const next = newClaim(peerpost, newId(now), now, "launch", { address, host: claim.host, sessionId: claim.sessionId, cwd: claim.cwd, messageIds, ...(claim.settings ? { settings: claim.settings } : {}) });
    claimId = next.id;
    return [next];
  });
  if (claimId !== undefined) startRunner(peerpost, deps, claimId);
}

/** How often a server sweeps (a runner normally reports and reconciles at once; this is for crashes). */
export const SWEEP_INTERVAL_MS = 30_000;

/** Starts the sweeper of a server: at once, then every SWEEP_INTERVAL_MS; failures wait for the next sweep. */
export function startRunSweeper(peerpost: Peerpost, deps: WakeDeps, intervalMs: number = SWEEP_INTERVAL_MS): () => void {
  let running = false;
  const sweep = () => {
    if (running) return;
    running = true;
    void sweepRuns(peerpost, deps)
      .catch(() => undefined)
      .finally(() => (running = false));
  };
  sweep();
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
