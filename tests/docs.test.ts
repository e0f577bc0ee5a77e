// The docs as a user follows them: the repository is named from package.json (no placeholders), plugin
// READMEs start with what a user does, the CLI section lists every command, the CHANGELOG is in shape,
// and `npm install -g .` really puts `peerpost` on PATH.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { CLI, REPO_ROOT } from "./helpers/mcp.js";
import { marketplaceSource } from "../core/cli/source.js";

const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");
const HOSTS = ["claude-code", "codex", "copilot", "grok"];
const DOCS = ["README.md", ...HOSTS.map((host) => `plugins/${host}/README.md`)];

function repository(): string {
  const url = (JSON.parse(read("package.json")) as { repository: { url: string } }).repository.url;
  return /github\.com\/([^/]+\/[^/.]+)/.exec(url)![1]!;
}

test("the docs name the repository from package.json, never a placeholder", () => {
  const repo = repository();
  for (const path of DOCS) {
    const text = read(path);
    assert.doesNotMatch(text, /<owner>|owner\/repo|<path or/, `${path} has a placeholder`);
    // What a user runs (host facts for contributors, after it, use probe marketplaces).
    const forUsers = text.split("\n# For contributors")[0]!;
    for (const match of forUsers.matchAll(/plugin marketplace add ([\w./<>-]+)/g)) assert.equal(match[1], repo, `${path}: ${match[0]}`);
  }
  assert.ok(read("README.md").includes(`\`${repo}\``));
});

test("each plugin README starts with what a user does, host facts last", () => {
  for (const host of HOSTS) {
    const text = read(`plugins/${host}/README.md`);
    const user = text.indexOf("\n## Using peerpost in ");
    const facts = text.indexOf("\n# For contributors");
    assert.ok(user > 0 && facts > user, `${host}: user section first`);
    const section = text.slice(user, facts);
    for (const heading of ["### Install", "### What you get", "### What you do by hand", "### Upgrade", "### Uninstall"]) assert.ok(section.includes(`\n${heading}`), `${host}: ${heading}`);
    assert.match(section.slice(section.indexOf("### Uninstall")), /What stays/, `${host}: says what stays in the host's config`);
  }
});

test("docs/cli.md lists every command, and the README the test commands", () => {
  const section = read("docs/cli.md");
  const overview = spawnSync(process.execPath, [CLI, "help"], { encoding: "utf8" }).stdout;
  const commands = [...overview.slice(overview.indexOf("commands:")).matchAll(/^  (\w+) /gm)].map((match) => match[1]!);
  assert.ok(commands.length >= 9, overview);
  for (const name of commands) assert.match(section, new RegExp(`peerpost ${name}\\b`), name);
  assert.match(section, /--json.*stdout/s);
  assert.match(read("README.md"), /npm run test:quick/);
  assert.ok((JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts["test:quick"]);
});

test("every command the README shows exists: npm scripts, peerpost commands, and CI runs its test command", () => {
  const readme = read("README.md");
  const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
  const shown = [...readme.matchAll(/npm run ([\w:]+)/g)].map((match) => match[1]!);
  assert.ok(shown.includes("demo") && shown.includes("test:quick"));
  for (const name of shown) assert.ok(scripts[name], `npm run ${name}`);
  const overview = spawnSync(process.execPath, [CLI, "help"], { encoding: "utf8" }).stdout;
  const commands = new Set([...overview.slice(overview.indexOf("commands:")).matchAll(/^  (\w+) /gm)].map((match) => match[1]!));
  const blocks = [...readme.matchAll(/```sh\n([^]*?)```/g)].map((match) => match[1]!).join("\n");
  for (const match of blocks.matchAll(/(?:^|&& )peerpost (\w+)/gm)) assert.ok(commands.has(match[1]!), `peerpost ${match[1]}`);
  // The two set-up commands: the main job on the embedded default, and the tests, which CI runs exactly.
  const setUp = readme.slice(readme.indexOf("## Set up"));
  const [main, tests] = /```sh\n(.*?)\s+#.*\n(.*?)\s+#.*\n```/.exec(setUp)!.slice(1);
  assert.equal(main, "npm ci && npm start");
  assert.equal(tests, "npm test");
  const ci = read(".ci/run").trimEnd().split("\n");
  assert.equal(ci.at(-1), tests);
  assert.ok(ci.includes("npm ci --no-audit --no-fund"));
});

test("the README starts with the reader: at most 150 lines before the reference, and every link in it, the plugin READMEs and docs/ resolves", () => {
  const readme = read("README.md");
  assert.ok(readme.slice(0, readme.indexOf("\n## Reference")).split("\n").length <= 150);
  assert.ok(readme.includes("![") && readme.includes("(docs/ui.png)"));
  const pages = readdirSync(join(REPO_ROOT, "docs"), { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`);
  for (const path of ["README.md", ...HOSTS.map((host) => `plugins/${host}/README.md`), ...pages]) {
    const text = read(path);
    for (const match of text.matchAll(/\]\(([^)#:]+)(#[^)]*)?\)/g)) assert.ok(existsSync(join(REPO_ROOT, dirname(path), match[1]!)), `${path}: ${match[1]}`);
  }
});

test("CHANGELOG keeps [Unreleased] and dates every released version", () => {
  const changelog = read("CHANGELOG.md");
  assert.match(changelog, /^## \[Unreleased\]$/m);
  for (const heading of changelog.match(/^## \[.*$/gm) ?? []) assert.match(heading, /^## \[(Unreleased|\d+\.\d+\.\d+\] - \d{4}-\d{2}-\d{2})/, heading);
});

test("npm install -g . puts a working peerpost on PATH, offline", (t) => {
  const prefix = tempDir(t);
  const install = spawnSync("npm", ["install", "-g", ".", "--prefix", prefix, "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: REPO_ROOT, encoding: "utf8", env: { ...process.env, npm_config_cache: join(prefix, "cache") } });
  assert.equal(install.status, 0, install.stderr);
  const version = spawnSync("peerpost", ["--version"], { encoding: "utf8", env: { PATH: `${join(prefix, "bin")}:${process.env.PATH}` } });
  assert.equal(version.status, 0, version.stderr);
  assert.equal(version.stdout.trim(), (JSON.parse(read("package.json")) as { version: string }).version);
});

test("doctor's set-up commands name this clone's path, or the repository when installed from the package", (t) => {
  assert.equal(marketplaceSource(REPO_ROOT.replace(/\/$/, "")), REPO_ROOT.replace(/\/$/, ""));
  const packaged = tempDir(t);
  writeFileSync(join(packaged, "package.json"), read("package.json"));
  assert.equal(marketplaceSource(packaged), repository());
});
