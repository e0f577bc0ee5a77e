// The file store's per-address index: for each scope (address), the offsets of the log lines in it, so
// a view nobody has folded yet (a new session) reads only its own records instead of the whole log.
// Derived data, extended incrementally by whoever reads the tail, rebuilt from the log when in doubt:
// - meta.json: the log it covers (device, inode, a fingerprint of the bytes before `covered`), `covered`
//   (every line before it is indexed), and the corrupt lines seen there;
// - per scope, the offsets of its lines, one per line, in log order;
// - per message id, its msg line's offset and scopes, to place later events about it, and per key (a
//   message id, a conversation, an idempotency slot: what scopesOf files a line under), the offsets of
//   the lines about it, so a lookup of one message reads its lines and no other: one JSON line per key
//   and extension batch (id-bucket.ts), never rewritten, so an extension costs what it adds.
// Those are kept in a file per scope and id bucket, or for an archive in a segment per extension
// (index-storage.ts). Extending writes them first and moves `covered` last (an atomic rename), so a crash
// leaves at most offsets past `covered`, which readers ignore and the next extension writes again
// (readers deduplicate). What disagrees with its checksum (checked-file.ts; lost, cut, edited, swapped)
// is noted in damage.json and the whole index starts over from the log. The ids/ buckets of key files
// have none (a checksum each would double an extension's file writes): a damaged line there loses one entry.
import { existsSync, mkdirSync, rmSync, statSync, utimesSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { tailFingerprint } from "../../log/log-snapshot.js";
import { type JsonlLog } from "../../log/log.js";
import { withCorrupt, type CorruptReport, type CorruptSummary } from "../../log/types.js";
import { DIR_MODE } from "../../security/state-dir.js";
import { checkPrivateDir, ensurePrivateDir, readStateFileIfAny, writeStateFile } from "../../security/trust.js";
import { IndexDamage } from "./checked-file.js";
import { damageNotes, noteDamage, type IndexDamageNote } from "./index-damage.js";
import { IndexBatch } from "./index-batch.js";
import { parseBucket, type Bucket, type IdEntry } from "./id-bucket.js";
import { KeyFiles, SegmentFiles, type IndexStorage, type Meta } from "./index-storage.js";

/**
 * The scopes of a record, given a way to look up the scopes of an earlier message by id; `id` when it is
 * a message's first line, `about` the keys the ids/ buckets file it under.
 */
export type ScopesOf<T> = (record: T, scopesOfMessage: (id: string) => readonly string[] | undefined) => { id?: string; scopes: readonly string[]; about?: readonly string[] };

/** Lines one batch of an extension indexes before recording them: each batch writes every file it touches (index-batch.ts). */
const BATCH_LINES = 500_000;

/** A scope whose lines every lookup includes (records every view folds). Not an address: it has no colon. */
export const EVERY_SCOPE = "*";
/** A lock on extending untouched for this long was left by a process that died (a live one touches it after each batch). */
const STALE_LOCK_MS = 30_000;
/** What a read of the index answers when it met damage (withMeta). */
const DAMAGED = Symbol("damaged");

/**
 * The extension lock this process holds: the lock dir, and the dir inside it that names this holder. A
 * holder stopped past the stale time finds its name gone once another took the lock over: it then neither
 * records more batches nor removes or touches the new holder's lock.
 */
interface HeldLock {
  path: string;
  mine: string;
}

function holds(lock: HeldLock): boolean {
  return existsSync(lock.mine);
}

function touchLock(lock: HeldLock): void {
  try {
    if (!holds(lock)) return;
    const now = new Date();
    utimesSync(lock.path, now, now);
  } catch {
    // Taken over after all: the batches done are recorded, and the next extension goes on from them.
  }
}

export interface IndexedScope {
  /** Offsets of the scope's lines before `covered`, in log order. */
  offsets: number[];
  covered: number;
  corrupt: CorruptSummary;
}

export class ScopeIndex<T> {
  private readonly metaPath: string;
  private readonly storage: IndexStorage;
  /** Whether this process found the index's dirs private (once: as the state dir itself is checked once). */
  private dirsChecked = false;
  /**
   * The last meta found to describe the log, with what it was checked against: the same meta text over the
   * same log file, neither grown nor written since (size, modification and change times), is not fingerprinted again (a status asks about ten times).
   */
  private checked: { text: string; log: string; meta: Meta } | undefined;

  /** `segments`: for an archive, which grows by whole compactions (index-storage.ts). */
  constructor(
    private readonly log: JsonlLog<T>,
    readonly dir: string,
    private readonly scopesOf: ScopesOf<T>,
    options: { segments?: boolean } = {},
  ) {
    this.metaPath = join(dir, "meta.json");
    this.storage = options.segments ? new SegmentFiles(dir) : new KeyFiles(dir);
  }

  /** The index's meta when it still describes this log, else undefined (missing, other file, rewritten). */
  private meta(): Meta | undefined {
    // A link or another user's file or dir in its place is refused (trust.ts), not read as no index and replaced.
    if (!this.dirsChecked) this.checkDirs();
    const text = readStateFileIfAny(this.metaPath);
    if (text === undefined) return undefined;
    let stat: Stats;
    try {
      stat = statSync(this.log.path);
    } catch {
      return undefined;
    }
    // The change time too: a tool that puts the modification time back cannot put it back.
    const log = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
    if (this.checked?.text === text && this.checked.log === log) return this.checked.meta;
    const meta = this.describing(text, stat);
    if (meta) this.checked = { text, log, meta };
    return meta;
  }

  /** The meta `text` says, when it describes the log file `stat` is of. */
  private describing(text: string, stat: Stats): Meta | undefined {
    let meta: Meta;
    try {
      meta = JSON.parse(text) as Meta;
    } catch {
      return undefined;
    }
    if (meta?.v !== this.storage.version || typeof meta.covered !== "number" || !meta.corrupt || !this.storage.describes(meta)) return undefined;
    if (stat.ino !== meta.ino || stat.dev !== meta.dev || stat.size < meta.covered) return undefined;
    try {
      if (tailFingerprint(this.log.path, meta.covered) !== meta.tail) return undefined;
    } catch {
      return undefined;
    }
    return meta;
  }

  /** How far into the log the index reaches, or undefined when there is no valid index. */
  covered(): number | undefined {
    return this.meta()?.covered;
  }

  /** The log file the index describes, how far into it the index reaches and the corrupt lines it met before that; undefined when there is no valid index. */
  corruptSeen(): { dev: number; ino: number; covered: number; corrupt: CorruptSummary } | undefined {
    const meta = this.meta();
    return meta && { dev: meta.dev, ino: meta.ino, covered: meta.covered, corrupt: meta.corrupt };
  }

  /**
   * The log's corrupt lines (before `until`, when given) and whether it ends in a torn line: those the
   * index met before `covered` (it parses every line it covers), then a scan of the rest. Readers that
   * pass over lines unparsed ask this.
   */
  corruptLines(until?: number): CorruptReport {
    // Held open, so a compaction that swaps another file in meanwhile cannot pair the index's count with the wrong file.
    const file = this.log.pin();
    if (!file) return { count: 0, recent: [], tornTail: false };
    try {
      let seen: ReturnType<ScopeIndex<T>["corruptSeen"]>;
      try {
        seen = this.corruptSeen();
      } catch {
        seen = undefined;
      }
      // An index of another file, or one that reaches past `until` (its count cannot be cut there).
      if (seen && (seen.dev !== file.dev || seen.ino !== file.ino || (until !== undefined && seen.covered > until))) seen = undefined;
      const rest = file.scan(seen?.covered ?? 0, () => undefined, until === undefined ? {} : { until });
      return { ...withCorrupt(seen?.corrupt ?? { count: 0, recent: [] }, rest.corrupt), tornTail: rest.tornTail };
    } finally {
      file.close();
    }
  }

  /** Bytes of the log the index does not cover yet (all of it when there is no valid index). */
  lag(): number {
    const size = this.log.identity()?.size ?? 0;
    return size - (this.meta()?.covered ?? 0);
  }

  /**
   * The indexed lines of `scope` (and of EVERY_SCOPE), or undefined when there is no valid index. A file
   * that disagrees with its checksum voids the index; when the log is at most `rebuildUpTo` bytes, the
   * index is rebuilt at once and asked again.
   */
  lookup(scope: string, rebuildUpTo = 0): IndexedScope | undefined {
    const found = this.withMeta((meta) => this.scopeLines(scope, meta));
    if (found !== DAMAGED) return found;
    if ((this.log.identity()?.size ?? Infinity) > rebuildUpTo) return undefined;
    try {
      this.extend();
    } catch {
      // Derived data: a rebuild that cannot be written (a full disk) leaves the reader to the log.
      return undefined;
    }
    const again = this.withMeta((meta) => this.scopeLines(scope, meta));
    return again === DAMAGED ? undefined : again;
  }

  private scopeLines(scope: string, meta: Meta): IndexedScope {
    const seen = new Set<number>();
    for (const name of scope === EVERY_SCOPE ? [scope] : [scope, EVERY_SCOPE]) {
      const text = this.storage.scopeText(name, meta);
      for (const line of text.split("\n")) {
        const offset = Number(line);
        if (line !== "" && offset < meta.covered) seen.add(offset);
      }
    }
    return { offsets: [...seen].sort((a, b) => a - b), covered: meta.covered, corrupt: meta.corrupt };
  }

  /**
   * Offset and scopes of a message's msg line, from the index: null when the index covers no such line,
   * undefined when it cannot tell (no valid index, or its bucket has a line that cannot be read).
   */
  message(id: string): IdEntry | null | undefined {
    const read = this.withMeta((meta) => ({ meta, bucket: this.entriesOf(id, meta) }));
    if (read === undefined || read === DAMAGED) return undefined;
    const entry = read.bucket.entries.get(id)?.message;
    if (entry && entry.o < read.meta.covered) return entry;
    return read.bucket.damaged ? undefined : null;
  }

  /**
   * The offsets of the lines filed under `key` before `covered` (its message's msg line included), in log
   * order; undefined when there is no valid index or its bucket has a line that cannot be read.
   */
  linesAbout(key: string): { offsets: number[]; covered: number } | undefined {
    const read = this.withMeta((meta) => ({ meta, bucket: this.entriesOf(key, meta) }));
    if (read === undefined || read === DAMAGED || read.bucket.damaged) return undefined;
    const entry = read.bucket.entries.get(key);
    const offsets = new Set(entry?.lines.filter((offset) => offset < read.meta.covered));
    if (entry?.message && entry.message.o < read.meta.covered) offsets.add(entry.message.o);
    return { offsets: [...offsets].sort((a, b) => a - b), covered: read.meta.covered };
  }

  /**
   * `read` on the index's meta: undefined when there is no valid index, DAMAGED when `read` met a file
   * missing or disagreeing with its checksum (noted; the index is void). Unless the meta changed
   * meanwhile: then an extension replaced the files that meta listed under the read (a start-over, the
   * removal of merged segments), nothing is damaged, and `read` runs once more on the new meta.
   */
  private withMeta<R>(read: (meta: Meta) => R): R | undefined | typeof DAMAGED {
    for (let attempt = 0; ; attempt++) {
      const meta = this.meta();
      if (!meta) return undefined;
      try {
        const result = read(meta);
        if (!this.startedOver(meta)) return result;
        // Emptied under the read: no index this time, or the new one.
        if (attempt > 0) return undefined;
        continue;
      } catch (error) {
        if (!(error instanceof IndexDamage)) throw error;
        if (this.damaged(error, meta)) return DAMAGED;
        // Rewritten under two reads in a row: no index this time.
        if (attempt > 0) return undefined;
      }
    }
  }

  /**
   * Notes the damage (for health and doctor) and voids the index: the next extension starts over from the
   * log. Not when the meta changed since `meta` was read from it: the files it listed were replaced
   * under the reader (see withMeta), and the index on disk now is whole.
   */
  private damaged(damage: IndexDamage, meta?: Meta): IndexDamageNote | undefined {
    return meta && this.movedOn(meta) ? undefined : this.voided([damage])[0];
  }

  /**
   * Whether the index was started over (or voided) since `meta` was read: its meta is gone, or one of
   * another start-over is there. A start-over empties the key files in place, so what a read found in them
   * may be nothing, though `meta` covers their lines; an extension only appends, which changes no answer.
   */
  private startedOver(meta: Meta): boolean {
    const text = readStateFileIfAny(this.metaPath);
    if (text === undefined) return true;
    if (this.checked?.meta === meta && text === this.checked.text) return false;
    try {
      return (JSON.parse(text) as Meta | null)?.epoch !== meta.epoch;
    } catch {
      return true;
    }
  }

  /** Whether the meta on disk is no longer the one `meta` was read from. */
  private movedOn(meta: Meta): boolean {
    return this.checked?.meta === meta && readStateFileIfAny(this.metaPath) !== this.checked.text;
  }

  /** Notes each damage and voids the index, once for all of them (doctor may find several). */
  private voided(damages: IndexDamage[]): IndexDamageNote[] {
    const notes = damages.map((damage) => noteDamage(this.dir, damage));
    rmSync(this.metaPath, { force: true });
    return notes;
  }

  /** Damage readers found in the last day, oldest first. */
  damageNotes(): IndexDamageNote[] {
    return damageNotes(this.dir);
  }

  /** Checks every file of a valid index against its checksum (doctor: reads the whole index); damage found voids it, as a lookup's does. */
  verifyAll(): IndexDamageNote[] {
    // Checked again on the new meta when the index was extended or started over meanwhile (see withMeta):
    // an extension leaves a damaged file it did not touch as it was.
    for (let attempt = 0; attempt < 3; attempt++) {
      const meta = this.meta();
      if (!meta) return [];
      const found = this.storage.verifyAll(meta);
      if (found.length === 0) return [];
      if (!this.movedOn(meta)) return this.voided(found);
    }
    return [];
  }

  /**
   * Extends the index on a reader's way: when it lags `minLag` bytes or more but at most `maxLag` (further
   * is a rebuild's job). Derived data: a failure leaves the reader to read the log as it would without it.
   */
  extendOnTheWay(maxLag: number, minLag = 0): void {
    try {
      const lag = this.lag();
      if (lag > 0 && lag >= minLag && lag <= maxLag) this.extend();
    } catch {
      // The reader scans what the index does not cover.
    }
  }

  /**
   * Indexes the lines after `covered` up to the end of the log (or to `end`: the archive's lines past its
   * committed end may still be cut); returns the new `covered`, or undefined when another process is
   * extending it right now. Starts over when the index does not match the log. Works in batches of lines,
   * each recorded before the next: memory follows a batch, not the log, and a crash keeps the batches done.
   */
  extend(end?: number): number | undefined {
    if (!this.log.identity()) return undefined;
    this.ensureDirs();
    const lock = this.tryLock(join(this.dir, "extending.lock"));
    if (!lock) return undefined;
    try {
      try {
        return this.extendLocked(end, lock);
      } catch (error) {
        if (!(error instanceof IndexDamage)) throw error;
        // A file the extension had to read or append to disagrees with its checksum: start over.
        this.damaged(error);
        return this.extendLocked(end, lock);
      }
    } finally {
      try {
        // Only its own: a lock taken over meanwhile is the new holder's.
        if (holds(lock)) rmSync(lock.path, { recursive: true, force: true });
      } catch {
        // Already gone.
      }
    }
  }

  private extendLocked(end: number | undefined, lock: HeldLock): number {
    let meta = this.meta();
    if (!meta) {
      this.clear();
      const identity = this.log.identity()!;
      meta = { v: this.storage.version, dev: identity.dev, ino: identity.ino, covered: 0, tail: "", corrupt: { count: 0, recent: [] }, epoch: Math.random().toString(36).slice(2) };
    }
    const target = end ?? this.log.identity()!.size;
    while (meta.covered < target) {
      const next = this.extendBatch(meta, target, lock);
      if (!next || next.covered === meta.covered) break;
      meta = next;
      // Still alive: a long extension (a big log on a slow machine) must not look stale and be taken over.
      touchLock(lock);
    }
    return meta.covered;
  }

  /** Indexes up to BATCH_LINES lines from `meta.covered`: offsets and id lines first, then the meta that covers them. */
  private extendBatch(meta: Meta, target: number, lock: HeldLock): Meta | undefined {
    const batch = new IndexBatch();
    const read = new Map<string, Bucket>();
    const scopesOfMessage = (id: string) => batch.scopesOf(id) ?? this.entriesOf(id, meta, read).entries.get(id)?.message?.s;
    const result = this.log.scan(meta.covered, (entry) => {
      const { id, scopes, about } = this.scopesOf(entry.record, scopesOfMessage);
      // An id's line is appended without looking for an earlier one: a lookup takes the first, which is the same message's.
      batch.add(entry.offset, id, scopes, about);
    }, { until: target, maxLines: BATCH_LINES });
    // Stopped past the stale time while reading, and taken over: the new holder records these lines.
    if (!holds(lock)) return undefined;
    const stored = this.storage.write(batch, meta, meta.covered, result.next);
    // And while writing: the lines it appended lie past the new holder's `covered` or repeat lines before it (readers deduplicate).
    if (!holds(lock)) return undefined;
    const next: Meta = { ...meta, ...stored, covered: result.next, tail: tailFingerprint(this.log.path, result.next), corrupt: withCorrupt(meta.corrupt, result.corrupt), written: Math.random().toString(36).slice(2) };
    writeStateFile(this.metaPath, JSON.stringify(next));
    return next;
  }

  private tryLock(lockPath: string): HeldLock | undefined {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        mkdirSync(lockPath, { mode: DIR_MODE });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") return undefined;
        try {
          if (Math.abs(Date.now() - statSync(lockPath).mtimeMs) < STALE_LOCK_MS) return undefined;
          rmSync(lockPath, { recursive: true, force: true });
        } catch {
          return undefined;
        }
        continue;
      }
      const lock = { path: lockPath, mine: join(lockPath, `${process.pid}-${Math.random().toString(36).slice(2)}`) };
      try {
        mkdirSync(lock.mine, { mode: DIR_MODE });
      } catch {
        // Taken over in between (it was just made, so only by a clock far off): not ours.
        return undefined;
      }
      return lock;
    }
    return undefined;
  }

  /**
   * The entries of `key`'s bucket: each bucket read once per extension (`read`), where every key of it is
   * wanted; for a lookup, only the key's own lines are parsed where the storage checked the bucket's bytes.
   */
  private entriesOf(key: string, meta: Meta, read?: Map<string, Bucket>): Bucket {
    const name = this.storage.bucketOf(key);
    if (!read) return parseBucket(this.storage.bucketText(name, meta), this.storage.bucketsChecked ? key : undefined);
    let bucket = read.get(name);
    if (!bucket) read.set(name, (bucket = parseBucket(this.storage.bucketText(name, meta))));
    return bucket;
  }

  private clear(): void {
    rmSync(this.metaPath, { force: true });
    this.storage.clear();
  }

  /** Checks the index's dirs that exist (index/, this index's own, its storage's); done once all exist. */
  private checkDirs(): void {
    let all = true;
    for (const dir of [dirname(this.dir), this.dir, ...this.storage.dirs]) {
      try {
        checkPrivateDir(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        all = false;
      }
    }
    this.dirsChecked = all;
  }

  /** The index's dirs, created private where missing; one that is a link or another user's is refused (trust.ts). */
  private ensureDirs(): void {
    ensurePrivateDir(dirname(this.dir));
    ensurePrivateDir(this.dir);
    for (const dir of this.storage.dirs) ensurePrivateDir(dir);
  }
}
