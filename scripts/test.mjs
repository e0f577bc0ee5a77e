// The whole test suite, as `npm test` runs it (and CI): type check, import cycles, host CLIs, dist freshness, transpile,
// then node --test. `--quick` (npm run test:quick) skips the tests that drive the real host CLIs, and so
// their download, and the files that say "// full suite only" (long or heavy ones); any other argument
// keeps only test files whose name contains it.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
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
// node --test given no file runs every test it can find: an empty selection is an error instead.
if (files.length === 0) {
  console.error(`no test file matches ${only.join(" ")}${quick ? " outside the full suite (drop --quick)" : ""}`);
  process.exit(2);
}
await runTests(files);

/** A compiled test's location (.build/tests/x.test.js:3:1) as its source file, tests/x.test.ts. */
function sourceOf(location) {
  return relative(join(root, ".build"), location.replace(/:\d+:\d+$/, "")).replace(/\.js$/, ".ts");
}

/**
 * node --test with its TAP output both on stdout and in .build/test-output.tap, then a summary: the
 * counts, the failed tests by name with their file, and where the whole output is. The summary ends
 * with node's own closing lines ("# tests N" … "# duration_ms N"), which CI reads.
 */
async function runTests(paths) {
  const output = join(root, ".build/test-output.tap");
  const file = createWriteStream(output);
  console.error("\n> tests");
  // Temp dirs go under one dir of this run, removed at the end however the tests ended (a test killed
  // by its timeout never runs its own clean-up).
  const scratch = mkdtempSync(join(tmpdir(), "peerpost-run-"));
  // Traversable by others, as /tmp is: a test's throwaway PostgreSQL runs initdb as the postgres user.
  chmodSync(scratch, 0o755);
  const env = { ...process.env, TMPDIR: scratch, ...(quick ? { PEERPOST_TEST_SUITE: "quick" } : {}) };
  const child = spawn(process.execPath, ["--test", "--test-reporter=tap", "--test-concurrency=2", "--test-timeout=600000", ...paths], { cwd: root, env, stdio: ["ignore", "pipe", "inherit"] });
  child.stdout.on("data", (chunk) => {
    process.stdout.write(chunk);
    file.write(chunk);
  });
  const status = await new Promise((resolve) => child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  await new Promise((resolve) => file.end(resolve));
  rmSync(scratch, { recursive: true, force: true, maxRetries: 5 });
  const tap = readFileSync(output, "utf8");
  const failed = [...tap.matchAll(/^not ok \d+ - (.*)\n(?:(?!^(?:not )?ok )[^])*?^ {2}location: '([^']*)'/gm)].map((match) => `  ${match[1]} (${sourceOf(match[2])})`);
  const closing = tap.split("\n").filter((line) => /^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) /.test(line));
  console.log(`\nsummary: ${failed.length === 0 ? "no test failed" : `${failed.length} failed:\n${failed.join("\n")}`}`);
  console.log(`full output: ${relative(root, output)}`);
  console.log(closing.join("\n"));
  if (status !== 0) process.exit(status);
}
