// Hostile or malformed input to the hooks and the git guard. Each test states the rule it holds the hooks
// to: exit 0 within the deadline, never hang, never let a claimed edit through silently, never refuse work
// no claim forbids.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, openSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hookBundle, runHook } from "./helpers/hooks.js";
import { collect } from "./helpers/children.js";
import { tempRepo } from "./helpers/repo.js";
import { cliIn } from "./helpers/cli.js";
import { onCleanup, tempPeerpost } from "./helpers/temp.js";
import { claimPaths } from "../core/claims/claims.js";

/** A repository where a live session, claude:holder, claims src/a.ts exclusively. */
async function held(t: TestContext) {
  const { peerpost, stateDir, home, clock } = tempPeerpost(t);
  const repo = tempRepo(t);
  const host = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  onCleanup(t, () => host.kill("SIGKILL"));
  await peerpost.sessions.register({ host: "claude-code", address: "claude:holder", sessionId: "holder", hostPid: host.pid!, source: "startup" });
  await claimPaths(peerpost, { holder: "claude:holder", cwd: repo, paths: ["src/a.ts"], ttl: "1h" });
  return { repo, home, stateDir, peerpost, env: { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now) } };
}

const codexPatch = (repo: string, patch: string) => ({ session_id: "editor", cwd: repo, hook_event_name: "PreToolUse", tool_name: "apply_patch", tool_input: { command: patch } });
const denied = (stdout: string) => /"permissionDecision":"deny"/.test(stdout);

/** Runs a hook as runHook does, killed (a failure) 25 s in; returns the outcome and how long it took. */
async function timedHook(t: TestContext, host: "claude-code" | "codex", event: string, stdin: object, env: Record<string, string>) {
  const started = Date.now();
  const child = spawn(process.execPath, [hookBundle(host), event], { env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["pipe", "pipe", "pipe"] });
  onCleanup(t, () => child.kill("SIGKILL"));
  const guard = setTimeout(() => child.kill("SIGKILL"), 25_000);
  const done = collect(child);
  // A hook that stops reading early (past its stdin limit) closes the pipe on the rest: not this test's failure.
  child.stdin.on("error", () => {});
  child.stdin.end(JSON.stringify(stdin));
  const result = await done;
  clearTimeout(guard);
  return { ...result, ms: Date.now() - started };
}

// A turns file that is a FIFO or a link is refused (trust.ts), never waited on: a synchronous read would
// hold the hook past its deadline, whose timer cannot fire meanwhile.
for (const kind of ["fifo", "symlink to /dev/zero"] as const)
  test(`prompt and stop hooks end within their deadline when the session's turns file is a ${kind}`, async (t) => {
    const { stateDir, env } = await held(t);
    mkdirSync(join(stateDir, "turns"), { recursive: true, mode: 0o700 });
    const turns = join(stateDir, "turns", "claude_s1.json");
    if (kind === "fifo") execFileSync("mkfifo", ["-m", "600", turns]);
    else execFileSync("ln", ["-s", "/dev/zero", turns]);
    for (const event of ["user-prompt", "stop"]) {
      const result = await timedHook(t, "claude-code", event, { session_id: "s1", cwd: "/tmp", prompt: "hi" }, env);
      assert.notEqual(result.signal, "SIGKILL", `${event}: the hook hung (${result.ms} ms)`);
      assert.equal(result.code, 0);
      assert.ok(result.ms < 8000, `${event}: ${result.ms} ms, past the 5 s deadline`);
    }
  });

// An edit event carries what the tool writes: a large generated file into a claim is checked, and one past
// the edit hook's limit is let through as on any failure of its own, said in the log (never silently).
test("a Write of more than 1 MiB into another session's exclusive claim is refused; an event past the edit hook's limit is logged as let through", async (t) => {
  const { repo, stateDir, env } = await held(t);
  const write = (content: string) => ({ session_id: "editor", cwd: repo, tool_name: "Write", tool_input: { file_path: join(repo, "src/a.ts"), content } });
  const big = await timedHook(t, "claude-code", "pre-tool", write("x".repeat(1_200_000)), env);
  assert.equal(big.code, 0);
  assert.ok(denied(big.stdout), `a 1.2 MB write was let through: ${JSON.stringify(big.stdout.slice(0, 200))}`);
  // Past 64 MiB, from a file as stdin (a host may hand one over).
  const eventFile = join(stateDir, "..", "huge-event.json");
  writeFileSync(eventFile, JSON.stringify(write("x".repeat(65 * 1024 * 1024))));
  const huge = spawnSync(process.execPath, [hookBundle("claude-code"), "pre-tool"], { env: { PATH: process.env.PATH ?? "", ...env }, stdio: [openSync(eventFile, "r"), "pipe", "pipe"], encoding: "utf8" });
  assert.equal(huge.status, 0);
  assert.equal(huge.stdout, "");
  assert.match(readFileSync(join(stateDir, "logs", "errors.log"), "utf8"), /pre-tool.*hook stdin is over 67108864 bytes; not read/);
});

// Codex's parser trims a header as Rust's str::trim does (Unicode White_Space, U+0085 NEXT LINE too): the
// hook reads the header Codex applies.
test("codex: a patch header padded with U+0085 (which Codex's parser trims) still names its file", async (t) => {
  const { repo, env } = await held(t);
  for (const patch of [
    "*** Begin Patch\n*** Update File: src/a.ts\u0085\n@@\n-a\n+b\n*** End Patch\n",
    "*** Begin Patch\n\u0085*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch\n",
  ]) {
    const { stdout } = await runHook("codex", "pre-tool", codexPatch(repo, patch), env);
    assert.ok(denied(stdout), `${JSON.stringify(patch)} was let through: ${JSON.stringify(stdout)}`);
  }
});

