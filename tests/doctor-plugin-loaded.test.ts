// doctor says a host is "set up" only when that host would load the plugin. Claude Code and Copilot CLI run
// a plugin installed from a directory marketplace (a clone) from that directory, never from a copy: with the
// clone moved or deleted they silently load nothing. Claude Code also keeps a disabled plugin in
// installed_plugins.json. In each case doctor names the problem and its fix, not "no problems found".
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { CLI, REPO_ROOT } from "./helpers/mcp.js";
import { claudeBinary, claudeSkipReason, isolatedClaudeEnv, runClaude } from "./helpers/claude-cli.js";
import { copilotBinary, copilotUnavailable, makeCopilotHome, mustSucceed, runCopilot } from "./helpers/copilot-cli.js";

interface Doctor {
  ok: boolean;
  hosts: Array<{ host: string; pluginInstalled: boolean | null; fixes: string[] }>;
  problems: Array<{ problem: string; fix: string }>;
}

/** A clone of the repository as a person has it: the catalogues and the built plugins. */
function clone(base: string): string {
  const dir = join(base, "clone");
  mkdirSync(dir, { recursive: true });
  for (const entry of ["dist", ".claude-plugin", ".github", "package.json", "README.md", "LICENSE"]) cpSync(join(REPO_ROOT, entry), join(dir, entry), { recursive: true });
  return dir;
}

function doctor(env: NodeJS.ProcessEnv, bin: string): Doctor {
  const ran = spawnSync(process.execPath, [CLI, "doctor", "--json"], { env: { ...env, PATH: `${bin}:/usr/bin:/bin` }, encoding: "utf8", timeout: 60_000 });
  return JSON.parse(ran.stdout) as Doctor;
}

/** The host's line in doctor says it is set up and nothing is wrong with it. */
function saysFine(report: Doctor, host: string): boolean {
  const entry = report.hosts.find((candidate) => candidate.host === host)!;
  return entry.pluginInstalled === true && entry.fixes.length === 0 && !report.problems.some((problem) => problem.problem.startsWith(host));
}

/** Claude Code with peerpost installed from a clone of the repository, and doctor's view of it. */
async function claudeWithPeerpost(t: Parameters<typeof tempDir>[0]) {
  const base = tempDir(t, "peerpost-doctor-plugin-");
  const repo = clone(base);
  const env = isolatedClaudeEnv(base, "http://127.0.0.1:9", { PEERPOST_HOME: join(base, "state") });
  const bin = join(base, "bin");
  mkdirSync(bin);
  symlinkSync(claudeBinary(), join(bin, "claude"));
  const options = { env, cwd: base, timeoutMs: 60_000 };
  for (const args of [["plugin", "marketplace", "add", repo], ["plugin", "install", "peerpost@peerpost"]]) {
    const ran = await runClaude(args, options);
    assert.equal(ran.code, 0, ran.stdout + ran.stderr);
  }
  assert.ok(saysFine(doctor(env, bin), "claude-code"), "installed and enabled: set up");
  const list = async () => (JSON.parse((await runClaude(["plugin", "list", "--json"], options)).stdout) as Array<{ id: string; enabled: boolean; errors?: string[] }>).find((plugin) => plugin.id === "peerpost@peerpost");
  return { repo, env, bin, options, list };
}

test("Claude Code: a disabled plugin is not reported as set up with no problem", { skip: claudeSkipReason(), timeout: 180_000 }, async (t) => {
  const { env, bin, options, list } = await claudeWithPeerpost(t);
  assert.equal((await runClaude(["plugin", "disable", "peerpost@peerpost"], options)).code, 0);
  assert.equal((await list())?.enabled, false, "Claude Code says it is disabled: it loads neither its hooks nor its server");
  assert.ok(!saysFine(doctor(env, bin), "claude-code"), "doctor says a disabled plugin is set up, with no problem");
});

test("Claude Code: a plugin whose clone is gone is not reported as set up with no problem", { skip: claudeSkipReason(), timeout: 180_000 }, async (t) => {
  const { repo, env, bin, list } = await claudeWithPeerpost(t);
  // The clone moved: Claude Code reads the plugin from where it was, finds nothing and loads nothing.
  renameSync(repo, `${repo}-moved`);
  assert.ok((await list())?.errors?.length, "Claude Code reports it cannot load it");
  assert.ok(!saysFine(doctor(env, bin), "claude-code"), "doctor says a plugin whose directory marketplace is gone is set up, with no problem");
});

test("Copilot CLI: a plugin whose clone is gone is not reported as set up with no problem", { skip: copilotUnavailable() ?? false, timeout: 180_000 }, async (t) => {
  const home = makeCopilotHome();
  t.after(() => home.cleanup());
  const repo = clone(home.root);
  const bin = join(home.root, "bin");
  mkdirSync(bin);
  symlinkSync(copilotBinary(), join(bin, "copilot"));
  const env = { ...home.env, PEERPOST_HOME: join(home.root, "state") };
  const options = { env, cwd: home.workDir, timeoutMs: 60_000 };
  await mustSucceed("marketplace add", runCopilot(["plugin", "marketplace", "add", repo], options));
  await mustSucceed("install", runCopilot(["plugin", "install", "peerpost@peerpost"], options));
  assert.ok(saysFine(doctor(env, bin), "copilot"), "installed: set up");

  rmSync(repo, { recursive: true, force: true });
  const list = await runCopilot(["plugin", "list"], options);
  assert.match(list.stdout, /No plugins installed/, "Copilot CLI loads nothing once the clone is gone");
  assert.ok(!saysFine(doctor(env, bin), "copilot"), "doctor says a plugin Copilot no longer finds is set up, with no problem");
});
