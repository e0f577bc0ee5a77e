// How a wake or launch run reads in `status`, `peerpost wake` and the status tool: its state and outcome.
import type { WakeState } from "./wakes.js";

/** claimed | running | ok | failed | timeout | abandoned | refused, with the outcome's details. */
export function describeRun(run: WakeState, now: number): Record<string, unknown> {
  const state = run.ended ? run.ended.outcome : Date.parse(run.claim.deadline) > now ? (run.started ? "running" : "claimed") : "abandoned";
  const described: Record<string, unknown> = { id: run.claim.id, kind: run.claim.kind, address: run.claim.address, state, claimedAt: run.claim.at, messageIds: run.claim.messageIds };
  if (run.ended) {
    for (const key of ["exitCode", "signal", "durationMs", "reason", "report", "logPath"] as const) if (run.ended[key] !== undefined) described[key] = run.ended[key];
    described.endedAt = run.ended.at;
  }
  return described;
}
