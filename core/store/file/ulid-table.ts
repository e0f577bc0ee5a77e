// A set of message ids (ULIDs) with a few bits and two small numbers each, kept in typed arrays: a
// compaction remembers every message it retires, and a Map of a million id strings took about 90 bytes
// each and slowed every major GC that had to mark it. Here an id is its 26 characters packed exactly into
// five 32-bit words (no hashing of the key, so no two ids are ever taken for one): 21 bytes a slot, 29
// once an entry has numbers, with a quarter of the slots or more left empty.

/** Crockford base32, as ULIDs are written (record-values.ts checks every id against it). */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

const WORDS = 5;
/** Characters per word: 6 × 5 bits = 30 bits, so 26 characters take five words. */
const CHARS_PER_WORD = 6;
const ID_LENGTH = 26;
const FIRST_CAPACITY = 1024;

/** An id's five words, or false when it is not a ULID (the caller keeps those elsewhere). */
function pack(id: string, into: Uint32Array): boolean {
  if (id.length !== ID_LENGTH) return false;
  into.fill(0);
  for (let i = 0; i < ID_LENGTH; i++) {
    const code = id.charCodeAt(i);
    const digit = code < 128 ? DIGIT[code]! : -1;
    if (digit < 0) return false;
    const word = (i / CHARS_PER_WORD) | 0;
    into[word] = (into[word]! << 5) | digit;
  }
  return true;
}

/** A 32-bit hash of a string, for the small numbers a slot keeps (0 means none). */
export function hash32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0 || 1;
}

export interface UlidEntry {
  flags: number;
  a: number;
  b: number;
}

export class UlidTable {
  private keys = new Uint32Array(FIRST_CAPACITY * WORDS);
  /** 0: empty slot; otherwise the entry's flags with bit 7 set. */
  private flags = new Uint8Array(FIRST_CAPACITY);
  /** Each slot's two numbers; none until one is not 0 (many tables never hold any). */
  private numbers: Uint32Array | undefined;
  private count = 0;
  private readonly scratch = new Uint32Array(WORDS);

  /**
   * `roomFor`: how many entries to make room for when the table is full and holds `count` (at least
   * twice that by default). A caller that can tell how many are coming grows once, to about that, instead
   * of doubling: each doubling held the old arrays and the new ones at once, and left up to half unused.
   */
  constructor(private readonly roomFor: (count: number) => number = (count) => count * 2) {}

  get size(): number {
    return this.count;
  }

  /** The entry of `id`, or undefined. */
  get(id: string): UlidEntry | undefined {
    const slot = this.find(id);
    if (slot === undefined || this.flags[slot] === 0) return undefined;
    return { flags: this.flags[slot]! & 0x7f, a: this.numbers?.[slot * 2] ?? 0, b: this.numbers?.[slot * 2 + 1] ?? 0 };
  }

  has(id: string): boolean {
    const slot = this.find(id);
    return slot !== undefined && this.flags[slot] !== 0;
  }

  /** Sets the entry of `id` (flags below 0x80). Returns false for an id that is not a ULID. */
  set(id: string, entry: UlidEntry): boolean {
    if ((this.count + 1) * 4 > this.flags.length * 3) this.resize(Math.max(this.count + 1, this.roomFor(this.count)));
    const slot = this.find(id);
    if (slot === undefined) return false;
    if (this.flags[slot] === 0) {
      this.count++;
      this.keys.set(this.scratch, slot * WORDS);
    }
    this.write(slot, entry);
    return true;
  }

  /** Replaces the entry of an `id` the table holds (never grows it); returns false when it holds none. */
  replace(id: string, entry: UlidEntry): boolean {
    const slot = this.find(id);
    if (slot === undefined || this.flags[slot] === 0) return false;
    this.write(slot, entry);
    return true;
  }

  private write(slot: number, entry: UlidEntry): void {
    this.flags[slot] = 0x80 | (entry.flags & 0x7f);
    if (this.numbers === undefined && (entry.a !== 0 || entry.b !== 0)) this.numbers = new Uint32Array(this.flags.length * 2);
    if (this.numbers !== undefined) {
      this.numbers[slot * 2] = entry.a;
      this.numbers[slot * 2 + 1] = entry.b;
    }
  }

  /** Removes `id`; later probes stay whole by moving the entries after it back (linear probing). */
  delete(id: string): void {
    let slot = this.find(id);
    if (slot === undefined || this.flags[slot] === 0) return;
    this.count--;
    const capacity = this.flags.length;
    for (let next = slot + 1 === capacity ? 0 : slot + 1; this.flags[next] !== 0; next = next + 1 === capacity ? 0 : next + 1) {
      const home = this.home(this.keys, next * WORDS) % capacity;
      // The entry at `next` may fill the hole unless its home lies cyclically in (slot, next].
      if (slot <= next ? home <= slot || home > next : home <= slot && home > next) {
        this.keys.copyWithin(slot * WORDS, next * WORDS, next * WORDS + WORDS);
        this.flags[slot] = this.flags[next]!;
        this.numbers?.copyWithin(slot * 2, next * 2, next * 2 + 2);
        slot = next;
      }
    }
    this.flags[slot] = 0;
  }

  /** The slot holding `id` (packed into scratch), or the empty slot where it would go; undefined when it is not a ULID. */
  private find(id: string): number | undefined {
    if (!pack(id, this.scratch)) return undefined;
    const capacity = this.flags.length;
    for (let slot = this.home(this.scratch, 0) % capacity; ; slot = slot + 1 === capacity ? 0 : slot + 1) {
      if (this.flags[slot] === 0) return slot;
      const at = slot * WORDS;
      if (this.keys[at] === this.scratch[0] && this.keys[at + 1] === this.scratch[1] && this.keys[at + 2] === this.scratch[2] && this.keys[at + 3] === this.scratch[3] && this.keys[at + 4] === this.scratch[4]) return slot;
    }
  }

  /**
   * Where a key starts probing, before taken modulo the capacity: its random part (the last words) mixed,
   * as ids of one millisecond differ only there. 31 bits, so the modulo stays an integer one.
   */
  private home(words: Uint32Array, at: number): number {
    let hash = Math.imul(words[at + 4]! ^ 0x9e3779b9, 0x85ebca6b) ^ words[at + 3]!;
    hash = Math.imul(hash ^ (hash >>> 15), 0xc2b2ae35) ^ words[at + 2]! ^ words[at + 1]!;
    return (hash ^ (hash >>> 13)) >>> 1;
  }

  /** Moves the entries into arrays with room for `entries` at three quarters full (any capacity: slots are taken modulo it). */
  private resize(entries: number): void {
    const old = { keys: this.keys, flags: this.flags, numbers: this.numbers };
    const capacity = Math.ceil((entries * 4) / 3) + 1;
    this.keys = new Uint32Array(capacity * WORDS);
    this.flags = new Uint8Array(capacity);
    this.numbers = old.numbers && new Uint32Array(capacity * 2);
    for (let from = 0; from < old.flags.length; from++) {
      if (old.flags[from] === 0) continue;
      let slot = this.home(old.keys, from * WORDS) % capacity;
      while (this.flags[slot] !== 0) slot = slot + 1 === capacity ? 0 : slot + 1;
      this.keys.set(old.keys.subarray(from * WORDS, from * WORDS + WORDS), slot * WORDS);
      this.flags[slot] = old.flags[from]!;
      if (old.numbers) this.numbers!.set(old.numbers.subarray(from * 2, from * 2 + 2), slot * 2);
    }
  }
}
