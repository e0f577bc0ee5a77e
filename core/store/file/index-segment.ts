// One segment of an archive's index (scope-index.ts): what one extension indexed, as a single file
// written whole and never changed, so indexing a compaction's moves costs one file, not one per scope
// and per message (thousands of opens, which on some file systems took seconds).
//   header   "PPSEG02\n", the entry count (u32), 4 bytes reserved, where the table starts (f64);
//   data     per entry, its name as a JSON string, a newline, then its text;
//   table    per entry, sorted by the name's 64-bit hash: the hash (2 × u32), where its bytes start after
//            the header and how many (2 × u32), their checksum (2 × u32); all little-endian.
// Hash and checksum are the first 64 bits of SHA-1 (native: a lookup checks a few KiB of entries per
// segment, which a hash in JavaScript took milliseconds to do in a short command's cold start).
// A lookup reads the header, the table's slots around where its hash should be (halving its way with one
// small read each when it is not there), and the bytes of the entry found. The name beside the text
// tells two names with one hash apart; the checksum finds damage (IndexDamage: the index is rebuilt from
// the log).
import { closeSync, constants, fstatSync, fsyncSync, readSync, writeSync } from "node:fs";
import { writeAll } from "../../log/kept-files.js";
import { openEmptiedStateFile, openStateFile } from "../../security/trust.js";
import { IndexDamage } from "./checked-file.js";
import { nodeCrypto } from "../../common/crypto.js";

const MAGIC = Buffer.from("PPSEG02\n");
const HEADER_BYTES = 24;
const ENTRY_BYTES = 24;
/** Slots a lookup reads at once around where its hash should be (6 KiB). */
const NEAR_SLOTS = 256;
/** Bytes of entries gathered before one write. */
const WRITE_CHUNK = 1 << 20;
const MAX_DATA_BYTES = 0xffffffff;

/** The first 64 bits of the bytes' SHA-1, as two u32: a name's hash, and an entry's checksum. node:crypto is loaded on first use: a hook that reads no segment never loads it. */
function digest64(bytes: string | Buffer): [number, number] {
  const digest = nodeCrypto().createHash("sha1").update(bytes).digest();
  return [digest.readUInt32LE(0), digest.readUInt32LE(4)];
}

/** The hash an entry's name is filed under in every segment's table. */
export const nameHash = (name: string): readonly [number, number] => digest64(name);

function compareHash(a1: number, b1: number, a2: number, b2: number): number {
  return a1 !== a2 ? a1 - a2 : b1 - b2;
}

/** Six u32 per entry, grown as entries come: hash, start, length, checksum. */
class Slots {
  values = new Uint32Array(6 * 1024);
  count = 0;

