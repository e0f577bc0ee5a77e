// When a process past a log's size setting calls for its compaction: again only once the log grew by a
// quarter of the setting (after a swap, from what the compaction left) or an hour went by (records age
// past the retention), so a log of records too young to move is not read whole again and again, nor one
// that a compaction hardly shrank.
import type { FileIdentity } from "../../log/types.js";
import { readSwap, type CompactionPaths } from "./compaction-swap.js";

/** How long a process that called for a compaction waits before calling again for the same file (unless it grew). */
const COMPACTION_RECALL_MS = 60 * 60_000;

export class CompactionCalls {
  /** The log's file, its size and the time when this process last called for a compaction. */
  private lastCalledFor: { file: string; end: number; at: number } | undefined;

  constructor(
    private readonly paths: CompactionPaths,
    private readonly now: () => number,
  ) {}

  /** For a live file `identity` of `end` bytes, at or past `atBytes`: calls `call` unless too soon; `call` says whether it started one. */
  callFor(identity: Pick<FileIdentity, "dev" | "ino">, end: number, atBytes: number, call: () => boolean): void {
    const file = `${identity.dev}:${identity.ino}`;
    const now = this.now();
    let last = this.lastCalledFor;
    if (last && last.file !== file) {
      const swap = readSwap(this.paths);
      const left = swap?.toIno === identity.ino ? swap.keptBytes + (swap.copiedUpTo - swap.end) : 0;
      last = this.lastCalledFor = { file, end: left, at: last.at };
    }
    if (last && end < last.end + atBytes / 4 && Math.abs(now - last.at) < COMPACTION_RECALL_MS) return;
    if (call()) this.lastCalledFor = { file, end, at: now };
  }
}
