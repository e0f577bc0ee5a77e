// The hook loader (dist/<host>/hooks.cjs) runs the hook program, and on PostgreSQL the pg driver, from
// V8's code cache in the private state dir: written once, read as it is afterwards, never trusted
// when it is not a private file of this user, and never a reason for a hook to fail.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, cpSync, existsSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { onCleanup, tempDir } from "./helpers/temp.js";
import { testEachBackend } from "./helpers/backends.js";
import { hookBundle, runHook, runHookFile } from "./helpers/hooks.js";
import { openPeerpost } from "../core/peerpost.js";
import { cacheFiles, ignoresUntrustedCacheFiles, plantedCodeRunsOnlyFromPrivateDir } from "./helpers/code-cache.js";

const PROMPT = { session_id: "me", hook_event_name: "UserPromptSubmit", prompt: "hi" };

/** A state dir with one message waiting for claude:me, which every prompt hook flags. */
async function withPendingMail(t: Parameters<typeof tempDir>[0], backend: Record<string, string> = {}) {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  // On PostgreSQL, prompt hooks connect every time (so they load the driver, whose cache is checked too).
  const env = { HOME: home, PEERPOST_HOME: stateDir, ...backend, ...(backend.PEERPOST_STORE ? { PEERPOST_MIRROR_TRUST_MS: "0" } : {}) };
  const peerpost = openPeerpost({ env, home });
  onCleanup(t, () => peerpost.backend.close());
  await peerpost.mailbox.send({ from: "codex:a", fromVerified: true, to: "claude:me", body: "hello", anticipation: "reply" });
  const codeDir = join(stateDir, "cache", "code");
  return { home, stateDir, env, codeDir };
}

async function flagsTheMail(env: Record<string, string>, hooks = hookBundle("claude-code")): Promise<void> {
  const result = await runHookFile(hooks, "user-prompt", PROMPT, env);
  assert.equal(result.code, 0);
  assert.equal(result.stderr, "");
  assert.match(result.stdout, /1 new message from other AI agents on this machine \(codex:a\)/);
}

testEachBackend("the hook program runs from a private code cache, written once and then only read", async (t, backend) => {
  const { env, codeDir } = await withPendingMail(t, backend);
  await flagsTheMail(env);
  const programs = ["hook-program.cjs", ...(backend.PEERPOST_STORE ? ["pg.cjs"] : [])];
  assert.equal(statSync(codeDir).mode & 0o777, 0o700);
  const first = new Map<string, string>();
  for (const program of programs) {
    const [name, ...more] = cacheFiles(codeDir, program);
    assert.ok(name !== undefined && more.length === 0, `one cache for ${program}: ${readdirSync(codeDir).join(", ")}`);
    const stat = statSync(join(codeDir, name));
    assert.equal(stat.mode & 0o777, 0o600, name);
    assert.ok(stat.size > 10_000, `${name} holds compiled code (${stat.size} bytes)`);
    first.set(name, `${stat.ino}:${stat.mtimeMs}`);
  }
  assert.deepEqual(readdirSync(codeDir).filter((name) => name.endsWith(".tmp")), [], "no temporary file is left");
  await flagsTheMail(env);
  // V8 accepted it: a rejected cache would have been written again (a new file renamed in).
  for (const [name, identity] of first) {
    const stat = statSync(join(codeDir, name));
    assert.equal(`${stat.ino}:${stat.mtimeMs}`, identity, `${name} was read, not rewritten`);
  }
});

test("a corrupt, linked, foreign or open-to-others cache file is not used, and the hook answers the same", async (t) => {
  const { home, env, codeDir } = await withPendingMail(t);
  await flagsTheMail(env);
  const [name] = cacheFiles(codeDir, "hook-program.cjs");
  assert.ok(name);
  await ignoresUntrustedCacheFiles(join(codeDir, name), home, () => flagsTheMail(env));
});

test("compiled code planted in a linked or open cache directory never runs", async (t) => {
  const { home, env, codeDir } = await withPendingMail(t);
  await flagsTheMail(env);
  const [name] = cacheFiles(codeDir, "hook-program.cjs");
  assert.ok(name);
  const program = join(hookBundle("claude-code"), "..", "hook-program.cjs");
  await plantedCodeRunsOnlyFromPrivateDir(codeDir, name, program, home, async () => (await runHook("claude-code", "user-prompt", PROMPT, env)).stdout, () => flagsTheMail(env));
});

