// The built pre-tool hook program of each host, run as the host runs it (a child process with the host's
// stdin for a file-writing tool): it denies in the host's own format a write into another live session's
// exclusive claim, lets shared and own claims and other tools pass, follows PEERPOST_CLAIMS_EDITS, and on
// a failure of its own allows the call and logs why.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runHook, type HookHost } from "./helpers/hooks.js";
import { tempRepo } from "./helpers/repo.js";
import { tempDir, tempPeerpost } from "./helpers/temp.js";
import { claimPaths, releasePaths } from "../core/claims/claims.js";

/** Each host's stdin for a write of `path` (relative to `cwd`), and how its deny reads. */
const HOSTS: Record<HookHost, { kind: string; stdin: (sessionId: string, cwd: string, path: string) => object; denied: (stdout: string) => string | undefined }> = {
  "claude-code": {
    kind: "claude",
    stdin: (session_id, cwd, path) => ({ session_id, cwd, hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: join(cwd, path), content: "x" } }),
    denied: (stdout) => {
      const out = JSON.parse(stdout) as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
      return out.hookSpecificOutput?.permissionDecision === "deny" ? out.hookSpecificOutput.permissionDecisionReason : undefined;
    },
  },
  codex: {
    kind: "codex",
    stdin: (session_id, cwd, path) => ({ session_id, cwd, hook_event_name: "PreToolUse", tool_name: "apply_patch", tool_input: { command: `*** Begin Patch\n*** Update File: ${path}\n@@\n-a\n+b\n*** End Patch\n` } }),
    denied: (stdout) => {
      const out = JSON.parse(stdout) as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
      return out.hookSpecificOutput?.permissionDecision === "deny" ? out.hookSpecificOutput.permissionDecisionReason : undefined;
    },
  },
  copilot: {
    kind: "copilot",
    stdin: (sessionId, cwd, path) => ({ sessionId, cwd, toolName: "edit", toolArgs: JSON.stringify({ path, old_str: "a", new_str: "b" }) }),
    denied: (stdout) => {
      const out = JSON.parse(stdout) as { permissionDecision?: string; permissionDecisionReason?: string };
      return out.permissionDecision === "deny" ? out.permissionDecisionReason : undefined;
    },
  },
  grok: {
    kind: "grok",
    stdin: (sessionId, cwd, path) => ({ hookEventName: "pre_tool_use", hook_event_name: "PreToolUse", sessionId, cwd, toolName: "search_replace", toolInput: { file_path: join(cwd, path), old_string: "a", new_string: "b" } }),
    denied: (stdout) => {
      const out = JSON.parse(stdout) as { decision?: string; reason?: string };
      return out.decision === "deny" ? out.reason : undefined;
    },
  },
};

/** A repository where a live session, claude:holder (its host a process of the test's), claims src/a.ts exclusively. */
async function heldRepo(t: TestContext) {
  const repo = tempRepo(t);
  const { peerpost, stateDir, home, clock } = tempPeerpost(t);
  const holderHost = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  t.after(() => holderHost.kill("SIGKILL"));
  await peerpost.sessions.register({ host: "claude-code", address: "claude:holder", sessionId: "holder", hostPid: holderHost.pid!, source: "startup" });
  await claimPaths(peerpost, { holder: "claude:holder", cwd: repo, paths: ["src/a.ts"], reason: "mine", ttl: "1h" });
  return { repo, peerpost, holderHost, env: { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now) } };
}

