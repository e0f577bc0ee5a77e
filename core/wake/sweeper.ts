// The sweeper of a running server, for runs whose runner stopped (killed, a machine that slept): past
// their deadline they are released as abandoned, a session whose wake or launch died is woken again for
// the mail it carried, and every ended fork run without its answer sent back gets it (fork-run.ts).
import type { Peerpost } from "../peerpost.js";
import { releaseAbandoned, requestWake } from "./request.js";
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
    const stranded = new Set(abandoned.flatMap((run) => (run.claim.kind !== "fork" && run.claim.address !== undefined ? [run.claim.address] : [])));
    for (const address of stranded) await requestWake(peerpost, address, deps).catch(() => undefined);
    fold = peerpost.wakes.fold();
  }
  const ended = [...fold.runs.values()].filter((run) => run.claim.kind === "fork" && !run.reconciled && run.ended);
  for (const run of ended) await reconcileFork(peerpost, run, deps.wakers[run.claim.host]);
  return ended.length;
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
