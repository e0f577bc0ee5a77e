// An index's offsets files (scopes/) are appended to, never rewritten; beside each, `<file>.sum` says whose it is, how
// many bytes of it are complete and their checksum, continued over each append. A reader that finds
// a file deleted, cut short, edited, or swapped for another scope's refuses it (IndexDamage) instead of
// answering from it: the index is derived data, rebuilt from the log.
// An extension appends first and records the sum after, so bytes past `bytes` are an extension that died
// before its sum (lines past the index's `covered`, written again by the next one): readers ignore them.
import { closeSync, constants, fstatSync, ftruncateSync, lstatSync, readdirSync, readSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeAll } from "../../log/kept-files.js";
import { openStateFile, readStateBytes, readStateFileIfAny } from "../../security/trust.js";

/** Longest torn line looked for at the end of an index file (its lines are tens of bytes). */
const TORN_TAIL_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
/**
 * A 64-bit checksum as two 32-bit lanes (FNV-1a, and a multiply-xorshift lane), continued from `seed` (an
 * earlier result) over more bytes. Not cryptographic: it finds damage, not forgery. Byte by byte with
 * Math.imul, it reads a MiB in a few tens of ms where the 64-bit FNV of hash.ts takes hundreds.
 */
export function checksum(bytes: Uint8Array, seed?: string): string {
  const [a, b] = checksumLanes(bytes, seed === undefined ? undefined : [parseInt(seed.slice(0, 8), 16) >>> 0, parseInt(seed.slice(8, 16), 16) >>> 0]);
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}

/** `checksum`'s two lanes as unsigned numbers (a segment's bucket is picked by the first: index-storage.ts). */
export function checksumLanes(bytes: Uint8Array, seed: readonly [number, number] = [0x811c9dc5, 0x9747b28c]): [number, number] {
  let [a, b] = seed;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    a = Math.imul(a ^ byte, 0x01000193);
    b = Math.imul((b ^ byte) + (b >>> 15), 0x5bd1e995);
  }
  return [a >>> 0, b >>> 0];
}

interface Sum {
  /** The scope (or id bucket) the file belongs to. */
  name: string;
  bytes: number;
  hash: string;
}

