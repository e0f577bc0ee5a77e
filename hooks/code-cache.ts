// Runs a CommonJS bundle (and the bundles it requires by relative path) from V8's code cache. Compiling
// the hook program and the pg driver (~180 KB) is the largest part of a prompt hook's own time; taking
// the compiled code from the cache costs a fraction of it.
// The cache is code, so it lives only in the private state dir (cache/code, checked like every state
// file: this user's, no links, writable by no one else), and is never created with the state dir itself.
// A file's cache is named after its identity (device, inode, size, modification time) and node's build:
// a new plugin version or node gets a cache of its own, and V8 rejects any data it did not write for
// this source and these flags. Any problem with the cache means compiling as if there were none.
import { closeSync, constants, existsSync, fstatSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { Script } from "node:vm";
import { fnv1a64 } from "../core/hash.js";
import { resolveStateDirPath } from "../core/state-dir.js";
import { ensurePrivateDir, openStateFile } from "../core/trust.js";

/** A script whose compiled code goes into the cache when the process exits (none or a stale one was found). */
interface Pending {
  script: Script;
  name: string;
  prefix: string;
}

interface LoadedModule {
  exports: unknown;
}

/** Caches of other files kept beside the one just written (other hosts' programs, vendored modules, versions). */
const MAX_OTHER_CACHES = 15;

/** The wrapper Node's CommonJS loader puts around a file. */
const wrap = (source: string) => `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;

/**
 * Creates `<state dir>/cache/code` where missing and checks every directory on the way is private: only
 * before writing. A read needs no more than the checks on the file it opens (a link, or a file another
 * user could have put or changed, is not read).
 */
function preparePrivateDir({ stateDir, dir }: Location): boolean {
  if (!existsSync(stateDir)) return false;
  for (const path of [stateDir, join(stateDir, "cache"), dir]) ensurePrivateDir(path);
  return true;
}

/** The cache file's bytes, or undefined when it is missing, unreadable or not a private file of this user. */
function readCache(path: string): Buffer | undefined {
  try {
    const fd = openStateFile(path, constants.O_RDONLY);
    try {
      return readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** Written under a private temporary name, then renamed: a reader sees a whole cache or none. */
function writeCache(dir: string, item: Pending): void {
  const data = item.script.createCachedData();
  const temporary = join(dir, `.${item.name}.${process.pid}.tmp`);
  const fd = openStateFile(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
  try {
    writeSync(fd, data);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, join(dir, item.name));
  // The caches of this file's earlier versions are of no more use; plugin versions a host installs side
  // by side are other files, whose caches go once there are more than a few. A racing hook may have
  // removed one already.
  const caches = readdirSync(dir).filter((other) => other.endsWith(".bin") && other !== item.name);
  for (const other of caches.filter((other) => other.startsWith(item.prefix))) rmSync(join(dir, other), { force: true });
  const others = caches.filter((other) => !other.startsWith(item.prefix)).map((other) => ({ other, mtime: statSync(join(dir, other), { throwIfNoEntry: false })?.mtimeMs ?? 0 }));
  for (const { other } of others.sort((a, b) => b.mtime - a.mtime).slice(MAX_OTHER_CACHES)) rmSync(join(dir, other), { force: true });
}

/** Where a cache lives: `dir` inside `stateDir`, which the cache never creates. */
interface Location {
  stateDir: string;
  dir: string;
}

export class CodeCache {
  private readonly modules = new Map<string, LoadedModule>();
  private readonly pending: Pending[] = [];
  private readonly location: Location | undefined;

  constructor(stateDir: string | undefined) {
    this.location = stateDir === undefined ? undefined : { stateDir, dir: join(stateDir, "cache", "code") };
  }

  /** The cache in the state dir `env` names, or none (a state dir peerpost would refuse). */
  static forEnvironment(env: NodeJS.ProcessEnv): CodeCache {
    try {
      return new CodeCache(resolveStateDirPath(env.PEERPOST_HOME || undefined).path);
    } catch {
      return new CodeCache(undefined);
    }
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
      identity = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}`;
      source = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
    // One cache per installed file and node build: hosts that each run their own copy of a program, or
    // run it with different nodes, keep one each.
    const prefix = `${basename(file)}.${fnv1a64(`${file}:${process.version}:${process.arch}`)}.`;
    const name = `${prefix}${fnv1a64(identity)}.bin`;
    const cached = this.location === undefined ? undefined : readCache(join(this.location.dir, name));
    const script = new Script(wrap(source), { filename: file, ...(cached ? { cachedData: cached } : {}) });
    if (this.location !== undefined && (cached === undefined || script.cachedDataRejected)) this.pending.push({ script, name, prefix });
    const loaded: LoadedModule = { exports: {} };
    this.modules.set(file, loaded);
    const directory = dirname(file);
    const plainRequire = createRequire(file);
    const requireHere = (id: string) => (id.startsWith("./") ? this.load(join(directory, id)) : plainRequire(id));
    script.runInThisContext()(loaded.exports, requireHere, loaded, file, directory);
    return loaded.exports;
  }

  /** Writes the compiled code of what ran without a usable cache, with every function compiled so far. */
  save(): void {
    const location = this.location;
    if (location === undefined || this.pending.length === 0) return;
    try {
      if (!preparePrivateDir(location)) return;
      for (const item of this.pending.splice(0)) writeCache(location.dir, item);
    } catch {
      // A directory that fails the checks, a full disk or a racing hook: the next run compiles and tries again.
    }
  }
}
