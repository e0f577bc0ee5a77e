// The receipts' compaction: receipts older than the retention move to receipts.archive.jsonl, and the
// receipts pages read the live file back and then the archive. Only a leading run of old receipts moves,
// up to the first one newer than the cutoff: the archive then holds the log's first lines and the live
// file the rest, in their order, so every page reads the same receipts in the same order as before.
// (Receipts are appended as they happen; a history appended out of date order waits behind newer ones.)
import type { LogEntry } from "../log/types.js";
import type { ReceiptRecord } from "../records/schemas.js";
import type { CompactionPlan } from "../store/file/log-compaction.js";

export function receiptRetentionPlan(cutoff: number): CompactionPlan<ReceiptRecord> {
  /** Where the leading run of receipts older than the cutoff ends: the first newer receipt's offset. */
  let newerFrom: number | undefined;
  let moving = 0;
  let corrupt: ReadonlySet<number> = new Set();
  return {
    // Past the run, nothing is parsed: every line there stays, and pass 2 copies by offset.
    wanted: () => newerFrom === undefined,
    observe({ offset, record }: LogEntry<ReceiptRecord>) {
      if (newerFrom !== undefined) return;
      if (Date.parse(record.at) < cutoff) moving++;
      else newerFrom = offset;
    },
    anyLeaves(corruptLines) {
      corrupt = corruptLines;
      return moving > 0;
    },
    place: { atOffset: (offset) => ((newerFrom === undefined || offset < newerFrom) && !corrupt.has(offset) ? "archive" : "keep") },
  };
}
