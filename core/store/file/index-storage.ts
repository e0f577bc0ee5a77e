// Where a scope index (scope-index.ts) keeps what it indexed, two ways:
// - key files, for a live log that grows a little at a time: scopes/<hash>.offs per scope and
//   ids/<hash prefix>.ids per id bucket, each appended to by every extension;
// - segments, for an archive that grows by whole compactions: one file per extension (index-segment.ts),
//   listed in the meta, so indexing a compaction's moves writes one file instead of thousands.
// Either way a lookup reads a scope's offsets as text (one per line) and a key's entries as a bucket's
// lines (id-bucket.ts), checked against their checksums (IndexDamage).
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fnv1a64 } from "../../common/hash.js";
import type { CorruptSummary } from "../../log/types.js";
import { ensurePrivateDir, readStateFileIfAny } from "../../security/trust.js";
import { appendChecked, appendLines, checksumLanes, emptyIndexFiles, IndexDamage, readChecked } from "./checked-file.js";
import { checkIndexFiles } from "./index-damage.js";
import type { IndexBatch } from "./index-batch.js";
import { mergedEntries, nameHash, Segment, writeSegment } from "./index-segment.js";

/**
 * Key files: 4, the ids/ buckets file every line under the keys it is about. 3: a checksum beside every
 * file. 2: message ids in append-only lines per bucket (1 rewrote whole JSON buckets at every extension).
 * Segments: 5, a number of their own, so a peerpost from before them takes their index for none (it
 * would have read no scopes/ and answered that nothing was there); 6, hashed and checked by SHA-1.
 */
const KEY_FILES_VERSION = 4;
const SEGMENTS_VERSION = 6;

export interface Meta {
  v: number;
  dev: number;
  ino: number;
  covered: number;
  tail: string;
  corrupt: CorruptSummary;
  /** Segments only: the segment files, in log order, that together cover the log up to `covered`. */
  segments?: string[];
  /**
   * Random, new at each write: a reader that met a file its meta lists missing or damaged tells by it
   * whether the index was rewritten under it meanwhile (a start-over can write the same meta again).
   */
  written?: string;
  /**
   * Random, new at each start-over and kept by the extensions after it: key files are emptied in place by a
   * start-over (emptyIndexFiles), so a reader that read files under a meta tells by it whether what it read
   * may have been emptied meanwhile (extensions only append to them).
   */
  epoch?: string;
}

export interface IndexStorage {
  /** The `v` of a meta of an index kept this way. */
  readonly version: number;
  /** Whether a meta (already checked otherwise) describes an index kept this way. */
  describes(meta: Meta): boolean;
  /** The offsets of `scope`'s lines, one per line (some may lie past `covered`). */
  scopeText(scope: string, meta: Meta): string;
  /** The name of the bucket that `key`'s entries are filed in. */
  bucketOf(key: string): string;
  /** Bucket `name`'s lines (id-bucket.ts). */
  bucketText(name: string, meta: Meta): string;
  /** Whether a bucket's text is checked against a checksum when read (a damaged line cannot pass unseen). */
  readonly bucketsChecked: boolean;
  /** Records one extension batch; returns the meta's storage fields that cover it. */
  write(batch: IndexBatch, meta: Meta, from: number, to: number): Pick<Meta, "segments">;
  /** Every file checked against its checksum (doctor). */
  verifyAll(meta: Meta): IndexDamage[];
  /** Removes every file; the dirs stay. */
  clear(): void;
  /** The dirs it keeps its files in (private, as every state dir: trust.ts). */
  readonly dirs: readonly string[];
}

/** A file per scope and per id bucket, appended to by every extension. */
export class KeyFiles implements IndexStorage {
  readonly version = KEY_FILES_VERSION;
  readonly bucketsChecked = false;
  readonly dirs: readonly string[];

  constructor(private readonly dir: string) {
    this.dirs = [join(dir, "scopes"), join(dir, "ids")];
  }

  describes(meta: Meta): boolean {
    return meta.segments === undefined;
  }

  scopeText(scope: string): string {
    return readChecked(this.scopePath(scope), scope);
  }

  /** 4096 buckets: at a million messages each holds a few hundred ids, a few tens of KiB. */
  bucketOf(key: string): string {
    return fnv1a64(key).slice(0, 3);
  }

  bucketText(name: string): string {
    return readStateFileIfAny(this.idsPath(name)) ?? "";
  }

  write(batch: IndexBatch): Pick<Meta, "segments"> {
    for (const [scope, text] of batch.scopeTexts()) appendChecked(this.scopePath(scope), scope, text);
    for (const [key, text] of batch.bucketTexts((id) => this.bucketOf(id))) appendLines(this.idsPath(key), text);
    return {};
  }

  verifyAll(): IndexDamage[] {
    return checkIndexFiles(this.dir, "scopes", ".offs", (scope) => `${fnv1a64(scope)}.offs`);
  }

  clear(): void {
    for (const dir of this.dirs) emptyIndexFiles(dir);
  }

  private scopePath(scope: string): string {
    return join(this.dir, "scopes", `${fnv1a64(scope)}.offs`);
  }

  private idsPath(key: string): string {
    return join(this.dir, "ids", `${key}.ids`);
  }
}

/** Scope entries and key bucket entries share a segment; their names cannot meet. */
const scopeEntry = (scope: string) => `s ${scope}`;
const bucketEntry = (bucket: string) => `k ${bucket}`;

/**
 * A key's bucket in a segment: 4096 of them, so a segment has a few thousand entries whatever it covers,
 * and a merge of many reads every table whole. At a million messages a bucket holds a few hundred keys.
 */