/** An index file that disagrees with its sum: `file` is its path, `problem` what is wrong with it. */
export class IndexDamage extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file} ${problem}`);
  }
}

function readSum(path: string): Sum | undefined {
  const text = readStateFileIfAny(`${path}.sum`);
  if (text === undefined) return undefined;
  try {
    const sum = JSON.parse(text) as Sum;
    if (typeof sum?.name === "string" && Number.isSafeInteger(sum.bytes) && sum.bytes >= 0 && /^[0-9a-f]{16}$/.test(String(sum.hash))) return sum;
  } catch {
    // Reported below.
  }
  throw new IndexDamage(path, "has an unreadable checksum file");
}

function readBytes(path: string): Buffer | undefined {
  try {
    return readStateBytes(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The complete part of index file `path` of `name`, checked against its sum; "" when neither exists. Throws IndexDamage. */
export function readChecked(path: string, name: string): string {
  const sum = readSum(path);
  const bytes = readBytes(path);
  if (!sum) {
    if (bytes === undefined) return "";
    throw new IndexDamage(path, "has no checksum file");
  }
  if (bytes === undefined) throw new IndexDamage(path, `is missing (its checksum records ${sum.bytes} bytes)`);
  if (sum.name !== name) throw new IndexDamage(path, `belongs to ${JSON.stringify(sum.name)}, not ${JSON.stringify(name)}`);
  if (bytes.length < sum.bytes) throw new IndexDamage(path, `is truncated (${bytes.length} bytes, ${sum.bytes} recorded)`);
  const complete = bytes.subarray(0, sum.bytes);
  if (checksum(complete) !== sum.hash) throw new IndexDamage(path, "does not match its checksum (altered)");
  return complete.toString("utf8");
}

/**
 * Empties each file of an index's `dir` for a start-over instead of removing it, its sum (when it has one)
 * made the sum of no bytes, and removes those that were empty already (unused since the last one):
 * creating a file costs far more than emptying one (most of a millisecond each on ext4), and a log's index
 * starts over, after each compaction, with about the scopes and buckets it had. Only a private file of this
 * user's own with no other link is emptied (trust.ts): anything else is removed, never written through.
 */
export function emptyIndexFiles(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const present = new Set(names);
  for (const name of names) {
    if (name.endsWith(".sum") && present.has(name.slice(0, -".sum".length))) continue;
    const path = join(dir, name);
    const sumPath = `${path}.sum`;
    try {
      if (name.endsWith(".sum") || lstatSync(path).size === 0) throw new Error("a sum without its file, or unused since the last start-over");
      const owner = present.has(`${name}.sum`) ? readSum(path)!.name : undefined;
      emptyOwnFile(path);
      if (owner !== undefined) writeSum(path, { name: owner, bytes: 0, hash: checksum(new Uint8Array(0)) });
    } catch {
      rmSync(path, { recursive: true, force: true });
      rmSync(sumPath, { recursive: true, force: true });
    }
  }
}

/** Truncates a private file of this user's own with no other link; throws for anything else. */
function emptyOwnFile(path: string): void {
  const fd = openStateFile(path, constants.O_WRONLY);
  try {
    onlyLink(fd, path);
    ftruncateSync(fd, 0);
  } finally {
    closeSync(fd);
  }
}

/** Throws unless the open file has no other name: writing it in place must not change a file elsewhere. */
function onlyLink(fd: number, path: string, stat = fstatSync(fd)): void {
  if (stat.nlink !== 1) throw new IndexDamage(path, "has another link (a hard link from elsewhere)");
}

/**
 * Appends whole lines to an index file, first cutting off a torn last line (at or past `from`) that an
 * interrupted extension left (this extension writes it again). Returns the size before the new lines.
 */
export function appendLines(path: string, text: string, from = 0): number {
  const fd = openStateFile(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT);
  try {
    const stat = fstatSync(fd);
    onlyLink(fd, path, stat);
    let size = stat.size;
    const last = Buffer.alloc(1);
    if (size > from && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== NEWLINE) {
      // Index lines are short: the fragment's start is within the last few KiB.
      const tail = Buffer.alloc(Math.min(size - from, TORN_TAIL_BYTES));
      readSync(fd, tail, 0, tail.length, size - tail.length);
      const newline = tail.lastIndexOf(NEWLINE);
      size = newline >= 0 ? size - tail.length + newline + 1 : size - tail.length;
      ftruncateSync(fd, size);
    }
    // Whole or not at all: a write cut short (a full disk) must throw, not leave `covered` over lines never written.
    writeAll(fd, Buffer.from(text, "utf8"));
    return size;
  } finally {
    closeSync(fd);
  }
}

/**
 * Appends whole lines to index file `path` of `name` and records its new sum, continued over what lies
 * past the old one: leftovers of a dead extension, then these lines. The sum is written in place, not
 * renamed in: a sum torn by a crash reads as damage, and the index is rebuilt. Throws IndexDamage when the
 * file is shorter than its sum says.
 */
export function appendChecked(path: string, name: string, text: string): void {
  const sum = readSum(path) ?? { name, bytes: 0, hash: checksum(new Uint8Array(0)) };
  if (sum.name !== name) throw new IndexDamage(path, `belongs to ${JSON.stringify(sum.name)}, not ${JSON.stringify(name)}`);
  let size: number;
  try {
    size = lstatSync(path).size;
  } catch {
    size = 0;
  }
  if (size < sum.bytes) throw new IndexDamage(path, `is truncated (${size} bytes, ${sum.bytes} recorded)`);
  const before = appendLines(path, text, sum.bytes);
  const leftover = Buffer.alloc(before - sum.bytes);
  if (leftover.length > 0) {
    const fd = openStateFile(path, constants.O_RDONLY);
    try {
      readSync(fd, leftover, 0, leftover.length, sum.bytes);
    } finally {
      closeSync(fd);
    }
  }
  const added = Buffer.concat([leftover, Buffer.from(text, "utf8")]);
  writeSum(path, { name, bytes: sum.bytes + added.length, hash: checksum(added, sum.hash) });
}

/**
 * Writes a sum over the old one in place, cut only where the new one is shorter (a sum's bytes only grow,
 * so hardly ever): emptying the file first freed its block each time, a truncation that takes over a
 * millisecond where the file system discards freed blocks, for every file of every batch of an extension.
 * A crash mid-write leaves bytes that do not parse or do not match: damage, and the index is rebuilt.
 */
function writeSum(path: string, sum: Sum): void {
  const bytes = Buffer.from(JSON.stringify(sum));
  const fd = openStateFile(`${path}.sum`, constants.O_WRONLY | constants.O_CREAT);
  try {
    onlyLink(fd, `${path}.sum`);
    writeAll(fd, bytes);
    if (fstatSync(fd).size > bytes.length) ftruncateSync(fd, bytes.length);
  } finally {
    closeSync(fd);
  }
}
