// One batch of an index extension (scope-index.ts): each line's offset and scopes, each new message's
// id, offset and scopes, and the lines filed under a key (a message's events, a conversation's messages),
// kept in typed arrays until the batch is written. Every file a batch writes costs a few system calls
// whatever it adds, so batches are large; in strings, maps and arrays of numbers a batch of 200,000 lines
// left the process near 270 MB, here half a million take some tens. Scopes are numbered and each distinct
// set of them is kept once (most messages share theirs with many others).
import { UlidTable } from "./ulid-table.js";

/** A key's `keySets` value while the batch holds no message of that id. */
const NO_MESSAGE = 0xffffffff;

class Column<T extends Float64Array | Uint32Array> {
  length = 0;
  constructor(public values: T) {}

  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new (this.values.constructor as new (length: number) => T)(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }
}

/**
 * Offsets filed under numbered groups, each group's together in the order `fileAll` filed them: a
 * counting sort, so no array per group. `fileAll` is called twice (to count, then to place) and must file
 * the same offsets both times.
 */
function groupOffsets(groups: number, fileAll: (file: (group: number, offset: number) => void) => void): (group: number) => Float64Array {
  const counts = new Float64Array(groups + 1);
  fileAll((group) => counts[group + 1]!++);
  for (let group = 1; group < counts.length; group++) counts[group]! += counts[group - 1]!;
  const starts = counts.slice();
  const sorted = new Float64Array(counts[groups]!);
  fileAll((group, offset) => (sorted[counts[group]!++] = offset));
  return (group) => sorted.subarray(starts[group]!, starts[group + 1]!);
}

export class IndexBatch {
  private readonly scopeNumbers = new Map<string, number>();
  private readonly scopeNames: string[] = [];
  /** Each distinct set of scopes, by its JSON and by the array handed out for it. */
  private readonly setsByKey = new Map<string, number>();
  private readonly setsByArray = new Map<readonly string[], number>();
  private readonly sets: (readonly string[])[] = [];
  private readonly setScopeNumbers: number[][] = [];
  private readonly lineSets = new Column(new Uint32Array(4096));
  private readonly lineOffsets = new Column(new Float64Array(4096));
  /** Keys of this batch (message ids, conversations, idempotency slots) in the order they came, numbered. */
  private readonly keys: string[] = [];
  private readonly keyOfUlid = new UlidTable();
  /** Keys that are no ULIDs (the table holds only those). */
  private readonly keyOfOther = new Map<string, number>();
  /** Per key: its message's msg line and scopes set, when this batch holds it (NO_MESSAGE otherwise). */
  private readonly keyOffsets = new Column(new Float64Array(4096));
  private readonly keySets = new Column(new Uint32Array(4096));
  /** Lines filed under a key besides a message's own msg line, in log order. */
  private readonly aboutKeys = new Column(new Uint32Array(4096));
  private readonly aboutOffsets = new Column(new Float64Array(4096));

  /** The scopes of a message this batch added, or undefined. */
  scopesOf(id: string): readonly string[] | undefined {
    const key = this.keyOfUlid.get(id)?.a ?? this.keyOfOther.get(id);
    const set = key === undefined ? NO_MESSAGE : this.keySets.values[key]!;
    return set === NO_MESSAGE ? undefined : this.sets[set];
  }

  /**
   * A line at `offset` in `scopes`; the first line of each message id (its msg line) records the message,
   * and the line is filed under each of `about` (the keys a lookup finds it by).
   */
  add(offset: number, id: string | undefined, scopes: readonly string[], about: readonly string[] = []): void {
    const set = this.setNumber(scopes);
    this.lineSets.push(set);
    this.lineOffsets.push(offset);
    for (const key of about) {
      this.aboutKeys.push(this.keyNumber(key));
      this.aboutOffsets.push(offset);
    }
    if (id === undefined) return;
    const key = this.keyNumber(id);
    if (this.keySets.values[key] !== NO_MESSAGE) return;
    this.keySets.values[key] = set;
    this.keyOffsets.values[key] = offset;
  }

  /** Each scope with its lines' offsets in log order (one per line, each line ended), scopes in the order they first came. */
  *scopeTexts(): Generator<[scope: string, text: string]> {
    const offsets = groupOffsets(this.scopeNames.length, (file) => {
      for (let line = 0; line < this.lineSets.length; line++) for (const scope of this.setScopeNumbers[this.lineSets.values[line]!]!) file(scope, this.lineOffsets.values[line]!);
    });
    for (let scope = 0; scope < this.scopeNames.length; scope++) yield [this.scopeNames[scope]!, `${offsets(scope).join("\n")}\n`];
  }

  /**
   * Each bucket (by `bucketOf`) with its keys' lines, keys in the order they came: a message's
   * `[id, offset, scopes]`, with the offsets of the lines filed under it appended when there are any, or
   * `[key, offsets]` for a key whose message this batch does not hold.
   */
  *bucketTexts(bucketOf: (id: string) => string): Generator<[bucket: string, text: string]> {
    const offsets = groupOffsets(this.keys.length, (file) => {
      for (let line = 0; line < this.aboutKeys.length; line++) file(this.aboutKeys.values[line]!, this.aboutOffsets.values[line]!);
    });
    const entry = (number: number) => {
      const about = Array.from(offsets(number));
      const set = this.keySets.values[number]!;
      const key = this.keys[number]!;
      if (set === NO_MESSAGE) return JSON.stringify([key, about]);
      return JSON.stringify(about.length === 0 ? [key, this.keyOffsets.values[number], this.sets[set]] : [key, this.keyOffsets.values[number], this.sets[set], about]);
    };
    // Keys grouped by bucket first, each bucket's text made only when it is written: memory follows one bucket.
    const buckets = new Map<string, number[]>();
    this.keys.forEach((key, number) => {
      const bucket = bucketOf(key);
      const members = buckets.get(bucket);
      if (members) members.push(number);
      else buckets.set(bucket, [number]);
    });
    for (const [bucket, members] of buckets) yield [bucket, `${members.map(entry).join("\n")}\n`];
  }

  private keyNumber(key: string): number {
    const known = this.keyOfUlid.get(key)?.a ?? this.keyOfOther.get(key);
    if (known !== undefined) return known;
    const number = this.keys.length;
    this.keys.push(key);
    if (!this.keyOfUlid.set(key, { flags: 0, a: number, b: 0 })) this.keyOfOther.set(key, number);
    this.keyOffsets.push(0);
    this.keySets.push(NO_MESSAGE);
    return number;
  }

  private setNumber(scopes: readonly string[]): number {
    let set = this.setsByArray.get(scopes);
    if (set !== undefined) return set;
    const key = JSON.stringify(scopes);
    set = this.setsByKey.get(key);
    if (set === undefined) {
      set = this.sets.length;
      this.sets.push(scopes);
      this.setScopeNumbers.push(scopes.map((scope) => this.scopeNumber(scope)));
      this.setsByKey.set(key, set);
      this.setsByArray.set(scopes, set);
    }
    return set;
  }

  private scopeNumber(scope: string): number {
    let number = this.scopeNumbers.get(scope);
    if (number === undefined) {
      number = this.scopeNames.length;
      this.scopeNames.push(scope);
      this.scopeNumbers.set(scope, number);
    }
    return number;
  }
}
