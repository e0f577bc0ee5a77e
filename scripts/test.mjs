// The whole test suite, as `npm test` runs it: type check, dist freshness, transpile, then node --test.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const only = process.argv.slice(2);

function run(label, command, args) {
  console.error(`\n> ${label}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`\n${label} failed (exit ${result.status ?? result.signal})`);
    process.exit(result.status || 1);
  }
}

run("type check", process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "."]);
run("host CLIs for end-to-end tests", process.execPath, [join(root, "scripts/setup-hosts.mjs")]);
run("dist is up to date", process.execPath, [join(root, "scripts/build.mjs"), "--check"]);
run("transpile", process.execPath, [join(root, "scripts/transpile.mjs")]);
const testDir = join(root, ".build/tests");
const files = readdirSync(testDir)
  .filter((name) => name.endsWith(".test.js"))
  .filter((name) => only.length === 0 || only.some((pattern) => name.includes(pattern)))
  .map((name) => join(testDir, name));
run("tests", process.execPath, ["--test", "--test-concurrency=2", "--test-timeout=600000", ...files]);
