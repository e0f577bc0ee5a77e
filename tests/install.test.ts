// Installing peerpost as a user: the published tarball carries everything dist/ needs, so
// `npm install -g` adds one package; and no package a clone installs needs a compiler.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { REPO_ROOT } from "./helpers/mcp.js";
import { lockPackages, needsBuild, npmCache, readRepoFile } from "./helpers/packages.js";

/** What dist/ cannot bundle: the pty library of `peerpost run` is native. Optional: without it the wrapper runs the host directly. */
const NATIVE_OPTIONAL = ["@lydell/node-pty"];

test("package.json lists no runtime dependencies (dist/ bundles every package it loads) but the native pty library, optional, and the LICENSE ships", () => {
  const manifest = JSON.parse(readRepoFile("package.json")) as { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; files: string[]; license: string };
  assert.deepEqual(manifest.dependencies ?? {}, {});
  assert.deepEqual(Object.keys(manifest.optionalDependencies ?? {}), NATIVE_OPTIONAL);
  assert.equal(manifest.license, "MIT");
  assert.ok(manifest.files.includes("LICENSE"));
  assert.match(readRepoFile("LICENSE"), /^MIT License\n\nCopyright \(c\) \d{4} peerpost contributors\n/);
});

test("no package the lock file installs (outside optionalDependencies) needs a compiler", () => {
  const problems: string[] = [];
  for (const [path, entry] of Object.entries(lockPackages())) {
    if (path === "" || entry.optional || !entry.hasInstallScript) continue;
    const reason = needsBuild(join(REPO_ROOT, path));
    if (reason) problems.push(`${path}: ${reason}`);
  }
  assert.deepEqual(problems, []);
  assert.ok(!Object.keys(lockPackages()).some((path) => path.endsWith("/better-sqlite3")), "the SQLite bench baseline comes from npm run bench:setup");
});

test("npm pack, then npm install -g from the tarball, installs peerpost and at most its native pty library, and it runs", (t) => {
  const dir = tempDir(t);
  const env = { ...process.env, npm_config_cache: npmCache() };
  const pack = spawnSync("npm", ["pack", "--pack-destination", dir, "--json"], { cwd: REPO_ROOT, encoding: "utf8", env });
  assert.equal(pack.status, 0, pack.stderr);
  const [packed] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  assert.ok(packed!.files.some((file) => file.path === "LICENSE"));
  const prefix = join(dir, "prefix");
  const install = spawnSync("npm", ["install", "-g", join(dir, packed!.filename), "--prefix", prefix, "--offline", "--no-audit", "--no-fund"], { encoding: "utf8", env });
  assert.equal(install.status, 0, install.stderr);
  const modules = join(prefix, "lib/node_modules");
  assert.deepEqual(readdirSync(modules), ["peerpost"]);
  const beside = join(modules, "peerpost/node_modules");
  const installed = existsSync(beside) ? readdirSync(beside).flatMap((name) => (name.startsWith("@") ? readdirSync(join(beside, name)).map((inner) => `${name}/${inner}`) : [name])).filter((name) => !name.startsWith(".")) : [];
  assert.deepEqual(installed.filter((name) => !NATIVE_OPTIONAL.some((native) => name === native || name.startsWith(`${native}-`))), [], "no package dist/ bundles is installed beside it");
  const version = spawnSync(join(prefix, "bin/peerpost"), ["--version"], { encoding: "utf8" });
  assert.equal(version.status, 0, version.stderr);
  assert.equal(version.stdout.trim(), (JSON.parse(readRepoFile("package.json")) as { version: string }).version);
});
