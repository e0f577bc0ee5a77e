// One batch of an index extension (scope-index.ts): each line's offset and scopes, each new message's
// id, offset and scopes, kept in typed arrays until the batch is written. Every file a batch writes costs
// a few system calls whatever it adds, so batches are large; in strings, maps and arrays of numbers a
// batch of 200,000 lines left the process near 270 MB, here half a million take some tens. Scopes are
// numbered and each distinct set of them is kept once (most messages share theirs with many others).
import { UlidTable } from "./ulid-table.js";

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
  /** Messages of this batch, in log order: their later events usually follow within it. */
  private readonly ids: string[] = [];
  private readonly idOffsets = new Column(new Float64Array(4096));
  private readonly idSets = new Column(new Uint32Array(4096));
  private readonly setOfUlid = new UlidTable();
  /** Ids that are no ULIDs (the table holds only those). */
  private readonly setOfOther = new Map<string, number>();

  /** The scopes of a message this batch added, or undefined. */
  scopesOf(id: string): readonly string[] | undefined {
    const set = this.setOfUlid.get(id)?.a ?? this.setOfOther.get(id);
    return set === undefined ? undefined : this.sets[set];
  }

  /** A line at `offset` in `scopes`; the first line of each message id (its msg line) records the message. */
  add(offset: number, id: string | undefined, scopes: readonly string[]): void {
    const set = this.setNumber(scopes);
    this.lineSets.push(set);
    this.lineOffsets.push(offset);
    if (id === undefined || this.scopesOf(id) !== undefined) return;
    if (!this.setOfUlid.set(id, { flags: 0, a: set, b: 0 })) this.setOfOther.set(id, set);
    this.ids.push(id);
    this.idOffsets.push(offset);
    this.idSets.push(set);
  }

  /** Each scope with its lines' offsets in log order (one per line, each line ended), scopes in the order they first came. */
  eachScope(write: (scope: string, text: string) => void): void {
    // A counting sort by scope: each scope's offsets end up together, in log order.
    const counts = new Float64Array(this.scopeNames.length + 1);
    for (let line = 0; line < this.lineSets.length; line++) for (const scope of this.setScopeNumbers[this.lineSets.values[line]!]!) counts[scope + 1]!++;
    for (let scope = 1; scope < counts.length; scope++) counts[scope]! += counts[scope - 1]!;
    const starts = counts.slice();
    const sorted = new Float64Array(counts[counts.length - 1]!);
    for (let line = 0; line < this.lineSets.length; line++) for (const scope of this.setScopeNumbers[this.lineSets.values[line]!]!) sorted[counts[scope]!++] = this.lineOffsets.values[line]!;
    for (let scope = 0; scope < this.scopeNames.length; scope++) write(this.scopeNames[scope]!, `${sorted.subarray(starts[scope]!, starts[scope + 1]!).join("\n")}\n`);
  }

  /** Each bucket (by `bucketOf`) with its messages' id lines, in log order, buckets in the order they first came. */
  eachIdBucket(bucketOf: (id: string) => string, write: (bucket: string, text: string) => void): void {
    const buckets = new Map<string, number[]>();
    this.ids.forEach((id, index) => {
      const bucket = bucketOf(id);
      const members = buckets.get(bucket);
      if (members) members.push(index);
      else buckets.set(bucket, [index]);
    });
    for (const [bucket, members] of buckets) write(bucket, `${members.map((index) => JSON.stringify([this.ids[index], this.idOffsets.values[index], this.sets[this.idSets.values[index]!]])).join("\n")}\n`);
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