export function segmentBucket(key: string): string {
  return (checksumLanes(Buffer.from(key, "utf8"))[0] >>> 20).toString(16);
}

/** Segments an index keeps before an extension merges them into one: a lookup reads each. */
const MAX_SEGMENTS = 16;

const SEGMENT_NAME = /^[0-9]+-[0-9]+-[0-9]+-[0-9a-z]+-[0-9]+\.seg$/;

/** A batch's scopes and key buckets as a segment's entries, made one at a time as the segment is written. */
function* entriesOf(batch: IndexBatch): Generator<readonly [string, string]> {
  for (const [scope, text] of batch.scopeTexts()) yield [scopeEntry(scope), text];
  for (const [bucket, text] of batch.bucketTexts(segmentBucket)) yield [bucketEntry(bucket), text];
}

/** A name no other extension used: a rebuild never writes over a segment a reader of the old meta still reads. */
function segmentName(from: number, to: number): string {
  return `${from}-${to}-${process.pid}-${Date.now().toString(36)}-${++segmentsWritten}.seg`;
}

/** Segments this process wrote: part of each name. */
let segmentsWritten = 0;

/** A segment file per extension, listed in the meta. */
export class SegmentFiles implements IndexStorage {
  readonly version = SEGMENTS_VERSION;
  readonly bucketsChecked = true;
  private readonly segmentsDir: string;
  readonly dirs: readonly string[];
  /** Segments open for lookups, least recently used first (withSegment). */
  private readonly opened = new Map<string, Segment>();

  constructor(private readonly dir: string) {
    this.segmentsDir = join(dir, "segments");
    this.dirs = [this.segmentsDir];
  }

  describes(meta: Meta): boolean {
    return Array.isArray(meta.segments) && meta.segments.every((name) => typeof name === "string" && SEGMENT_NAME.test(name));
  }

  scopeText(scope: string, meta: Meta): string {
    return this.texts(scopeEntry(scope), meta);
  }

  bucketOf(key: string): string {
    return segmentBucket(key);
  }

  bucketText(name: string, meta: Meta): string {
    return this.texts(bucketEntry(name), meta);
  }

  write(batch: IndexBatch, meta: Meta, from: number, to: number): Pick<Meta, "segments"> {
    this.removeUnlisted(meta);
    const name = segmentName(from, to);
    writeSegment(join(this.segmentsDir, name), entriesOf(batch));
    const segments = [...(meta.segments ?? []), name];
    return { segments: segments.length > MAX_SEGMENTS ? [this.merge(segments, to)] : segments };
  }

  /**
   * One segment with all of `names`' entries, for the meta to list in their place (the next extension
   * removes them, unlisted: a reader of the old meta may still read them meanwhile).
   */
  private merge(names: readonly string[], to: number): string {
    const opened: Segment[] = [];
    try {
      for (const name of names) opened.push(new Segment(join(this.segmentsDir, name)));
      const merged = segmentName(0, to);
      writeSegment(join(this.segmentsDir, merged), mergedEntries(opened));
      return merged;
    } finally {
      for (const segment of opened) segment.close();
    }
  }

  verifyAll(meta: Meta): IndexDamage[] {
    const found: IndexDamage[] = [];
    for (const name of meta.segments ?? []) {
      try {
        this.withSegment(name, (segment) => segment.verify());
      } catch (error) {
        if (error instanceof IndexDamage) found.push(error);
        else throw error;
      }
    }
    return found;
  }

  /** Removes every segment (the meta that listed them is gone), and the key files of an index from before segments. */
  clear(): void {
    for (const segment of this.opened.values()) segment.close();
    this.opened.clear();
    for (const sub of ["segments", "scopes", "ids"]) rmSync(join(this.dir, sub), { recursive: true, force: true });
    ensurePrivateDir(this.segmentsDir);
  }

  /** Removes segments that `meta` does not list: left by an extension that died before its meta (this one holds the extension's lock). */
  private removeUnlisted(meta: Meta): void {
    const listed = new Set(meta.segments ?? []);
    let names: string[];
    try {
      names = readdirSync(this.segmentsDir);
    } catch {
      return;
    }
    for (const name of names) if (!listed.has(name)) rmSync(join(this.segmentsDir, name), { force: true });
  }

  /** Entry `name`'s texts in every segment, in log order. */
  private texts(name: string, meta: Meta): string {
    let text = "";
    const hash = nameHash(name);
    for (const segment of meta.segments ?? []) text += this.withSegment(segment, (open) => open.text(name, hash));
    return text;
  }

  /**
   * Runs `use` on segment `name`, kept open for the lookups after (a status reads each segment several
   * times): a segment never changes under its name, which no other extension uses. The least recently
   * used is closed past MAX_SEGMENTS + 1, so a long-running process holds a bounded number open.
   */
  private withSegment<R>(name: string, use: (segment: Segment) => R): R {
    let segment = this.opened.get(name);
    if (segment) this.opened.delete(name);
    else {
      const path = join(this.segmentsDir, name);
      try {
        segment = new Segment(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new IndexDamage(path, "is missing (the index's meta lists it)");
        throw error;
      }
    }
    this.opened.set(name, segment);
    for (const [oldest, open] of this.opened) {
      if (this.opened.size <= MAX_SEGMENTS + 1) break;
      open.close();
      this.opened.delete(oldest);
    }
    try {
      return use(segment);
    } catch (error) {
      // Damage found: the rebuild writes segments of other names; this one is not read again.
      if (error instanceof IndexDamage) {
        segment.close();
        this.opened.delete(name);
      }
      throw error;
    }
  }
}
