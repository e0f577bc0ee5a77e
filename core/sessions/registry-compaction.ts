// The registry's compaction: the live file keeps, per address, only the records its fold still reads, byte
// for byte and in their order, so the fold gives the same entries before and after: the first record (when
// it was first seen, and its place among the others), the latest record (host, session, source, machine),
// the latest seen by the session itself rather than named by a person (when it was last seen), the latest
// that set each field a later record inherits, and the latest claim. Every other heartbeat is dropped:
// it says nothing the kept ones do not. Nothing is archived (no read asks for a session's past records).
import type { LogEntry } from "../log/types.js";
import type { SessionRecord } from "../records/schemas.js";
import type { CompactionPlan } from "../store/file/log-compaction.js";

/** Fields a record leaves to the address's earlier records when it does not set them (registry.ts foldRecord). */
const INHERITED = ["roles", "hostPid", "cwd", "title", "name", "push"] as const;

/** The offsets of the records the fold reads for one address, by what they give it. */
interface Needed {
  first: number;
  last: number;
  lastSeenBySession?: number;
  claim?: number;
  inherited: Partial<Record<(typeof INHERITED)[number] | "wrapperPush", number>>;
}

export function latestStatePlan(): CompactionPlan<SessionRecord> {
  const byAddress = new Map<string, Needed>();
  let records = 0;
  let kept: Set<number> | undefined;
  return {
    observe({ offset, record }: LogEntry<SessionRecord>) {
      records++;
      const needed = byAddress.get(record.address);
      if (record.claimFrom !== undefined && record.hostPid !== undefined) {
        // A claim before any record of its address is ignored by the fold.
        if (needed) needed.claim = offset;
        return;
      }
      const now = needed ?? { first: offset, last: offset, inherited: {} };
      now.last = offset;
      if (record.source !== "cli") now.lastSeenBySession = offset;
      // The push of a wrapper (a person's record) and of a server each count (registry.ts decidedPush).
      for (const field of INHERITED) if (record[field] !== undefined) now.inherited[field === "push" && record.source === "cli" ? "wrapperPush" : field] = offset;
      if (!needed) byAddress.set(record.address, now);
    },
    anyLeaves(corrupt) {
      // Corrupt lines stay: never dropped.
      kept = new Set(corrupt);
      for (const needed of byAddress.values()) {
        for (const offset of [needed.first, needed.last, needed.lastSeenBySession, needed.claim, ...Object.values(needed.inherited)]) if (offset !== undefined) kept.add(offset);
      }
      return kept.size < records + corrupt.size;
    },
    // Every line is a record pass 1 observed or a corrupt one: copied by offset, not parsed again.
    place: { atOffset: (offset) => (kept!.has(offset) ? "keep" : "drop") },
  };
}
