// The `peerpost` command (dist/cli.cjs) runs its program, cli-light.cjs or cli-program.cjs, from V8's code
// cache in the private state dir, as the hooks do: a cache per command, written once and read as it is afterwards,
// never trusted when it is not a private file of this user in a private dir, and never a reason for a
// command to answer differently.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { onCleanup, tempDir } from "./helpers/temp.js";
import { cli } from "./helpers/cli.js";
import { CLI } from "./helpers/mcp.js";
import { cacheFiles, ignoresUntrustedCacheFiles, plantedCodeRunsOnlyFromPrivateDir } from "./helpers/code-cache.js";
import { cacheFileBytes } from "../core/common/code-cache.js";
import { openPeerpost } from "../core/peerpost.js";

/** The program status and --version run (core/cli/light-words.ts). */
const LIGHT = join(CLI, "..", "cli-light.cjs");

/** A state dir with one message, and the status output every run must give for it. */
async function withMessage(t: TestContext) {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  const peerpost = openPeerpost({ env, home });
  onCleanup(t, () => peerpost.backend.close());
  const { message: { id: messageId } } = await peerpost.mailbox.send({ from: "codex:a", fromVerified: true, to: "claude:me", body: "hello", anticipation: "reply" });
  const codeDir = join(stateDir, "cache", "code");
  const status = async () => {
    const result = await cli(env, "status", messageId, "--json");
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, "");
    const shown = JSON.parse(result.stdout) as { message: { id: string; from: string; status: string } };
    assert.deepEqual({ id: shown.message.id, from: shown.message.from, status: shown.message.status }, { id: messageId, from: "codex:a", status: "queued" });
  };
  return { home, env, codeDir, status };
}

async function version(env: Record<string, string>): Promise<string> {
  const result = await cli(env, "--version");
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

test("each command runs from a private code cache of its own, written once and then only read", async (t) => {
  const { env, codeDir, status } = await withMessage(t);
  await status();
  assert.equal(statSync(codeDir).mode & 0o777, 0o700);
  const [name, ...more] = cacheFiles(codeDir, "cli-light.cjs");
  assert.ok(name !== undefined && more.length === 0, `one cache: ${readdirSync(codeDir).join(", ")}`);
  const stat = statSync(join(codeDir, name));
  assert.equal(stat.mode & 0o777, 0o600);
  assert.ok(stat.size > 100_000, `it holds compiled code (${stat.size} bytes)`);
  await status();
  // V8 accepted it: a rejected cache would have been written again (a new file renamed in).
  const again = statSync(join(codeDir, name));
  assert.equal(`${again.ino}:${again.mtimeMs}`, `${stat.ino}:${stat.mtimeMs}`, "the cache was read, not rewritten");
  const printed = await version(env);
  assert.equal(cacheFiles(codeDir, "cli-light.cjs").length, 2, "--version keeps a cache of its own");
  assert.equal(await version(env), printed);
  const typo = await cli(env, "statuss");
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /did you mean status\?/);
  assert.equal(cacheFiles(codeDir, "cli-program.cjs").length, 0, "a word that names no command gets no cache");
  const help = await cli(env, "help");
  assert.equal(help.code, 0, help.stderr);
  assert.equal(cacheFiles(codeDir, "cli-program.cjs").length, 1, "help runs the full program, with a cache of its own");
  assert.equal(cacheFiles(codeDir, "cli-light.cjs").length, 2);
  assert.deepEqual(readdirSync(codeDir).filter((file) => file.endsWith(".tmp")), [], "no temporary file is left");
});

test("a corrupt, linked, foreign or open-to-others CLI cache is not used, and the command answers the same", async (t) => {
  const { home, codeDir, status } = await withMessage(t);
  await status();
  const [name] = cacheFiles(codeDir, "cli-light.cjs");
  assert.ok(name);
  await ignoresUntrustedCacheFiles(join(codeDir, name), home, status);
});

test("compiled code planted in a linked or open CLI cache directory never runs", async (t) => {
  const { home, env, codeDir } = await withMessage(t);
  const printed = await version(env);
  const [name] = cacheFiles(codeDir, "cli-light.cjs");
  assert.ok(name);
  await plantedCodeRunsOnlyFromPrivateDir(codeDir, name, LIGHT, home, () => version(env), async () => assert.equal(await version(env), printed));
});

test("a command run without a state dir creates none for its code cache", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "missing");
  assert.match(await version({ HOME: home, PEERPOST_HOME: stateDir }), /^\d+\.\d+\.\d+/);
  assert.equal(existsSync(stateDir), false);
});

test("a cache file's check reads the same for compiled code at any alignment in memory", () => {
  // V8 hands over its cached data wherever it sits; the check reads it by 32-bit words.
  const data = Buffer.from(Array.from({ length: 40_003 }, (_, i) => (i * 7919) & 0xff));
  const shifted = Buffer.alloc(data.length + 1);
  data.copy(shifted, 1);
  assert.deepEqual(cacheFileBytes(shifted.subarray(1)), cacheFileBytes(data));
  // And every word of a short one counts: a change anywhere changes the check.
  const changed = Buffer.from(data.subarray(0, 4_000));
  changed.writeUInt8(changed.readUInt8(1_001) ^ 1, 1_001);
  assert.notDeepEqual(cacheFileBytes(changed).subarray(0, 4), cacheFileBytes(data.subarray(0, 4_000)).subarray(0, 4));
});
