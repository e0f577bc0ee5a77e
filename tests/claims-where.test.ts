// Which repository a claim belongs to, and who counts as its holder: a path written from a parent directory
// or a superproject goes to the repository it is in; a link to the repository is no way out of it, nor a
// linked directory a way around a claim; a claim past its TTL can still be released; Claude Code's /clear
// keeps the process's claims its own; the guard counts a superproject's claims and, in a merge committed
// after a conflict, only what the merge itself changed.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runHook } from "./helpers/hooks.js";
import { git, tempRepo } from "./helpers/repo.js";
import { cliIn } from "./helpers/cli.js";
import { tempDir, tempPeerpost } from "./helpers/temp.js";
import { claimPaths, listClaims, releasePaths } from "../core/claims/claims.js";
import type { Peerpost } from "../core/peerpost.js";

/** A live host process for `address` (Claude Code), so its claims stand. */
async function liveHolder(t: TestContext, peerpost: Peerpost, address: string, hostPid?: number): Promise<number> {
  let pid = hostPid;
  if (pid === undefined) {
    const host = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    t.after(() => host.kill("SIGKILL"));
    pid = host.pid!;
  }
  await peerpost.sessions.register({ host: "claude-code", address, sessionId: address.slice("claude:".length), hostPid: pid, source: hostPid === undefined ? "startup" : "clear" });
  return pid;
}

/** A git repository `app` inside a directory that is no repository (the parent of several clones). */
function cloneInParent(t: TestContext): { parent: string; repo: string } {
  const parent = realpathSync(tempDir(t, "peerpost-parent-"));
  const repo = join(parent, "app");
  mkdirSync(join(repo, "src"), { recursive: true });
  git(repo, "init", "-q", "-b", "main");
  writeFileSync(join(repo, "src", "a.ts"), "a\n");
  return { parent, repo };
}

const write = (env: Record<string, string>, cwd: string, file: string, session = "editor") =>
  runHook("claude-code", "pre-tool", { session_id: session, cwd, hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: file, content: "x" } }, env);

test("a claim made from a parent directory outside git, on a file in a repository below it, belongs to that repository and keeps others out", async (t) => {
  const { parent, repo } = cloneInParent(t);
  const { peerpost, stateDir, home, clock } = tempPeerpost(t);
  await liveHolder(t, peerpost, "claude:holder");
  const claimed = await claimPaths(peerpost, { holder: "claude:holder", cwd: parent, paths: ["app/src/a.ts"], ttl: "1h" });
  assert.equal(claimed.repo, repo);
  assert.deepEqual(claimed.claims.map((claim) => claim.path), ["src/a.ts"]);
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now) };
  assert.match((await write(env, repo, join(repo, "src", "a.ts"))).stdout, /"permissionDecision":"deny"/);
  // The same file claimed from inside the repository is the same claim's ground.
  await assert.rejects(claimPaths(peerpost, { holder: "user:sam", cwd: repo, paths: ["src/a.ts"], ttl: "1h" }), { code: "claim_conflict" });
  // Released from where it was made.
  assert.equal((await releasePaths(peerpost, { by: "claude:holder", cwd: parent, paths: ["app/src/a.ts"] })).released.length, 1);
  // Paths of two repositories in one call are refused, naming both.
  const other = join(parent, "lib");
  mkdirSync(other);
  git(other, "init", "-q", "-b", "main");
  await assert.rejects(claimPaths(peerpost, { holder: "user:sam", cwd: parent, paths: ["app/src/a.ts", "lib/x.ts"], ttl: "1h" }), (error: { code: string; details: { reason: string } }) => error.code === "invalid_arguments" && error.details.reason === "repositories");
});