for (const [host, spec] of Object.entries(HOSTS) as Array<[HookHost, (typeof HOSTS)[HookHost]]>) {
  test(`${host}: the pre-tool hook denies a write into another live session's exclusive claim, and only that`, async (t) => {
    const { repo, peerpost, holderHost, env } = await heldRepo(t);
    await claimPaths(peerpost, { holder: "claude:holder", cwd: repo, paths: ["docs/**"], shared: true });
    await claimPaths(peerpost, { holder: `${spec.kind}:editor`, cwd: repo, paths: ["src/b.ts"] });
    const hook = (path: string, extra: Record<string, string> = {}) => runHook(host, "pre-tool", spec.stdin("editor", repo, path), { ...env, ...extra });

    const blocked = await hook("src/a.ts");
    assert.equal(blocked.code, 0);
    assert.match(spec.denied(blocked.stdout) ?? "", /^peerpost: src\/a\.ts is claimed exclusively by claude:holder until \S+ \("mine"\)\. Ask the holder with peerpost's message tool \(to claude:holder\)/);
    assert.equal((await hook("docs/guide.md")).stdout, "", "a shared claim passes");
    assert.equal((await hook("src/b.ts")).stdout, "", "the session's own claim passes");
    assert.equal((await hook("README.md")).stdout, "", "an unclaimed path passes");
    assert.equal((await hook("src/a.ts", { PEERPOST_CLAIMS_EDITS: "off" })).stdout, "", "off lets everything through");
    const warned = await hook("src/a.ts", { PEERPOST_CLAIMS_EDITS: "warn" });
    assert.equal(spec.denied(warned.stdout || "{}"), undefined, "warn never denies");
    if (host === "claude-code" || host === "codex") assert.match(warned.stdout, /claimed exclusively by claude:holder/, "warn gives the model the note");
    // Copilot and Grok show no note before a tool: warn gives it after the edit, in the host's post-tool context.
    const after = (extra: Record<string, string>) => runHook(host, "post-tool", spec.stdin("editor", repo, "src/a.ts"), { ...env, ...extra });
    const noted = await after({ PEERPOST_CLAIMS_EDITS: "warn" });
    assert.equal(noted.code, 0);
    if (host === "copilot") assert.match((JSON.parse(noted.stdout) as { additionalContext: string }).additionalContext, /^peerpost: src\/a\.ts is claimed exclusively by claude:holder/);
    else if (host === "grok") {
      const out = JSON.parse(noted.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
      assert.equal(out.hookSpecificOutput.hookEventName, "PostToolUse");
      assert.match(out.hookSpecificOutput.additionalContext, /^peerpost: src\/a\.ts is claimed exclusively by claude:holder/);
    } else assert.equal(noted.stdout, "", "a host with a note before the tool says nothing after it");
    assert.equal((await after({})).stdout, "", "block mode says nothing after the tool (it was refused before)");
    assert.equal((await runHook(host, "post-tool", spec.stdin("editor", repo, "README.md"), { ...env, PEERPOST_CLAIMS_EDITS: "warn" })).stdout, "", "an unclaimed path gets no note");

    // The holder's session ends: its claim no longer keeps anyone out.
    holderHost.kill("SIGKILL");
    await new Promise((resolve) => holderHost.once("exit", resolve));
    assert.equal((await hook("src/a.ts")).stdout, "", "a gone holder's claim passes");
  });
}

test("claims hold through symlinks: a write through a file link reaches the claimed file, and a claim made through a directory link covers the directory", async (t) => {
  const { repo, peerpost, env } = await heldRepo(t);
  symlinkSync("src/a.ts", join(repo, "alias.ts"));
  mkdirSync(join(repo, "vendor"));
  writeFileSync(join(repo, "vendor", "lib.ts"), "v\n");
  symlinkSync("vendor", join(repo, "vendor-link"));
  const claimed = await claimPaths(peerpost, { holder: "claude:holder", cwd: repo, paths: ["vendor-link/**"], ttl: "1h" });
  assert.deepEqual(claimed.claims.map((claim) => claim.path), ["vendor/**"], "stored as the directory the link leads to");
  const spec = HOSTS["claude-code"];
  const denied = async (path: string) => spec.denied((await runHook("claude-code", "pre-tool", spec.stdin("editor", repo, path), env)).stdout || "{}");
  assert.match((await denied("alias.ts")) ?? "", /^peerpost: src\/a\.ts is claimed exclusively by claude:holder/);
  assert.match((await denied("vendor/lib.ts")) ?? "", /^peerpost: vendor\/lib\.ts is claimed exclusively/);
  assert.match((await denied("vendor-link/new.ts")) ?? "", /^peerpost: vendor\/new\.ts is claimed exclusively/);
  assert.equal(await denied("src/b.ts"), undefined, "an unclaimed file beside them passes");
  // A link whose target does not exist yet: a write through it creates the target.
  symlinkSync("vendor/new-file.ts", join(repo, "dangling.ts"));
  assert.match((await denied("dangling.ts")) ?? "", /^peerpost: vendor\/new-file\.ts is claimed exclusively/);
});

test("a claim of the whole repository (. with --all) and a glob written with a trailing slash cover what they name; a claimed name that became a directory is released by that name", async (t) => {
  const { repo, peerpost, env } = await heldRepo(t);
  mkdirSync(join(repo, "packages", "web"), { recursive: true });
  const spec = HOSTS["claude-code"];
  const denied = async (path: string) => spec.denied((await runHook("claude-code", "pre-tool", spec.stdin("editor", repo, path), env)).stdout || "{}");
  const packages = await claimPaths(peerpost, { holder: "claude:holder", cwd: repo, paths: ["packages/*/"], ttl: "1h" });
  assert.deepEqual(packages.claims.map((claim) => claim.path), ["packages/*/**"]);
  assert.match((await denied("packages/web/index.ts")) ?? "", /packages\/web\/index\.ts is claimed/);
  await claimPaths(peerpost, { holder: "claude:holder", cwd: repo, paths: ["build"], ttl: "1h" });
  mkdirSync(join(repo, "build"));
  const released = await releasePaths(peerpost, { by: "claude:holder", cwd: repo, paths: ["build"] });
  assert.deepEqual(released.released.map((claim) => claim.path), ["build"]);
  // And the other way: a directory claimed by its name, then removed.
  await claimPaths(peerpost, { holder: "claude:holder", cwd: repo, paths: ["build"], ttl: "1h" });
  rmSync(join(repo, "build"), { recursive: true });
  const gone = await releasePaths(peerpost, { by: "claude:holder", cwd: repo, paths: ["build"] });
  assert.deepEqual(gone.released.map((claim) => claim.path), ["build/**"]);
  await releasePaths(peerpost, { by: "claude:holder", all: true, cwd: repo, paths: [] });
  const everything = await claimPaths(peerpost, { holder: "claude:holder", cwd: repo, paths: ["."], all: true, ttl: "1h" });
  assert.deepEqual(everything.claims.map((claim) => claim.path), ["**"]);
  assert.match((await denied("README.md")) ?? "", /README\.md is claimed/);
  await assert.rejects(claimPaths(peerpost, { holder: "codex:other", cwd: repo, paths: ["docs/guide.md"] }), { code: "claim_conflict" });
  // Stored relative to the root, a short name given from deep in the tree can pass the length limit: refused as such.
  const deep = join(repo, "d".repeat(200), "e".repeat(200));
  mkdirSync(deep, { recursive: true });
  await assert.rejects(claimPaths(peerpost, { holder: "claude:holder", cwd: deep, paths: ["f".repeat(700)] }), (error: { code?: string; details?: { reason?: string } }) => error.code === "invalid_arguments" && error.details?.reason === "too_long");
});

test("outside git, a claim made from a project directory refuses an edit from any directory under it", async (t) => {
  const { peerpost, env } = await heldRepo(t);
  const project = tempDir(t, "peerpost-nogit-");
  mkdirSync(join(project, "src"));
  writeFileSync(join(project, "src", "a.ts"), "a\n");
  await claimPaths(peerpost, { holder: "claude:holder", cwd: project, paths: ["src/a.ts"], ttl: "1h" });
  const spec = HOSTS["claude-code"];
  const denied = async (cwd: string) => spec.denied((await runHook("claude-code", "pre-tool", { ...spec.stdin("editor", cwd, "x"), tool_input: { file_path: join(project, "src", "a.ts"), content: "x" } }, env)).stdout || "{}");
  assert.match((await denied(project)) ?? "", /src\/a\.ts is claimed exclusively/, "from the project directory");
  assert.match((await denied(join(project, "src"))) ?? "", /a\.ts is claimed exclusively/, "from a directory under it");
  assert.match((await denied(tempDir(t, "peerpost-elsewhere-"))) ?? "", /is claimed exclusively/, "from anywhere else");
});

test("a pre-tool hook that cannot read the claims allows the edit and logs why", async (t) => {
  const repo = tempRepo(t);
  const { peerpost, stateDir, home: HOME, clock } = tempPeerpost(t);
  const home = { HOME, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now) };
  await claimPaths(peerpost, { holder: "user:pat", cwd: repo, paths: ["src/a.ts"] });
  const denied = await runHook("claude-code", "pre-tool", HOSTS["claude-code"].stdin("editor", repo, "src/a.ts"), home);
  assert.ok(HOSTS["claude-code"].denied(denied.stdout), "a person's claim keeps sessions out too");
  // A setting the hook cannot parse: its own failure, so the edit goes through and the reason is logged.
  const failed = await runHook("claude-code", "pre-tool", HOSTS["claude-code"].stdin("editor", repo, "src/a.ts"), { ...home, PEERPOST_CLAIMS_EDITS: "sometimes" });
  assert.equal(failed.code, 0);
  assert.equal(failed.stdout, "");
  assert.match(readFileSync(join(stateDir, "logs", "errors.log"), "utf8"), /claude-code pre-tool.*PEERPOST_CLAIMS_EDITS/);
  writeFileSync(join(stateDir, "mailbox.jsonl"), "not json\n", { flag: "a" });
  assert.ok(HOSTS["claude-code"].denied((await runHook("claude-code", "pre-tool", HOSTS["claude-code"].stdin("editor", repo, "src/a.ts"), home)).stdout), "a corrupt line does not hide the claims");
});

test("codex: a patch whose file headers are indented, which Codex applies (it trims each line), is checked like any other", async (t) => {
  const { repo, env } = await heldRepo(t);
  for (const indent of ["  ", "\t"]) {
    const stdin = { session_id: "editor", cwd: repo, hook_event_name: "PreToolUse", tool_name: "apply_patch", tool_input: { command: `*** Begin Patch\n${indent}*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch\n` } };
    const denied = await runHook("codex", "pre-tool", stdin, env);
    assert.match(HOSTS.codex.denied(denied.stdout) ?? "", /src\/a\.ts is claimed exclusively by claude:holder/, JSON.stringify(indent));
  }
});
