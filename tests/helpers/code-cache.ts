// What the code cache tests (hooks and CLI) share: finding a program's cache files, compiled code V8
// would run in place of a program if the cache's checks let it, and the untrusted caches a run must
// ignore, answering as without them.
import assert from "node:assert/strict";
import { chmodSync, chownSync, existsSync, lstatSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Script } from "node:vm";
import { cacheFileBytes, compiledSource, wrapCommonJs } from "../../core/common/code-cache.js";

/** The cache files of `program` (a file name such as hook-program.cjs) in a cache dir. */
export const cacheFiles = (dir: string, program: string): string[] => (existsSync(dir) ? readdirSync(dir).filter((name) => name.startsWith(`${program}.`)) : []);

/** A cache file (its check right) of code compiled to the same length as `programPath` that only prints PLANTED: what V8 would run if given it. */
export function plantedCache(programPath: string): Buffer {
  const compiledLength = compiledSource(readFileSync(programPath, "utf8")).length;
  const payload = 'require("node:fs").writeSync(1, "PLANTED\\n"); process.exit(0);';
  const planted = wrapCommonJs(payload + "//" + " ".repeat(compiledLength - wrapCommonJs(payload).length - 2));
  assert.equal(planted.length, compiledLength);
  return cacheFileBytes(new Script(planted, { filename: programPath }).createCachedData());
}

/**
 * Spoils the cache file `cache` in each way a cache must not be trusted (garbage, writable by others, a
 * link, another user's), runs `answers` (which asserts the run's usual answer) after each, and checks a
 * new private cache took its place each time. `home` is a dir for the link's target.
 */
export async function ignoresUntrustedCacheFiles(cache: string, home: string, answers: () => Promise<void>): Promise<void> {
  const rewritten = (before: number) => {
    const stat = statSync(cache);
    assert.ok(stat.isFile() && stat.ino !== before && (stat.mode & 0o777) === 0o600, "a new private cache file took its place");
    return stat.ino;
  };
  let ino = statSync(cache).ino;

  // Garbage of the right size: V8 checks what it reads and compiles instead.
  writeFileSync(cache, Buffer.alloc(statSync(cache).size, 0x5a));
  await answers();
  ino = rewritten(ino);

  // Torn: whole at its start (V8's header), zeroes after, as a crash leaves a file whose data never reached
  // the disk. V8 checks only its header: given this, it crashed the process, on every run after.
  const torn = readFileSync(cache);
  torn.fill(0, Math.min(64 * 1024, torn.length >> 1));
  writeFileSync(cache, torn);
  await answers();
  ino = rewritten(ino);

  // A page zeroed in its middle, its start and end whole (a block the disk lost): the check samples all of it.
  const holed = readFileSync(cache);
  holed.fill(0, holed.length >> 1, (holed.length >> 1) + 4096);
  writeFileSync(cache, holed);
  await answers();
  ino = rewritten(ino);

  // Writable by others: someone else could have changed it.
  chmodSync(cache, 0o666);
  await answers();
  ino = rewritten(ino);

  // A link is not followed, even to a cache V8 would accept, and what it points at stays as it was.
  // The cache is moved to be the link's target, not removed: a freed inode could be the new file's.
  const target = join(home, "elsewhere.bin");
  const planted = readFileSync(cache);
  renameSync(cache, target);
  symlinkSync(target, cache);
  await answers();
  assert.ok(lstatSync(cache).isFile(), "the link was replaced by a file, not written through");
  assert.deepEqual(readFileSync(target), planted, "the link's target is untouched");
  ino = rewritten(ino);

  if (process.getuid?.() === 0) {
    // Another user's file (only root can make one here).
    chownSync(cache, 4242, 4242);
    await answers();
    rewritten(ino);
  }
}

/**
 * Plants compiled code of `program` as the cache `name` in `codeDir`: `stdout` (a run's output) shows it
 * runs from the private dir, then behind a link to another dir and in a dir open to others it does not,
 * `answers` asserting the usual answer, and nothing is written there. `home` is a dir to move it to.
 */
export async function plantedCodeRunsOnlyFromPrivateDir(codeDir: string, name: string, program: string, home: string, stdout: () => Promise<string>, answers: () => Promise<void>): Promise<void> {
  const planted = plantedCache(program);
  // Why the checks matter: in the private cache dir, V8 runs such code (it checks only the source's length).
  writeFileSync(join(codeDir, name), planted, { mode: 0o600 });
  assert.equal(await stdout(), "PLANTED\n");

  // The same file behind a link to another directory.
  const elsewhere = join(home, "elsewhere");
  renameSync(codeDir, elsewhere);
  symlinkSync(elsewhere, codeDir);
  await answers();
  assert.deepEqual(readFileSync(join(elsewhere, name)), planted, "nothing was written through the link");

  // The same file in a directory others can write to.
  rmSync(codeDir);
  renameSync(elsewhere, codeDir);
  chmodSync(codeDir, 0o777);
  await answers();
  assert.deepEqual(readFileSync(join(codeDir, name)), planted, "nothing was written into an open directory");
}