test("a superproject's claim on a file in a submodule (its path, a glob, the submodule itself) and a claim inside it on the same file cannot both stand, in either order", async (t) => {
  const top = realpathSync(tempDir(t, "peerpost-super-"));
  git(top, "init", "-q", "-b", "main");
  const sub = join(top, "sub");
  mkdirSync(sub);
  git(sub, "init", "-q", "-b", "main");
  writeFileSync(join(sub, "x.ts"), "x\n");
  // A literal path into the submodule is the submodule's own claim; a glob, or the submodule itself, the superproject's.
  for (const [wide, owner] of [["sub/x.ts", sub], ["s*/x.ts", top], ["**/*.ts", top], ["sub", top], ["sub/**", top]] as const) {
    const { peerpost } = tempPeerpost(t);
    const first = await claimPaths(peerpost, { holder: "user:pat", cwd: top, paths: [wide], ttl: "1h" });
    assert.equal(first.repo, owner, wide);
    await assert.rejects(claimPaths(peerpost, { holder: "user:sam", cwd: sub, paths: ["x.ts"], ttl: "1h" }), { code: "claim_conflict" }, wide);
    const other = tempPeerpost(t).peerpost;
    await claimPaths(other, { holder: "user:sam", cwd: sub, paths: ["x.ts"], ttl: "1h" });
    await assert.rejects(claimPaths(other, { holder: "user:pat", cwd: top, paths: [wide], ttl: "1h" }), { code: "claim_conflict" }, `${wide}, the other order`);
  }
});

test("outside git, exclusive claims on the same files made from a directory and from one below it cannot both stand, in either order", async (t) => {
  for (const order of [["above", "below"], ["below", "above"]]) {
    const { peerpost } = tempPeerpost(t);
    const top = realpathSync(tempDir(t, "peerpost-nogit-"));
    mkdirSync(join(top, "x", "a"), { recursive: true });
    // People's claims (a person is never gone), so only the overlap decides.
    const claim = (from: string) => (from === "above" ? claimPaths(peerpost, { holder: "user:pat", cwd: top, paths: ["x/a/**"], ttl: "2h" }) : claimPaths(peerpost, { holder: "user:sam", cwd: join(top, "x"), paths: ["a/**"], ttl: "2h" }));
    await claim(order[0]!);
    await assert.rejects(claim(order[1]!), { code: "claim_conflict" }, `from ${order[1]} after from ${order[0]}`);
    assert.equal(listClaims(peerpost).claims.length, 1);
  }
});

test("an absolute path written through a link to the repository is inside it; a write through a linked directory in a claimed one is checked at its own path", async (t) => {
  const repo = tempRepo(t);
  const { peerpost, stateDir, home, clock } = tempPeerpost(t);
  const alias = join(tempDir(t, "peerpost-alias-"), "repo-link");
  symlinkSync(repo, alias);
  const claimed = await claimPaths(peerpost, { holder: "user:pat", cwd: repo, paths: [join(alias, "src", "a.ts"), `${alias}/docs/**`], ttl: "1h" });
  assert.deepEqual(claimed.claims.map((claim) => claim.path).sort(), ["docs/**", "src/a.ts"]);
  await releasePaths(peerpost, { by: "user:pat", cwd: repo, paths: ["src/a.ts", "docs/**"] });
  await liveHolder(t, peerpost, "claude:holder");
  mkdirSync(join(repo, "lib"));
  writeFileSync(join(repo, "lib", "f.ts"), "f\n");
  symlinkSync("../lib", join(repo, "src", "shared"));
  await claimPaths(peerpost, { holder: "claude:holder", cwd: repo, paths: ["src/**"], ttl: "1h" });
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now) };
  assert.match((await write(env, repo, join(repo, "src", "shared", "f.ts"))).stdout, /"permissionDecision":"deny"/);
  assert.doesNotMatch((await write(env, repo, join(repo, "lib", "f.ts"))).stdout, /"permissionDecision":"deny"/, "the linked directory itself is not claimed");
});

test("a claim past its TTL can be released by its holder or forced by a person, as health's claims_expired says", async (t) => {
  const repo = tempRepo(t);
  const { peerpost, clock } = tempPeerpost(t);
  await claimPaths(peerpost, { holder: "user:pat", cwd: repo, paths: ["src/a.ts"], ttl: "1m" });
  await claimPaths(peerpost, { holder: "user:kim", cwd: repo, paths: ["src/b.ts"], ttl: "1m" });
  clock.now += 5 * 60_000;
  assert.equal(listClaims(peerpost).expired.length, 2);
  assert.equal((await releasePaths(peerpost, { by: "user:pat", cwd: repo, paths: ["src/a.ts"] })).released.length, 1);
  assert.equal((await releasePaths(peerpost, { by: "user:sam", cwd: repo, paths: ["src/b.ts"], force: true })).released.length, 1);
  assert.equal(listClaims(peerpost).expired.length, 0);
});

