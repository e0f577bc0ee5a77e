// The whole test suite, as `npm test` runs it (and CI): type check, import cycles, host CLIs, dist freshness, transpile,
// then node --test. `--quick` (npm run test:quick) skips the tests that drive the real host CLIs, and so
// their download, and the files that say "// full suite only" (long or heavy ones); any other argument
// keeps only test files whose name contains it.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const quick = process.argv.includes("--quick");
const only = process.argv.slice(2).filter((arg) => arg !== "--quick");

/** A test file is for the full suite when it drives a real host CLI (a tests/helpers/<host>-cli.ts driver) or says so. */
function fullSuiteOnly(name) {
  const source = readFileSync(join(root, "tests", name.replace(/\.js$/, ".ts")), "utf8");
  return /helpers\/[a-z-]+-cli\.js"/.test(source) || /^\/\/ full suite only\b/m.test(source);
}

function run(label, command, args) {
  console.error(`\n> ${label}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`\n${label} failed (exit ${result.status ?? result.signal})`);
    process.exit(result.status || 1);
  }
}

run("type check", process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "."]);
run("no import cycles", process.execPath, [join(root, "scripts/check-cycles.mjs")]);
if (!quick) run("host CLIs for end-to-end tests", process.execPath, [join(root, "scripts/setup-hosts.mjs")]);
run("dist is up to date", process.execPath, [join(root, "scripts/build.mjs"), "--check"]);
run("transpile", process.execPath, [join(root, "scripts/transpile.mjs")]);
const testDir = join(root, ".build/tests");
const files = readdirSync(testDir)
  .filter((name) => name.endsWith(".test.js"))
  .filter((name) => only.length === 0 || only.some((pattern) => name.includes(pattern)))
  .filter((name) => !quick || !fullSuiteOnly(name))
  .map((name) => join(testDir, name));
run("tests", process.execPath, ["--test", "--test-concurrency=2", "--test-timeout=600000", ...files]);