// A patch path starting with ~/ is the home directory's to Codex (codex-rs/utils/absolute-path).
test("codex: a patch path written from ~ names the file Codex writes", async (t) => {
  const { repo, env } = await held(t);
  // `~/` + the repository's path from HOME (a temp dir of its own): Codex writes repo/src/a.ts.
  const fromHome = `~/${"../".repeat(env.HOME.split("/").length - 1)}${repo.slice(1)}/src/a.ts`;
  const { stdout } = await runHook("codex", "pre-tool", codexPatch(repo, `*** Begin Patch\n*** Update File: ${fromHome}\n@@\n-a\n+b\n*** End Patch\n`), env);
  assert.ok(denied(stdout), `${fromHome} was let through: ${JSON.stringify(stdout)}`);
});

// Deep paths that do not exist are resolved from the root down, not a directory at a time up with a copy of
// the whole path at each step: quadratic, synchronous, past the deadline.
test("the edit hook answers within its deadline for a patch of deep paths", async (t) => {
  const { repo, env } = await held(t);
  // 231 paths of 4 KB (each under PATH_MAX), 900 KB in all: under the stdin limit.
  const lines = Array.from({ length: 230 }, (_, i) => `*** Delete File: ${"a/".repeat(2000)}${i}.ts`);
  const patch = `*** Begin Patch\n${lines.join("\n")}\n*** Delete File: src/a.ts\n*** End Patch\n`;
  const result = await timedHook(t, "codex", "pre-tool", codexPatch(repo, patch), env);
  assert.notEqual(result.signal, "SIGKILL", "the hook hung");
  assert.equal(result.code, 0);
  assert.ok(result.ms < 8000, `${result.ms} ms, past the 5 s deadline`);
});

// The guard's own failure lets the commit through, said on stderr: opening peerpost (its settings, its state
// dir's checks) is one too.
test("the git guard lets a commit touching no claim through when peerpost itself cannot open its state", async (t) => {
  const { repo, stateDir, env } = await held(t);
  const installed = await cliIn(repo, env, "guard", "install", "--json");
  assert.equal(installed.code, 0, installed.stderr);
  const gitEnv = { PATH: "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.invalid", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.invalid", ...env };
  const commit = (extra: Record<string, string>) => {
    writeFileSync(join(repo, "docs/guide.md"), `changed ${Math.random()}\n`);
    spawnSync("git", ["add", "docs/guide.md"], { cwd: repo, env: gitEnv });
    return spawnSync("git", ["commit", "-q", "-m", "unclaimed"], { cwd: repo, encoding: "utf8", env: { ...gitEnv, ...extra } });
  };
  assert.equal(commit({}).status, 0, "a commit of an unclaimed file passes");
  const badVariable = commit({ PEERPOST_LOCK_TIMEOUT_MS: "abc" });
  chmodSync(stateDir, 0o777);
  onCleanup(t, () => chmodSync(stateDir, 0o700));
  const unsafe = commit({});
  chmodSync(stateDir, 0o700);
  assert.deepEqual(
    { badVariable: badVariable.status, unsafeStateDir: unsafe.status },
    { badVariable: 0, unsafeStateDir: 0 },
    `unclaimed commits refused:\n${badVariable.stderr}\n${unsafe.stderr}`,
  );
});

// A large event is parsed once, when its top-level value closes, not after every read that ends in a brace:
// a 48 MiB write of brace-heavy text into a claim was let through at the deadline.
test("a 48 MiB Write of brace-heavy text into another session's exclusive claim is refused within the deadline", async (t) => {
  const { repo, env } = await held(t);
  const content = "  }\n".repeat((48 * 1024 * 1024) / 5);
  const result = await timedHook(t, "claude-code", "pre-tool", { session_id: "editor", cwd: repo, tool_name: "Write", tool_input: { file_path: join(repo, "src/a.ts"), content } }, env);
  assert.equal(result.code, 0);
  assert.ok(denied(result.stdout), `let through after ${result.ms} ms`);
});

// One path the system refuses to look up (a name past NAME_MAX, a symlink loop) never drops the other paths'
// checks; and a path is measured against PATH_MAX as the host writes it (Codex drops `..` by text).
test("codex: a claimed file in a patch is refused whatever its other paths are, and a long path that normalizes to it is checked", async (t) => {
  const { repo, env } = await held(t);
  symlinkSync("loop", join(repo, "loop"));
  for (const other of [`${"n".repeat(300)}/x.ts`, "loop/x.ts"]) {
    const patch = `*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** Add File: ${other}\n+x\n*** End Patch\n`;
    const { stdout } = await runHook("codex", "pre-tool", codexPatch(repo, patch), env);
    assert.ok(denied(stdout), `with ${other.slice(0, 20)}…: let through`);
  }
  const long = `${"x/../".repeat(1200)}src/a.ts`;
  const { stdout } = await runHook("codex", "pre-tool", codexPatch(repo, `*** Begin Patch\n*** Update File: ${long}\n@@\n-a\n+b\n*** End Patch\n`), env);
  assert.ok(denied(stdout), "a 6 KB path naming src/a.ts: let through");
});
