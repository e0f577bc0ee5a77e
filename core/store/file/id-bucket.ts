// The entries of one ids/ bucket of a scope index (scope-index.ts): per message id its msg line's offset
// and scopes, and per key the offsets of the lines filed under it. One JSON line per key and extension
// batch: `[id, offset, scopes, lines?]` for a message, `[key, lines]` for lines whose message (or
// conversation, or idempotency slot) that batch did not hold.

export interface IdEntry {
  /** Offset of the message's msg line. */
  o: number;
  s: readonly string[];
}

/** What a bucket holds for one key: its message's entry (the first), and the offsets of every line filed under it. */
export interface KeyEntry {
  message?: IdEntry;
  lines: number[];
}

/** A bucket's entries, and whether a line in it could not be read (one lost entry: its lines cannot be listed with certainty). */
export interface Bucket {
  entries: Map<string, KeyEntry>;
  damaged: boolean;
}

/**
 * A bucket's entries; with `only`, those of that key alone, the other keys' lines passed over unparsed:
 * for buckets whose bytes are checked already (a segment's entries), where a line cannot be damaged unseen.
 */
export function parseBucket(text: string, only?: string): Bucket {
  const bucket: Bucket = { entries: new Map(), damaged: false };
  const lines = text.split("\n");
  const prefix = only === undefined ? undefined : `[${JSON.stringify(only)},`;
  lines.forEach((line, at) => {
    if (prefix !== undefined && !line.startsWith(prefix)) return;
    try {
      const [key, second, scopes, about] = JSON.parse(line) as [string, number | number[], string[]?, number[]?];
      let entry = bucket.entries.get(key);
      if (!entry) bucket.entries.set(key, (entry = { lines: [] }));
      if (Array.isArray(second)) entry.lines.push(...second);
      else {
        entry.message ??= { o: second, s: scopes! };
        if (about) entry.lines.push(...about);
      }
    } catch {
      // The last line of an extension that died mid-write (past `covered`: the next extension writes it
      // again, after cutting it off); any other line is damage.
      if (at < lines.length - 1) bucket.damaged = true;
    }
  });
  return bucket;
}
