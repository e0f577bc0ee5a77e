// A contributor's first step: `npm ci` in a clean clone, offline from the npm cache, with no compiler.
// full suite only: it copies ~90 MB of packages out of the npm cache.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { delimiter, join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { REPO_ROOT } from "./helpers/mcp.js";
import { lockPackages, needsBuild, npmCache } from "./helpers/packages.js";

/** Compilers and make, as Debian names them. */
const COMPILERS = /^(cc|c\+\+|gcc.*|g\+\+.*|make|gmake|clang.*|.*-linux-gnu-(gcc|g\+\+|cc|c\+\+).*)$/;

test("a clean clone's npm ci succeeds offline with no compiler on PATH, and builds nothing", (t) => {
  const dir = tempDir(t);
  for (const name of ["package.json", "package-lock.json"]) copyFileSync(join(REPO_ROOT, name), join(dir, name));
  const bin = join(dir, ".bin");
  mkdirSync(bin);
  for (const source of (process.env.PATH ?? "").split(delimiter).filter(Boolean)) {
    if (!existsSync(source)) continue;
    for (const name of readdirSync(source)) if (!COMPILERS.test(name) && !existsSync(join(bin, name))) symlinkSync(join(source, name), join(bin, name));
  }
  const found = spawnSync("sh", ["-c", "command -v cc || command -v g++ || command -v make"], { env: { PATH: bin }, encoding: "utf8" });
  assert.notEqual(found.status, 0, `a compiler is still on PATH: ${found.stdout}`);
  const ci = spawnSync("npm", ["ci", "--offline", "--no-audit", "--no-fund"], { cwd: dir, encoding: "utf8", env: { ...process.env, PATH: bin, npm_config_cache: npmCache() } });
  assert.equal(ci.status, 0, ci.stderr);
  const built = Object.keys(lockPackages()).filter((path) => path !== "" && existsSync(join(dir, path)) && needsBuild(join(dir, path)));
  assert.deepEqual(built, []);
  assert.ok(existsSync(join(dir, "node_modules/typescript/package.json")));
});