  add(...fields: [number, number, number, number, number, number]): void {
    if ((this.count + 1) * 6 > this.values.length) {
      const grown = new Uint32Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values.set(fields, this.count++ * 6);
  }
}

/**
 * Writes a segment of `entries` (name, text; each name once) to `path`, which no reader reads yet; returns
 * its size. The entries' bytes go out as they come, the table after them, so memory holds the table only.
 */
export function writeSegment(path: string, entries: Iterable<readonly [string, string]>): number {
  const fd = openEmptiedStateFile(path);
  try {
    const slots = new Slots();
    // The header's room first; it is written last, once the table's place is known.
    let chunk: Buffer[] = [Buffer.alloc(HEADER_BYTES)];
    let chunkBytes = HEADER_BYTES;
    const flush = () => {
      writeAll(fd, Buffer.concat(chunk, chunkBytes));
      chunk = [];
      chunkBytes = 0;
    };
    let start = 0;
    for (const [name, text] of entries) {
      const bytes = Buffer.from(`${JSON.stringify(name)}\n${text}`, "utf8");
      // Places are u32: a batch of an extension is far smaller, but past that a place would wrap.
      if (start + bytes.length > MAX_DATA_BYTES) throw new Error(`an index segment holds at most ${MAX_DATA_BYTES} bytes of entries`);
      slots.add(...nameHash(name), start, bytes.length, ...digest64(bytes));
      start += bytes.length;
      chunk.push(bytes);
      chunkBytes += bytes.length;
      if (chunkBytes >= WRITE_CHUNK) flush();
    }
    flush();
    const order = Array.from({ length: slots.count }, (_, at) => at);
    const { values } = slots;
    order.sort((x, y) => compareHash(values[x * 6]!, values[x * 6 + 1]!, values[y * 6]!, values[y * 6 + 1]!));
    const table = Buffer.alloc(slots.count * ENTRY_BYTES);
    order.forEach((from, at) => {
      for (let field = 0; field < 6; field++) table.writeUInt32LE(values[from * 6 + field]!, at * ENTRY_BYTES + field * 4);
    });
    writeAll(fd, table);
    const header = Buffer.alloc(HEADER_BYTES);
    MAGIC.copy(header, 0);
    header.writeUInt32LE(slots.count, 8);
    const tableStart = HEADER_BYTES + start;
    header.writeDoubleLE(tableStart, 16);
    writeSync(fd, header, 0, HEADER_BYTES, 0);
    // On disk before the meta lists it: a crash must not leave a listed segment with a table of zeros.
    fsyncSync(fd);
    return tableStart + table.length;
  } finally {
    closeSync(fd);
  }
}

/**
 * The entries of `segments` (open, in log order) as one segment's: each name once, its texts joined in
 * that order. Reads every entry once; memory holds the tables' hashes and one name's texts.
 */
export function* mergedEntries(segments: readonly Segment[]): Generator<readonly [string, string]> {
  const all = segments.flatMap((segment, order) => segment.hashes().map((slot) => ({ ...slot, order })));
  all.sort((x, y) => compareHash(x.hashA, x.hashB, y.hashA, y.hashB) || x.order - y.order);
  for (let from = 0; from < all.length; ) {
    let to = from + 1;
    while (to < all.length && all[to]!.hashA === all[from]!.hashA && all[to]!.hashB === all[from]!.hashB) to++;
    // One hash, usually one name: its texts in log order (a collision of names keeps them apart).
    const texts = new Map<string, string>();
    for (const slot of all.slice(from, to)) {
      const { name, text } = segments[slot.order]!.entry(slot.at);
      texts.set(name, (texts.get(name) ?? "") + text);
    }
    yield* texts;
    from = to;
  }
}

/** An open segment file: its entries looked up by name. Close it when done. */
export class Segment {
  private readonly fd: number;
  private readonly size: number;
  private readonly count: number;
  private readonly tableStart: number;
  private readonly slot = Buffer.alloc(ENTRY_BYTES);

  constructor(readonly path: string) {
    this.fd = openStateFile(path, constants.O_RDONLY);
    try {
      this.size = fstatSync(this.fd).size;
      const header = Buffer.alloc(HEADER_BYTES);
      if (readSync(this.fd, header, 0, HEADER_BYTES, 0) !== HEADER_BYTES || !header.subarray(0, MAGIC.length).equals(MAGIC)) throw new IndexDamage(path, "is no index segment (its header is wrong)");
      this.count = header.readUInt32LE(8);
      this.tableStart = header.readDoubleLE(16);
      // The table ends the file exactly: a count or a place changed, or a file cut or grown, shows here.
      if (!Number.isSafeInteger(this.tableStart) || this.tableStart < HEADER_BYTES || this.tableStart + this.count * ENTRY_BYTES !== this.size) throw new IndexDamage(path, `is truncated (${this.size} bytes, its header counts ${this.count} entries)`);
    } catch (error) {
      closeSync(this.fd);
      throw error;
    }
  }

  close(): void {
    closeSync(this.fd);
  }

  /** The text of entry `name` (`hash`: its nameHash, once for all segments), or "" when the segment has none. Throws IndexDamage. */
  text(name: string, [hashA, hashB] = nameHash(name)): string {
    const below = (slots: Buffer, at: number) => compareHash(slots.readUInt32LE(at), slots.readUInt32LE(at + 4), hashA, hashB) < 0;
    let [low, high] = this.near(hashA, below);
    while (low < high) {
      const middle = (low + high) >>> 1;
      this.readSlot(middle);
      if (below(this.slot, 0)) low = middle + 1;
      else high = middle;
    }
    for (let at = low; at < this.count; at++) {
      this.readSlot(at);
      if (this.slot.readUInt32LE(0) !== hashA || this.slot.readUInt32LE(4) !== hashB) break;
      const entry = this.entry(at);
      if (entry.name === name) return entry.text;
    }
    return "";
  }

