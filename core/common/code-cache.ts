// Runs a CommonJS bundle (and the bundles it requires by relative path) from V8's code cache. Compiling
// the hook program and the pg driver (~180 KB) is the largest part of a prompt hook's own time, and
// compiling the CLI's program (~1.2 MB) was more than half of a short `peerpost` command's; taking the
// compiled code from the cache costs a fraction of it. Used by hooks/loader.ts and core/cli/start.ts.
// The cache is code: V8 checks only that it was made for a source of the same length and the same
// flags, then runs it (a file damaged past its header crashed the process, on every run after). So each
// file is on disk before it is named, carries a check of its data (a hash of samples spread over all of
// it: a region zeroed or overwritten shows, for a fraction of a millisecond, where hashing every byte
// would cost a hook one or two), and is read only from the private state dir, every directory on the way
// checked as the state dir is (this user's, no links, writable by no one else), and only as a private
// file of this user; it is never created with the state dir itself. A file's cache is named after the
// file, node's build and the variant (the hook event, the CLI command), and after the file's identity (device, inode, size, change
// and modification times): a new plugin version or node gets a cache of its own. Any problem with the
// cache means compiling as if there were none.
import { closeSync, constants, fstatSync, fsyncSync, futimesSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { Script } from "node:vm";
import { fnv1a64 } from "./hash.js";
import { resolveStateDirPath } from "../security/state-dir.js";
import { checkAncestors, checkPrivateDir, ensurePrivateDir, openStateFile } from "../security/trust.js";

/** A script whose compiled code goes into the cache when the process exits (none or a stale one was found). */
interface Pending {
  script: Script;
  name: string;
  prefix: string;
}

interface LoadedModule {
  exports: unknown;
}

/** Where a cache lives: `dir` inside `stateDir`, which the cache never creates. */
interface Location {
  stateDir: string;
  dir: string;
}

const DAY_MS = 86_400_000;
/** A cache no run read for this long (an old plugin version, a host or command no longer used) is removed. */
const UNUSED_FOR_MS = 14 * DAY_MS;
/** A temporary file this old was left by a killed hook or command. */
const STALE_TEMPORARY_MS = 3_600_000;

const WRAPPER_HEAD = "(function (exports, require, module, __filename, __dirname) { ";

/** The wrapper Node's CommonJS loader puts around a file. */
export function wrapCommonJs(source: string): string {
  return `${WRAPPER_HEAD}${source}\n});`;
}

/**
 * The text compiled for a file: the hook and CLI programs are built already wrapped (scripts/build.mjs), so
 * each is compiled as read, without a second copy (the hook's ~130 KB tipped a prompt hook into a garbage collection).
 */
export function compiledSource(source: string): string {
  return source.startsWith(WRAPPER_HEAD) ? source : wrapCommonJs(source);
}

/** Whether the state dir, `cache` and `cache/code` exist and are private, and the dirs above are safe. */
function isPrivate({ stateDir, dir }: Location): boolean {
  try {
    checkAncestors(stateDir);
    for (const path of [stateDir, dirname(dir), dir]) checkPrivateDir(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The cache file's bytes, or undefined when it is missing, unreadable or not a private file of this
 * user. Not blocking: a FIFO in its place is refused, not waited on. A cache read now and then is
 * marked used (its modification time), so pruning keeps it.
 */
function readCache(path: string): Buffer | undefined {
  let file: Buffer;
  try {
    const fd = openStateFile(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      file = readFileSync(fd);
      const now = Date.now();
      if (now - fstatSync(fd).mtimeMs > DAY_MS) futimesSync(fd, now / 1000, now / 1000);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const data = file.subarray(CHECKSUM_BYTES);
  // Damaged (a crash before its data reached the disk, a bad sector, a hand): compiled anew, and written over at exit.
  return file.length > CHECKSUM_BYTES && file.readUInt32BE(0) === sampledHash(data) ? data : undefined;
}

/** Bytes of the check in front of a cache file's data. */
const CHECKSUM_BYTES = 4;
/** The check hashes this many runs of 32-bit words, evenly spread from the data's start to its end, and its length. */
const SAMPLES = 512;
const SAMPLE_WORDS = 4;
const SAMPLE_BYTES = 4 * SAMPLE_WORDS;

/**
 * FNV-1a (32 bits, a word at a time) of the data's length and of SAMPLES runs of SAMPLE_WORDS spread over
 * it (all of it, when that is shorter), and of its last bytes. By words: a hook runs it once, in V8's
 * interpreter, where a loop over 8 KiB of single bytes took a millisecond or two.
 */
function sampledHash(data: Buffer): number {
  // Int32Array needs an aligned start: a file read whole starts its own ArrayBuffer, so `data` (after the check) is aligned but for a copy made here.
  const aligned = data.byteOffset % 4 === 0 ? data : new Uint8Array(data);
  const words = new Int32Array(aligned.buffer, aligned.byteOffset, data.length >>> 2);
  let hash = Math.imul(0x811c9dc5 ^ data.length, 0x01000193);
  const step = Math.max(SAMPLE_WORDS, Math.floor(words.length / SAMPLES));
  for (let start = 0; start < words.length; start += step) {
    const end = Math.min(words.length, start + SAMPLE_WORDS);
    for (let at = start; at < end; at++) hash = Math.imul(hash ^ words[at]!, 0x01000193);
  }
  // The last bytes too (those past the last whole word among them), where a file cut short or zeroed from some point on differs first.
  for (let at = Math.max(0, data.length - SAMPLE_BYTES); at < data.length; at++) hash = Math.imul(hash ^ data[at]!, 0x01000193);
  return hash >>> 0;
}

/** A cache file's bytes: the check of V8's cached data, then the data. */
export function cacheFileBytes(data: Buffer): Buffer {
  const checksum = Buffer.alloc(CHECKSUM_BYTES);
  checksum.writeUInt32BE(sampledHash(data));
  return Buffer.concat([checksum, data]);
}

/** Written whole (on disk before it is named) under a private temporary name, then renamed: a reader sees a whole cache or none. */
function writeCache(dir: string, item: Pending): void {
  const bytes = cacheFileBytes(item.script.createCachedData());
  const temporary = join(dir, `.${item.name}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  const fd = openStateFile(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, join(dir, item.name));
}

/**
 * Removes the caches of this file's earlier versions, caches no hook read for a while, and temporary
 * files killed hooks left. A racing hook may have removed one already.
 */
function prune(dir: string, written: Pending[]): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    if (written.some((item) => item.name === name)) continue;
    const path = join(dir, name);
    const age = now - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? now);
    const superseded = written.some((item) => name.startsWith(item.prefix));
    if (superseded || (name.endsWith(".bin") && age > UNUSED_FOR_MS) || (name.endsWith(".tmp") && age > STALE_TEMPORARY_MS)) rmSync(path, { force: true });
  }
}

export class CodeCache {
  private readonly modules = new Map<string, LoadedModule>();
  private readonly pending: Pending[] = [];
  /** Where a run writes what it compiled (creating cache/code inside a private state dir). */
  private readonly writable: Location | undefined;
  /** Where caches are read from: only when every directory on the way is private already. */
  private readonly readable: Location | undefined;

  /** `variant` (the hook event, the CLI command) keeps the functions one kind of run compiles in a cache of its own. */
  constructor(
    stateDir: string | undefined,
    private readonly variant: string,
  ) {
    this.writable = stateDir === undefined ? undefined : { stateDir, dir: join(stateDir, "cache", "code") };
    this.readable = this.writable && isPrivate(this.writable) ? this.writable : undefined;
  }

  /** The cache in the state dir `env` names, or none (a state dir peerpost would refuse). */
  static forEnvironment(env: NodeJS.ProcessEnv, variant: string): CodeCache {
    let stateDir: string | undefined;
    try {
      stateDir = resolveStateDirPath(env.PEERPOST_HOME || undefined).path;
    } catch {
      stateDir = undefined;
    }
    return new CodeCache(stateDir, /^[a-z-]{1,32}$/.test(variant) ? variant : "other");
  }

  /** Runs `file` as a CommonJS module; its `require("./…")` calls load through this cache too. */
  load(file: string): unknown {
    const known = this.modules.get(file);
    if (known) return known.exports;
    // The bundles are the plugin's, wherever the host installed it: read as they are, not as state files.
    const fd = openSync(file, "r");
    let source: string;
    let identity: string;
    try {
      const stat = fstatSync(fd, { bigint: true });
      identity = `${stat.dev}:${stat.ino}:${stat.size}:${stat.ctimeNs}:${stat.mtimeNs}`;
      source = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
    // One cache per installed file, node build and event: hosts that each run their own copy of a
    // program, or run it with different nodes, keep one each.
    const prefix = `${basename(file)}.${fnv1a64(`${file}:${process.version}:${process.arch}:${this.variant}`)}.`;
    const name = `${prefix}${fnv1a64(identity)}.bin`;
    const cached = this.readable === undefined ? undefined : readCache(join(this.readable.dir, name));
    const script = new Script(compiledSource(source), { filename: file, ...(cached ? { cachedData: cached } : {}) });
    if (cached === undefined || script.cachedDataRejected) this.pending.push({ script, name, prefix });
    const loaded: LoadedModule = { exports: {} };
    this.modules.set(file, loaded);
    const directory = dirname(file);
    const plainRequire = createRequire(file);
    const requireHere = (id: string) => (id.startsWith("./") ? this.load(join(directory, id)) : plainRequire(id));
    try {
      (script.runInThisContext() as (...args: unknown[]) => void).call(loaded.exports, loaded.exports, requireHere, loaded, file, directory);
    } catch (error) {
      // As Node's loader: a module that threw is not kept half-loaded.
      this.modules.delete(file);
      throw error;
    }
    return loaded.exports;
  }

  /** Writes the compiled code of what ran without a usable cache, with every function compiled so far. */
  save(): void {
    const location = this.writable;
    if (location === undefined || this.pending.length === 0) return;
    try {
      // Never the state dir itself, nor anything above it: only cache/code inside one that is private.
      checkAncestors(location.stateDir);
      checkPrivateDir(location.stateDir);
      ensurePrivateDir(dirname(location.dir), { parents: false });
      ensurePrivateDir(location.dir, { parents: false });
    } catch {
      return;
    }
    const written: Pending[] = [];
    for (const item of this.pending.splice(0)) {
      try {
        writeCache(location.dir, item);
        written.push(item);
      } catch {
        // A full disk or a racing hook: the next run compiles and tries again.
      }
    }
    try {
      prune(location.dir, written);
    } catch {
      // Pruning is housekeeping; the next writer does it.
    }
  }
}