test("after Claude Code's /clear (a new session id in the same host process) the claims made before are the process's own: it edits there and releases them; others stay out", async (t) => {
  const repo = tempRepo(t);
  const { peerpost, stateDir, home, clock } = tempPeerpost(t);
  const pid = await liveHolder(t, peerpost, "claude:before");
  await claimPaths(peerpost, { holder: "claude:before", cwd: repo, paths: ["src/a.ts"], ttl: "2h" });
  clock.now += 1000;
  await liveHolder(t, peerpost, "claude:after", pid);
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now) };
  assert.doesNotMatch((await write(env, repo, join(repo, "src", "a.ts"), "after")).stdout, /"permissionDecision":"deny"/);
  assert.match((await write(env, repo, join(repo, "src", "a.ts"), "someone-else")).stdout, /"permissionDecision":"deny"/);
  assert.equal((await releasePaths(peerpost, { by: "claude:after", cwd: repo, paths: ["src/a.ts"] })).released.length, 1);
});

test("after /clear the new session's claim around the earlier one's takes it over; after /resume of an older conversation, the claims the process made meanwhile are its own", async (t) => {
  const repo = tempRepo(t);
  const { peerpost, stateDir, home, clock } = tempPeerpost(t);
  const pid = await liveHolder(t, peerpost, "claude:before");
  await claimPaths(peerpost, { holder: "claude:before", cwd: repo, paths: ["src/a.ts"], ttl: "30m" });
  clock.now += 1000;
  await liveHolder(t, peerpost, "claude:after", pid);
  const claimed = await claimPaths(peerpost, { holder: "claude:after", cwd: repo, paths: ["src/**"], ttl: "2h" });
  assert.deepEqual(claimed.claims.map((claim) => claim.path), ["src/**"]);
  // The earlier claim passes to the new session as it was (its TTL too).
  assert.deepEqual(listClaims(peerpost).claims.map((claim) => [claim.holder, claim.path]).sort(), [["claude:after", "src/**"], ["claude:after", "src/a.ts"]]);
  // /resume of "before" in the same process: the claim "after" made is the process's, so before's own.
  clock.now += 1000;
  await peerpost.sessions.register({ host: "claude-code", address: "claude:before", sessionId: "before", hostPid: pid, source: "resume" });
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now) };
  assert.doesNotMatch((await write(env, repo, join(repo, "src", "b.ts"), "before")).stdout, /"permissionDecision":"deny"/);
  assert.equal((await releasePaths(peerpost, { by: "claude:before", cwd: repo, paths: ["src/**"] })).released.length, 1);
});

test("after /clear a narrower claim inside the earlier session's wider one keeps the wider one standing, the process's own", async (t) => {
  const repo = tempRepo(t);
  const { peerpost, clock } = tempPeerpost(t);
  const pid = await liveHolder(t, peerpost, "claude:before");
  await claimPaths(peerpost, { holder: "claude:before", cwd: repo, paths: ["src/**"], ttl: "2h" });
  clock.now += 1000;
  await liveHolder(t, peerpost, "claude:after", pid);
  await claimPaths(peerpost, { holder: "claude:after", cwd: repo, paths: ["src/a.ts"], ttl: "30m" });
  assert.deepEqual(listClaims(peerpost).claims.map((claim) => [claim.holder, claim.path]).sort(), [["claude:after", "src/**"], ["claude:after", "src/a.ts"]]);
  await assert.rejects(claimPaths(peerpost, { holder: "user:sam", cwd: repo, paths: ["src/b.ts"], ttl: "1h" }), { code: "claim_conflict" });
});

