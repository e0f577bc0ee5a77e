// The log's vocabulary: records as read back (entries with their byte offsets), corrupt lines and their
// summaries, scan limits, and what a deciding append returns. Shared by the writer, the readers and the
// stores built on the log, none of which need the others' code to speak of these.
import type { Stats } from "node:fs";
import type { Fault } from "../common/config.js";

/** Longest line a reader will parse; longer lines are skipped and reported, never buffered whole. */
export const MAX_LINE_BYTES = 1024 * 1024;

/** Anything with zod's safeParse: the record schema of this log. */
export interface RecordSchema<T> {
  safeParse(input: unknown): { success: true; data: T } | { success: false; error: { issues: ReadonlyArray<{ message: string; path: ReadonlyArray<PropertyKey> }> } };
}

export interface LogEntry<T> {
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Byte offset just past the line's newline. */
  end: number;
  record: T;
}

export interface CorruptLine {
  offset: number;
  length: number;
  reason: string;
}

/** Corrupt lines seen so far: a total, and the most recent few with their offsets. */
export interface CorruptSummary {
  count: number;
  recent: CorruptLine[];
}

/** A log's corrupt lines (a summary) and whether it ends in a torn line. */
export type CorruptReport = CorruptSummary & { tornTail: boolean };

/** How many of the latest corrupt lines a summary keeps with their offsets. */
export const RECENT_CORRUPT = 20;

/** `summary` with `lines` met after it: the total grows, the latest few are kept. */
export function withCorrupt(summary: CorruptSummary, lines: readonly CorruptLine[]): CorruptSummary {
  return { count: summary.count + lines.length, recent: [...summary.recent, ...lines].slice(-RECENT_CORRUPT) };
}

export interface ScanResult {
  /** Where the next read should start: just past the last complete line. */
  next: number;
  corrupt: CorruptLine[];
  /** True when the file ends in an incomplete line (a writer died mid-line, or is writing now). */
  tornTail: boolean;
}

export interface ScanLimits {
  /** Stop after this many complete lines (valid or not). */
  maxLines?: number;
  /** Stop before the line that starts at or after this offset. */
  until?: number;
  chunkBytes?: number;
  /** Lines it returns false for are passed over unparsed, neither visited nor checked (the reader knows they cannot concern it); a line too long to be a record is still reported. */
  wanted?: (line: Buffer) => boolean;
}

export interface LogOptions {
  lockStaleMs: number;
  lockTimeoutMs: number;
  fault?: Fault | undefined;
}

export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
  /** The look at the path (not followed) this came from: `scan` checks its kept descriptor against it instead of looking again. */
  stats: Stats;
}

/** One file of a log held open by `pin()`. */
export interface PinnedFile<T> {
  ino: number;
  dev: number;
  size(): number;
  /** Where its last whole line ends (0 when there is none): past it is a torn tail. */
  lineEnd(): number;
  scan(offset: number, visit: (entry: LogEntry<T>) => void, limits?: ScanLimits): ScanResult;
  close(): void;
}

/** What a deciding append's `decide` returns: records, optionally with the check for an earlier conflicting record. */
export type Decided<T> = T[] | { records: T[]; conflicts?: ((earlier: T) => boolean) | undefined };

export interface Transacted<T> {
  entries: LogEntry<T>[];
  /** An earlier record in log order that voids this decision; its entries are in the log but lost. */
  conflict?: LogEntry<T>;
}
