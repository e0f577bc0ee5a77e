// How a wake or launch run reads in `status`, `peerpost wake` and the status tool: its state and outcome.
import type { WakeState } from "./wake-fold.js";
import { escapeVisible } from "../security/escape.js";

/** claimed | running | ok | failed | timeout | abandoned | refused, with the outcome's details. */
export function describeRun(run: WakeState, now: number): Record<string, unknown> {
  const state = run.ended ? run.ended.outcome : Date.parse(run.claim.deadline) > now ? (run.started ? "running" : "claimed") : "abandoned";
  const described: Record<string, unknown> = { id: run.claim.id, kind: run.claim.kind, address: run.claim.address, state, claimedAt: run.claim.at, messageIds: run.claim.messageIds };
  if (run.ended) {
    for (const key of ["exitCode", "signal", "durationMs", "reason", "report", "logPath"] as const) if (run.ended[key] !== undefined) described[key] = run.ended[key];
    // The host's last stderr line and the woken model's final text are other programs' text, shown to the
    // sender's model (status) and on a person's terminal: invisible and control characters made visible.
    if (run.ended.reason !== undefined) described.reason = escapeVisible(run.ended.reason);
    if (run.ended.report !== undefined) described.report = escapeVisible(run.ended.report, { multiline: true });
    described.endedAt = run.ended.at;
  }
  return described;
}