test("release --all from where the claims were made ends those that went to repositories below it; a path of 200,000 characters is refused at once", async (t) => {
  const { parent, repo } = cloneInParent(t);
  const { peerpost } = tempPeerpost(t);
  await claimPaths(peerpost, { holder: "user:pat", cwd: parent, paths: ["app/src/a.ts"], ttl: "1h" });
  await claimPaths(peerpost, { holder: "user:pat", cwd: parent, paths: ["notes.md"], ttl: "1h" });
  const released = await releasePaths(peerpost, { by: "user:pat", cwd: parent, paths: [], all: true });
  assert.deepEqual(released.released.map((claim) => [claim.repo, claim.path]).sort(), [[parent, "notes.md"], [repo, "src/a.ts"]]);
  assert.deepEqual(listClaims(peerpost).claims, []);
  const started = Date.now();
  await assert.rejects(claimPaths(peerpost, { holder: "user:pat", cwd: parent, paths: ["a/".repeat(100_000)], ttl: "1h" }), (error: { details: { reason: string } }) => error.details.reason === "too_long");
  assert.ok(Date.now() - started < 5_000, `refused after ${Date.now() - started} ms`);
});

function gitRun(repo: string, env: Record<string, string>, ...args: string[]) {
  return spawnSync("git", args, { cwd: repo, encoding: "utf8", env: { PATH: "/usr/bin:/bin", HOME: repo, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.invalid", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.invalid", ...env } });
}

async function guardedRepo(t: TestContext) {
  const repo = tempRepo(t, { "src/a.ts": "a\n", "src/b.ts": "b\n", "docs/guide.md": "g\n" });
  const tp = tempPeerpost(t);
  const holderHost = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  t.after(() => holderHost.kill("SIGKILL"));
  await tp.peerpost.sessions.register({ host: "codex", address: "codex:holder", sessionId: "holder", hostPid: holderHost.pid!, source: "startup" });
  const env = { HOME: tp.home, PEERPOST_HOME: tp.stateDir, PEERPOST_NOW: String(tp.clock.now) };
  return { repo, env, peerpost: tp.peerpost };
}

/** A guarded repository (its guard installed) where codex:holder holds `pattern` exclusively. */
async function holderClaimsUnderGuard(t: TestContext, pattern: string) {
  const guarded = await guardedRepo(t);
  await claimPaths(guarded.peerpost, { holder: "codex:holder", cwd: guarded.repo, paths: [pattern], ttl: "2h" });
  assert.equal((await cliIn(guarded.repo, guarded.env, "guard", "install")).code, 0);
  return guarded;
}

test("the guard in a submodule refuses a commit of a file the superproject's claim covers", async (t) => {
  const { repo, env, peerpost } = await guardedRepo(t);
  const library = tempRepo(t, { "x.ts": "x\n", "y.ts": "y\n" });
  gitRun(repo, env, "-c", "protocol.file.allow=always", "submodule", "add", "-q", library, "sub");
  assert.equal(gitRun(repo, env, "commit", "-q", "--no-verify", "-m", "sub").status, 0);
  // A glob from the superproject reaching into the submodule stays the superproject's claim.
  await claimPaths(peerpost, { holder: "codex:holder", cwd: repo, paths: ["s*/x.ts"], ttl: "2h" });
  const sub = join(repo, "sub");
  assert.equal((await cliIn(sub, env, "guard", "install")).code, 0);
  writeFileSync(join(sub, "y.ts"), "changed\n");
  assert.equal(gitRun(sub, env, "commit", "-qam", "unclaimed").status, 0, "a file nobody claimed");
  writeFileSync(join(sub, "x.ts"), "changed\n");
  const inside = gitRun(sub, env, "commit", "-qam", "inside");
  assert.notEqual(inside.status, 0, "the superproject's claim on sub/x.ts refuses it");
  assert.match(inside.stderr, /"x\.ts": claimed by codex:holder/);
});