  /**
   * Checks every entry (doctor): its bytes against their checksum, its name against the hash it is filed
   * under (a changed hash hides an entry from lookups), the table's order, and that the entries fill the
   * data with no gap or overlap. Throws IndexDamage.
   */
  verify(): void {
    let previous: [number, number] | undefined;
    const spans: Array<[number, number]> = [];
    for (let at = 0; at < this.count; at++) {
      const { name } = this.entry(at);
      const hash: [number, number] = [this.slot.readUInt32LE(0), this.slot.readUInt32LE(4)];
      spans.push([this.slot.readUInt32LE(8), this.slot.readUInt32LE(12)]);
      if (previous && compareHash(previous[0], previous[1], hash[0], hash[1]) > 0) throw new IndexDamage(this.path, `has its entries out of order at entry ${at}`);
      previous = hash;
      const [a, b] = nameHash(name);
      if (a !== hash[0] || b !== hash[1]) throw new IndexDamage(this.path, `has entry ${at} filed under a hash that is not its name's`);
    }
    spans.sort((x, y) => x[0] - y[0]);
    let end = 0;
    for (const [start, length] of spans) {
      if (start !== end) throw new IndexDamage(this.path, `has entries that leave a gap or overlap at byte ${HEADER_BYTES + start}`);
      end = start + length;
    }
    if (HEADER_BYTES + end !== this.tableStart) throw new IndexDamage(this.path, `has ${this.tableStart - HEADER_BYTES - end} bytes of data no entry covers`);
  }

  /** Every entry's hash and place in the table, table order (a merge reads them all: mergedEntries). */
  hashes(): Array<{ hashA: number; hashB: number; at: number }> {
    const table = Buffer.alloc(this.count * ENTRY_BYTES);
    if (readSync(this.fd, table, 0, table.length, this.tableStart) !== table.length) throw new IndexDamage(this.path, "is truncated in its entries");
    return Array.from({ length: this.count }, (_, at) => ({ hashA: table.readUInt32LE(at * ENTRY_BYTES), hashB: table.readUInt32LE(at * ENTRY_BYTES + 4), at }));
  }

  /** Entry `at`'s name and text (its slot read), checked against its checksum. */
  entry(at: number): { name: string; text: string } {
    const text = this.entryBytes(at).toString("utf8");
    const newline = text.indexOf("\n");
    let name: unknown;
    try {
      name = JSON.parse(text.slice(0, newline));
    } catch {
      name = undefined;
    }
    if (newline < 0 || typeof name !== "string") throw new IndexDamage(this.path, `has entry ${at} without its name`);
    return { name, text: text.slice(newline + 1) };
  }

  /**
   * Where the first entry not below a hash lies (`below` says of a slot), narrowed by one read of the
   * slots around where an even spread of hashes puts it: SHA-1's are, so the read holds it nearly always
   * (a few dozen slots off at most, at a few thousand entries), and the halving after it has nothing left to do.
   */
  private near(hashA: number, below: (slots: Buffer, at: number) => boolean): [number, number] {
    const guess = Math.floor((hashA / 2 ** 32) * this.count);
    const start = Math.max(0, Math.min(guess - NEAR_SLOTS / 2, this.count - NEAR_SLOTS));
    const slots = Buffer.alloc(Math.min(NEAR_SLOTS, this.count - start) * ENTRY_BYTES);
    if (readSync(this.fd, slots, 0, slots.length, this.tableStart + start * ENTRY_BYTES) !== slots.length) throw new IndexDamage(this.path, "is truncated in its entries");
    // Halved in memory: a cold process runs this code in V8's interpreter, where a scan of the slots cost more than the reads saved.
    let first = 0;
    let past = slots.length / ENTRY_BYTES;
    const read = past;
    while (first < past) {
      const middle = (first + past) >>> 1;
      if (below(slots, middle * ENTRY_BYTES)) first = middle + 1;
      else past = middle;
    }
    // Before the slots read (the first of them is not below), in them, or after them.
    if (first === 0) return [0, start];
    if (first < read) return [start + first, start + first];
    return [start + read, this.count];
  }

  private readSlot(at: number): void {
    if (readSync(this.fd, this.slot, 0, ENTRY_BYTES, this.tableStart + at * ENTRY_BYTES) !== ENTRY_BYTES) throw new IndexDamage(this.path, "is truncated in its entries");
  }

  /** Entry `at`'s bytes (its slot read), checked against their checksum. */
  private entryBytes(at: number): Buffer {
    this.readSlot(at);
    const start = HEADER_BYTES + this.slot.readUInt32LE(8);
    const length = this.slot.readUInt32LE(12);
    const sum = [this.slot.readUInt32LE(16), this.slot.readUInt32LE(20)];
    if (start + length > this.tableStart) throw new IndexDamage(this.path, `is truncated (${this.size} bytes, entry ${at} ends at ${start + length})`);
    const bytes = Buffer.alloc(length);
    if (readSync(this.fd, bytes, 0, length, start) !== length) throw new IndexDamage(this.path, `is truncated at entry ${at}`);
    const [sumA, sumB] = digest64(bytes);
    if (sumA !== sum[0] || sumB !== sum[1]) throw new IndexDamage(this.path, `does not match its checksum at entry ${at} (altered)`);
    return bytes;
  }
}