test("a broken hook program still gives the prompt silence and exit 0", async (t) => {
  const { env } = await withPendingMail(t);
  const plugin = join(tempDir(t), "claude-code");
  cpSync(join(hookBundle("claude-code"), ".."), plugin, { recursive: true });
  writeFileSync(join(plugin, "hook-program.cjs"), "this is not JavaScript {");
  const silent = async (event: string, what: string) => {
    const result = await runHookFile(join(plugin, "hooks.cjs"), event, PROMPT, env);
    assert.deepEqual({ code: result.code, stdout: result.stdout, stderr: result.stderr }, { code: 0, stdout: "", stderr: "" }, what);
  };
  for (const event of ["user-prompt", "session-start"]) await silent(event, event);
  rmSync(join(plugin, "hook-program.cjs"));
  await silent("user-prompt", "a missing program");
});

test("each hook event keeps its own cache, and leftovers of killed hooks go", async (t) => {
  const { env, codeDir } = await withPendingMail(t);
  await flagsTheMail(env);
  const leftover = join(codeDir, ".hook-program.cjs.killed.tmp");
  writeFileSync(leftover, "half", { mode: 0o600 });
  const old = new Date(Date.now() - 2 * 3_600_000);
  utimesSync(leftover, old, old);
  assert.equal((await runHook("claude-code", "session-start", { ...PROMPT, hook_event_name: "SessionStart", source: "startup" }, env)).code, 0);
  assert.equal(cacheFiles(codeDir, "hook-program.cjs").length, 2, readdirSync(codeDir).join(", "));
  assert.equal(existsSync(leftover), false, "an hour-old temporary file was removed");
});

test("a new version of the hook program gets a cache of its own, and the old one goes", async (t) => {
  const { env, codeDir } = await withPendingMail(t);
  const plugin = join(tempDir(t), "claude-code");
  cpSync(join(hookBundle("claude-code"), ".."), plugin, { recursive: true });
  const hooks = join(plugin, "hooks.cjs");
  await flagsTheMail(env, hooks);
  const [before] = cacheFiles(codeDir, "hook-program.cjs");
  appendFileSync(join(plugin, "hook-program.cjs"), "\n// the next version\n");
  await flagsTheMail(env, hooks);
  const after = cacheFiles(codeDir, "hook-program.cjs");
  assert.equal(after.length, 1, after.join(", "));
  assert.notEqual(after[0], before);
});

test("hosts that each run their own hook program keep a cache each", async (t) => {
  const { env, codeDir } = await withPendingMail(t);
  const identities = () => Object.fromEntries(readdirSync(codeDir).map((name) => [name, statSync(join(codeDir, name)).ino]));
  const codexPrompt = async () => assert.equal((await runHook("codex", "user-prompt", { ...PROMPT, session_id: "019a0000-0000-7000-8000-000000000001" }, env)).code, 0);
  await flagsTheMail(env);
  await codexPrompt();
  const both = identities();
  assert.equal(Object.keys(both).filter((name) => name.startsWith("hook-program.cjs.")).length, 2, Object.keys(both).join(", "));
  await flagsTheMail(env);
  await codexPrompt();
  assert.deepEqual(identities(), both, "neither host's cache pushed the other's out");
});

test("a file-store prompt hook that flags mail loads neither node:crypto nor node:zlib (each costs a hook milliseconds)", async (t) => {
  const { home, env } = await withPendingMail(t);
  const preload = join(home, "loaded.cjs");
  const loaded = join(home, "loaded.json");
  writeFileSync(preload, `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(loaded)}, JSON.stringify(process.moduleLoadList)));`);
  const withPreload = { ...env, NODE_OPTIONS: `--require ${preload}` };
  await flagsTheMail(withPreload);
  await flagsTheMail(withPreload);
  const modules = JSON.parse(readFileSync(loaded, "utf8")) as string[];
  assert.ok(modules.includes("NativeModule fs"), "the list names what was loaded");
  assert.deepEqual(modules.filter((name) => /^NativeModule (crypto|zlib)$/.test(name)), []);
});

test("a hook with no state dir creates none, not even for its code cache", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "missing");
  const result = await runHook("claude-code", "user-prompt", PROMPT, { HOME: home, PEERPOST_HOME: stateDir });
  assert.equal(result.code, 0);
  assert.equal(result.stdout, "");
  assert.equal(existsSync(stateDir), false);
});