test("a merge committed after a conflict in an unclaimed file is not refused for what the other side changed in a claimed one; its own edit there, or dropping that change, is", async (t) => {
  const { repo, env } = await holderClaimsUnderGuard(t, "src/a.ts");
  gitRun(repo, env, "checkout", "-q", "-b", "holder-work");
  writeFileSync(join(repo, "src/a.ts"), "holder's change\n");
  writeFileSync(join(repo, "docs/guide.md"), "holder's guide\n");
  assert.equal(gitRun(repo, { ...env, PEERPOST_ADDRESS: "codex:holder" }, "commit", "-qam", "holder").status, 0);
  gitRun(repo, env, "checkout", "-q", "main");
  writeFileSync(join(repo, "docs/guide.md"), "my guide\n");
  assert.equal(gitRun(repo, env, "commit", "-qam", "mine").status, 0);
  assert.notEqual(gitRun(repo, env, "merge", "-q", "holder-work").status, 0, "a conflict in the guide");
  writeFileSync(join(repo, "docs/guide.md"), "both guides\n");
  gitRun(repo, env, "add", "docs/guide.md");
  // The merge's own edit in the claimed file is refused...
  writeFileSync(join(repo, "src/a.ts"), "my edit in the merge\n");
  gitRun(repo, env, "add", "src/a.ts");
  const edited = gitRun(repo, env, "commit", "-q", "--no-edit");
  assert.notEqual(edited.status, 0, "an edit made in the merge");
  assert.match(edited.stderr, /"src\/a\.ts": claimed by codex:holder/);
  // ...so is dropping the holder's work the merge brings (keeping this side's old version)...
  gitRun(repo, env, "checkout", "HEAD", "--", "src/a.ts");
  const dropped = gitRun(repo, env, "commit", "-q", "--no-edit");
  assert.notEqual(dropped.status, 0, "the holder's work dropped in the merge");
  assert.match(dropped.stderr, /"src\/a\.ts": claimed by codex:holder/);
  // ...what the holder's side brought, kept as it is, is not.
  gitRun(repo, env, "checkout", "holder-work", "--", "src/a.ts");
  const done = gitRun(repo, env, "commit", "-q", "--no-edit");
  assert.equal(done.status, 0, done.stderr);
});

test("a merge that takes back an old version of a claimed file from a branch that never changed it is refused: it undoes the holder's work", async (t) => {
  const { repo, env } = await holderClaimsUnderGuard(t, "src/a.ts");
  gitRun(repo, env, "checkout", "-q", "-b", "old");
  writeFileSync(join(repo, "docs/guide.md"), "old branch's guide\n");
  assert.equal(gitRun(repo, env, "commit", "-qam", "old").status, 0);
  gitRun(repo, env, "checkout", "-q", "main");
  writeFileSync(join(repo, "src/a.ts"), "holder's work\n");
  assert.equal(gitRun(repo, { ...env, PEERPOST_ADDRESS: "codex:holder" }, "commit", "-qam", "holder").status, 0);
  assert.equal(gitRun(repo, env, "merge", "-q", "--no-commit", "--no-ff", "old").status, 0);
  gitRun(repo, env, "checkout", "old", "--", "src/a.ts");
  const merged = gitRun(repo, env, "commit", "-q", "--no-edit");
  assert.notEqual(merged.status, 0, "the holder's work undone in a merge");
  assert.match(merged.stderr, /"src\/a\.ts": claimed by codex:holder/);
});

test("a merge of unrelated histories with an edit in a claimed file is checked and refused, not let through for a missing merge base", async (t) => {
  const { repo, env } = await holderClaimsUnderGuard(t, "src/**");
  gitRun(repo, env, "checkout", "-q", "--orphan", "other");
  gitRun(repo, env, "rm", "-rq", "--cached", ".");
  writeFileSync(join(repo, "other.txt"), "o\n");
  gitRun(repo, env, "add", "other.txt");
  assert.equal(gitRun(repo, env, "commit", "-q", "--no-verify", "-m", "other root").status, 0);
  gitRun(repo, env, "checkout", "-q", "-f", "main");
  assert.equal(gitRun(repo, env, "merge", "-q", "--no-commit", "--allow-unrelated-histories", "other").status, 0);
  writeFileSync(join(repo, "src/a.ts"), "changed in the merge\n");
  gitRun(repo, env, "add", "src/a.ts");
  const committed = gitRun(repo, env, "commit", "-q", "-m", "merge unrelated");
  assert.notEqual(committed.status, 0, committed.stderr);
  assert.match(committed.stderr, /"src\/a\.ts": claimed by codex:holder/);
});
