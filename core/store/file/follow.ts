// Follows the live mailbox file by offset across compactions, for readers that print what is appended
// (`peerpost tail`): each line once, in order. When a compaction renames a new file in, the old one
// (held open) is read to the swap point and the swap's record says where it continues in the new one.
import type { JsonlLog } from "../../log/log.js";
import type { FileIdentity, LogEntry, PinnedFile } from "../../log/types.js";
import { swapsBetween, type CompactionPaths } from "./compaction-swap.js";

export class LogFollower<T> {
  private pinned: PinnedFile<T> | undefined;
  private offset: number;

  constructor(
    private readonly log: JsonlLog<T>,
    private readonly paths: CompactionPaths,
    from: "start" | "end",
    /** Told when following had to skip (no usable record of the swap): what may not have been shown. */
    private readonly onGap: (why: string) => void,
  ) {
    this.pinned = log.pin();
    // At the end of the last whole line: a torn one is completed by the next writer (glued on and written
    // again, log.ts), and read from inside it, its glued part read as a line of its own, shown twice.
    this.offset = from === "end" && this.pinned ? this.pinned.lineEnd() : 0;
  }

  /** Visits the lines appended since the last call. */
  poll(visit: (entry: LogEntry<T>) => void): void {
    for (;;) {
      // A file created since the start: read it from its first line.
      if (!this.pinned) {
        this.pinned = this.log.pin();
        this.offset = 0;
        if (!this.pinned) return;
      }
      const current = this.log.identity();
      if (!current || (current.ino === this.pinned.ino && current.dev === this.pinned.dev)) {
        this.offset = this.pinned.scan(this.offset, visit).next;
        return;
      }
      this.follow(current, visit);
    }
  }

  /** Moves from the pinned (old) file to the one the path names now. */
  private follow(current: FileIdentity, visit: (entry: LogEntry<T>) => void): void {
    const old = this.pinned!;
    const next = this.log.pin();
    const [first, ...later] = (next && next.ino === current.ino && swapsBetween(this.paths, old.ino, next.ino)) || [];
    let offset: number | undefined;
    if (first) {
      // Lines before the swap point not shown yet are read from the old file, where they were in order.
      if (this.offset < first.end) this.offset = old.scan(this.offset, visit, { until: first.end }).next;
      // Old lines past the copied part reappear later in the new file: shown again rather than missed.
      offset = first.keptBytes + Math.max(0, Math.min(this.offset, first.copiedUpTo) - first.end);
      // Swaps slept through (a compaction's later rounds): their old files are gone, so an offset is placed
      // only where every line from it to the swap point was kept.
      for (const swap of later) offset = offset !== undefined && offset >= swap.tailFrom ? swap.keptBytes + (Math.min(offset, swap.copiedUpTo) - swap.end) : undefined;
    }
    if (offset !== undefined) this.offset = offset;
    else {
      old.scan(this.offset, visit);
      this.offset = next ? next.lineEnd() : 0;
      this.onGap("the mailbox file was replaced (compacted) without a record of where it continues: following resumes at its end");
    }
    old.close();
    this.pinned = next;
  }
}
