// The wakes log's compaction: runs that ended before the retention (a fork's once its answer was sent back)
// move with all their records to wakes.archive.jsonl. Runs without an outcome never move: the sweeper
// releases them, and a fork waiting to be reconciled stays. `Wakes.history` folds the archive too, for the
// runs `status` shows; the decisions read only the live file, where every run of the last retention is.
import type { LogEntry } from "../log/types.js";
import type { CompactionPlan } from "../store/file/log-compaction.js";
import { WakeFold } from "./wake-fold.js";
import { HOUR_MS } from "./request.js";
import type { WakeRecord } from "./records.js";

export function wakeRetentionPlan(retentionCutoff: number, now: number): CompactionPlan<WakeRecord> {
  // The wake budget counts the runs of the last hour, from the live file: none of them moves, whatever the retention.
  const cutoff = Math.min(retentionCutoff, now - HOUR_MS);
  const fold = new WakeFold();
  let moving: Set<string> | undefined;
  return {
    observe: ({ record }: LogEntry<WakeRecord>) => fold.apply(record),
    anyLeaves() {
      moving = new Set();
      for (const run of fold.runs.values()) {
        if (!run.ended || Date.parse(run.ended.at) >= cutoff || Date.parse(run.claim.at) >= cutoff) continue;
        if (run.claim.kind === "fork" && !run.reconciled) continue;
        moving.add(run.claim.id);
      }
      return moving.size > 0;
    },
    place: ({ record }) => (moving!.has(record.id) ? "archive" : "keep"),
  };
}
