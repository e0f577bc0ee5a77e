// State dir safety and permissions, and the PEERPOST_* variables.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureStateDir, resolveStateDirPath } from "../core/security/state-dir.js";
import { loadConfig } from "../core/common/config.js";
import { openPeerpost } from "../core/peerpost.js";
import { PeerpostError } from "../core/common/errors.js";
import { tempDir } from "./helpers/temp.js";

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    assert.ok(error instanceof PeerpostError, String(error));
    assert.ok(error.hint, "errors carry a hint");
    return error.code;
  }
  return undefined;
}

test("the state dir defaults to ~/.peerpost, is created 0700, and an existing one's mode is left as it is", (t) => {
  const home = tempDir(t);
  const info = ensureStateDir(undefined, home);
  assert.equal(info.path, join(home, ".peerpost"));
  assert.equal(info.source, "default");
  assert.equal(statSync(info.path).mode & 0o777, 0o700);
  chmodSync(info.path, 0o755);
  const again = ensureStateDir(undefined, home);
  assert.equal(again.mode, "0755");
  assert.equal(statSync(info.path).mode & 0o777, 0o755, "a dir peerpost did not just create is never chmodded");
});

test("PEERPOST_HOME accepts absolute and ~/ paths and refuses relative ones, /, the home dir and host config dirs", (t) => {
  const home = tempDir(t);
  assert.equal(resolveStateDirPath("~/mail", home).path, join(home, "mail"));
  assert.equal(resolveStateDirPath(join(home, "abs"), home).path, join(home, "abs"));
  assert.equal(codeOf(() => resolveStateDirPath("relative/dir", home)), "invalid_arguments");
  assert.equal(codeOf(() => resolveStateDirPath("/", home)), "state_io_error");
  assert.equal(codeOf(() => resolveStateDirPath(home, home)), "state_io_error");
  assert.equal(codeOf(() => resolveStateDirPath("~", home)), "state_io_error");
  assert.equal(codeOf(() => resolveStateDirPath(home + "/", home)), "state_io_error");
  for (const hostDir of [".claude", ".codex", ".copilot", ".grok"]) {
    assert.equal(codeOf(() => resolveStateDirPath(`~/${hostDir}`, home)), "state_io_error", hostDir);
    assert.equal(codeOf(() => resolveStateDirPath(`~/${hostDir}/peerpost`, home)), "state_io_error", hostDir);
  }
  assert.equal(codeOf(() => resolveStateDirPath("~/.claude-other", home)), undefined, "only the exact host dirs are refused");
});

test("a state dir path that is a file, or that cannot be created, is a clear error", (t) => {
  const home = tempDir(t);
  writeFileSync(join(home, "file"), "x");
  assert.equal(codeOf(() => ensureStateDir(join(home, "file"), home)), "state_io_error");
  assert.equal(codeOf(() => ensureStateDir(join(home, "file", "below"), home)), "state_io_error");
  if (process.getuid?.() !== 0) {
    mkdirSync(join(home, "locked"), { mode: 0o500 });
    assert.equal(codeOf(() => ensureStateDir(join(home, "locked", "state"), home)), "permission_denied");
  }
});

test("openPeerpost without create does not create a missing state dir", (t) => {
  const home = tempDir(t);
  assert.equal(openPeerpost({ env: { PEERPOST_HOME: join(home, "nope") }, home, create: false }), undefined);
  assert.throws(() => statSync(join(home, "nope")));
});

test("PEERPOST_* variables are parsed once; flags take 1/true/yes/on and 0/false/no/off; bad values name the variable", () => {
  const defaults = loadConfig({});
  assert.equal(defaults.maxHops, 4);
  assert.equal(defaults.reminderIntervalMs, 30_000);
  assert.equal(defaults.reminderLimit, 3);
  assert.equal(defaults.push, true);
  for (const word of ["1", "true", "YES", " on "]) assert.equal(loadConfig({ PEERPOST_PUSH: word }).push, true, word);
  for (const word of ["0", "false", "No", "off"]) assert.equal(loadConfig({ PEERPOST_PUSH: word }).push, false, word);
  assert.equal(loadConfig({ PEERPOST_MAX_HOPS: "7" }).maxHops, 7);
  assert.deepEqual(loadConfig({ PEERPOST_ROLES: "reviewer, tester" }).roles, ["reviewer", "tester"]);
  assert.equal(loadConfig({ PEERPOST_NOW: "2026-01-02T03:04:05Z" }).now(), Date.parse("2026-01-02T03:04:05Z"));
  const bad: Array<[string, string]> = [
    ["PEERPOST_PUSH", "maybe"],
    ["PEERPOST_MAX_HOPS", "four"],
    ["PEERPOST_MAX_HOPS", "0"],
    ["PEERPOST_MAX_HOPS", "1.5"],
    ["PEERPOST_REMINDER_INTERVAL_MS", "-1"],
    ["PEERPOST_HOST", "vim"],
    ["PEERPOST_NOW", "yesterday"],
    ["PEERPOST_ROLES", "ok,not ok"],
  ];
  for (const [name, value] of bad) {
    try {
      loadConfig({ [name]: value });
      assert.fail(`${name}=${value} should be refused`);
    } catch (error) {
      assert.ok(error instanceof PeerpostError);
      assert.equal(error.code, "invalid_arguments");
      assert.match(error.message, new RegExp(name));
      assert.equal(error.details?.variable, name);
    }
  }
});

test("docs/settings.md documents every PEERPOST_* variable", async () => {
  const { VARIABLES } = await import("../core/common/config.js");
  const { readFileSync } = await import("node:fs");
  const readme = readFileSync(new URL("../../docs/settings.md", import.meta.url), "utf8");
  for (const name of Object.keys(VARIABLES)) assert.ok(readme.includes(`| \`${name}\` |`), `${name} is in docs/settings.md's table`);
});

test("the bundles' zod list holds every zod/mini function the core uses", async () => {
  const { readFileSync, readdirSync } = await import("node:fs");
  const exported = new Set(Object.keys(await import("../core/records/zod-exports.js")));
  const coreDir = new URL("../../core/", import.meta.url);
  const used = new Set<string>();
  // core/ is grouped in folders: every module that imports core/records/zod.ts, at any depth.
  for (const name of readdirSync(coreDir, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"))) {
    const source = readFileSync(new URL(name, coreDir), "utf8");
    if (!/from "(\.\/|\.\.\/records\/)zod\.js"/.test(source)) continue;
    for (const match of source.matchAll(/\bz\.([A-Za-z_]+)/g)) used.add(match[1]!);
  }
  assert.ok(used.size > 10, "found the core's zod calls");
  for (const name of used) assert.ok(exported.has(name), `core/records/zod-exports.ts exports ${name}`);
});
