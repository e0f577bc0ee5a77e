// The docs as a user follows them: the repository is named from package.json (no placeholders), plugin
// READMEs start with what a user does, the CLI section lists every command, the CHANGELOG is in shape,
// and `npm install -g .` really puts `peerpost` on PATH.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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

test("the README's command line section lists every command, and the test commands", () => {
  const readme = read("README.md");
  const section = readme.slice(readme.indexOf("## The command line"), readme.indexOf("## The state directory"));
  const overview = spawnSync(process.execPath, [CLI, "help"], { encoding: "utf8" }).stdout;
  const commands = [...overview.slice(overview.indexOf("commands:")).matchAll(/^  (\w+) /gm)].map((match) => match[1]!);
  assert.ok(commands.length >= 9, overview);
  for (const name of commands) assert.match(section, new RegExp(`peerpost ${name}\\b`), name);
  assert.match(section, /--json.*stdout/s);
  assert.match(readme, /npm run test:quick/);
  assert.ok((JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts["test:quick"]);
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
