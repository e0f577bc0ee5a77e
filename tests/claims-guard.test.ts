// The commit guard in real repositories with the real git: an existing pre-commit hook still runs and
// core.hooksPath is respected; a commit or push touching another live session's exclusive claim is
// refused with the holder named and the override said, through renames, a detached HEAD and names with
// spaces and newlines; the committer's own claims never refuse; uninstall restores the hooks byte for byte.
// A push from a linked worktree counts the claims of every worktree; a person's --no-verify at a rebase's
// stop passes through a git alias too; a guard whose peerpost is gone lets commits through with a word.
// A committer whose login name cannot be a user: address is still held to the claims.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git, tempRepo } from "./helpers/repo.js";
import { cliIn } from "./helpers/cli.js";
import { runHook } from "./helpers/hooks.js";
import { REPO_ROOT } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { onCleanup, tempDir, tempPeerpost } from "./helpers/temp.js";
import { claimPaths } from "../core/claims/claims.js";

const notRoot = process.getuid?.() !== 0 ? "needs root to run git as a uid with no passwd entry" : false;
/** A uid with no passwd entry. */
const UID = 4243;

/** Every file of a directory with its bytes and mode, to compare before and after. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of existsSync(dir) ? readdirSync(dir) : []) files[name] = `${statSync(join(dir, name)).mode.toString(8)}:${readFileSync(join(dir, name), "base64")}`;
  return files;
}

function gitRun(repo: string, env: Record<string, string>, ...args: string[]) {
  return spawnSync("git", args, { cwd: repo, encoding: "utf8", env: { PATH: "/usr/bin:/bin", HOME: repo, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.invalid", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.invalid", ...env } });
}

/** A repository whose hooks dir already has a pre-commit that leaves a mark; a live Codex session claims src/** and a path with a space and a newline. */
async function guarded(t: TestContext, hooksPath?: string) {
  const repo = tempRepo(t, { "src/a.ts": "a\n", "src/b.ts": "b\n", "docs/guide.md": "g\n", "odd dir/x\ny.txt": "o\n" });
  const { peerpost, stateDir, home } = tempPeerpost(t);
  if (hooksPath !== undefined) git(repo, "config", "core.hooksPath", hooksPath);
  const hooksDir = join(repo, hooksPath ?? ".git/hooks");
  mkdirSync(hooksDir, { recursive: true });
  writeFileSync(join(hooksDir, "pre-commit"), `#!/bin/sh\necho ran >> "${join(repo, ".git", "old-hook-ran")}"\n`);
  chmodSync(join(hooksDir, "pre-commit"), 0o750);
  const before = snapshot(hooksDir);
  const holderHost = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  onCleanup(t, () => holderHost.kill("SIGKILL"));
  await peerpost.sessions.register({ host: "codex", address: "codex:holder", sessionId: "holder", hostPid: holderHost.pid!, source: "startup" });
  const clockEnv = { PEERPOST_NOW: String(Date.parse("2026-01-01T00:30:00.000Z")) };
  await claimPaths(peerpost, { holder: "codex:holder", cwd: repo, paths: ["src/**", "odd dir/x\ny.txt"], reason: "refactor", ttl: "2h" });
  const env = { HOME: home, PEERPOST_HOME: stateDir, ...clockEnv };
  const installed = await cliIn(repo, env, "guard", "install", "--json");
  assert.equal(installed.code, 0, installed.stderr);
  return { repo, env, hooksDir, before, peerpost };
}

function commitFile(repo: string, env: Record<string, string>, path: string, ...flags: string[]) {
  writeFileSync(join(repo, path), `changed ${Math.random()}\n`);
  gitRun(repo, env, "add", "--", path);
  return gitRun(repo, env, "commit", "-q", "-m", `change ${path}`, ...flags);
}

/** A bare repository added to `repo` as remote `name`; its path. */
function addRemote(t: TestContext, repo: string, name: string): string {
  const remote = tempDir(t, "peerpost-remote-");
  git(remote, "init", "-q", "--bare");
  git(repo, "remote", "add", name, remote);
  return remote;
}

for (const hooksPath of [undefined, ".githooks"]) {
  test(`the guard refuses a commit into another session's claim, and chains the existing hook${hooksPath ? " (core.hooksPath)" : ""}`, async (t) => {
    const { repo, env, hooksDir, before } = await guarded(t, hooksPath);
    const refused = commitFile(repo, env, "src/a.ts");
    assert.notEqual(refused.status, 0, "refused");
    assert.match(refused.stderr, /peerpost guard: this commit touches paths another live session holds exclusively:\n  "src\/a\.ts": claimed by codex:holder until \S+ \("refactor"\)/);
    assert.match(refused.stderr, /git commit --no-verify, or PEERPOST_GUARD=off git commit/);
    assert.equal(readFileSync(join(repo, ".git", "old-hook-ran"), "utf8"), "ran\n", "the hook that was there ran first");
    gitRun(repo, env, "reset", "-q");
    git(repo, "checkout", "-q", "--", "src/a.ts");

    assert.equal(commitFile(repo, env, "docs/guide.md").status, 0, "an unclaimed path commits");
    // A rename out of the claim touches it too; a path with a space and a newline is matched as it is.
    const renamed = gitRun(repo, env, "mv", "src/b.ts", "lib-b.ts").status === 0 && gitRun(repo, env, "commit", "-q", "-m", "move");
    assert.ok(renamed && renamed.status !== 0 && /"src\/b\.ts": claimed by codex:holder/.test(renamed.stderr), renamed ? renamed.stderr : "git mv failed");
    gitRun(repo, env, "reset", "-q", "--hard");
    const odd = commitFile(repo, env, "odd dir/x\ny.txt");
    assert.notEqual(odd.status, 0);
    assert.match(odd.stderr, /"odd dir\/x\\ny\.txt": claimed by codex:holder/);
    gitRun(repo, env, "reset", "-q", "--hard");
    // On a detached HEAD as on a branch; the overrides let it through.
    git(repo, "checkout", "-q", "--detach");
    assert.notEqual(commitFile(repo, env, "src/a.ts").status, 0, "refused on a detached HEAD");
    assert.equal(gitRun(repo, { ...env, PEERPOST_GUARD: "off" }, "commit", "-q", "-m", "anyway").status, 0, "PEERPOST_GUARD=off");
    assert.equal(commitFile(repo, env, "src/b.ts", "--no-verify").status, 0, "--no-verify");

    const removed = await cliIn(repo, env, "guard", "uninstall");
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(snapshot(hooksDir), before, "uninstall restores the hooks byte for byte, modes too");
  });
}

test("the committer's own claims never refuse, and a push carrying a commit into another's claim is refused", async (t) => {
  const { repo, env, peerpost } = await guarded(t);
  await claimPaths(peerpost, { holder: "claude:me", cwd: repo, paths: ["docs/**"], ttl: "2h" });
  await claimPaths(peerpost, { holder: "user:pat", cwd: repo, paths: ["README.md"], ttl: "2h" });
  writeFileSync(join(repo, "README.md"), "r\n");
  assert.equal(commitFile(repo, { ...env, PEERPOST_ADDRESS: "claude:me" }, "docs/guide.md").status, 0, "PEERPOST_ADDRESS's own claim");
  assert.equal(commitFile(repo, { ...env, PEERPOST_USER: "pat" }, "README.md").status, 0, "the person's own claim");
  assert.notEqual(commitFile(repo, { ...env, PEERPOST_USER: "sam" }, "README.md").status, 0, "another person's claim refuses");
  gitRun(repo, env, "reset", "-q", "--hard");

  addRemote(t, repo, "origin");
  // The first push carries the whole history, claimed files included: it goes with --no-verify.
  const first = gitRun(repo, env, "push", "-q", "origin", "HEAD:refs/heads/main");
  assert.match(first.stderr, /this push touches paths another live session holds exclusively:\n[^]*  "src\/a\.ts": claimed by codex:holder/, "a new branch's commits are all checked");
  assert.equal(gitRun(repo, env, "push", "-q", "--no-verify", "origin", "HEAD:refs/heads/main").status, 0);
  assert.equal(commitFile(repo, env, "notes.txt").status, 0);
  const clean = gitRun(repo, env, "push", "-q", "origin", "HEAD:refs/heads/main");
  assert.equal(clean.status, 0, `nothing claimed in what is pushed: ${clean.stderr}`);
  assert.equal(commitFile(repo, env, "src/a.ts", "--no-verify").status, 0);
  const pushed = gitRun(repo, env, "push", "-q", "origin", "HEAD:refs/heads/main");
  assert.notEqual(pushed.status, 0);
  assert.match(pushed.stderr, /peerpost guard: this push touches paths another live session holds exclusively:\n  "src\/a\.ts": claimed by codex:holder/);
  assert.match(pushed.stderr, /git push --no-verify, or PEERPOST_GUARD=off git push/);
});

test("a push checks exactly what the remote lacks: merges included, another remote's branches not, a remote tip never fetched not trusted", async (t) => {
  const { repo, env } = await guarded(t);
  addRemote(t, repo, "origin");
  const branch = git(repo, "rev-parse", "--abbrev-ref", "HEAD").trim();
  assert.equal(gitRun(repo, env, "push", "-q", "--no-verify", "origin", branch).status, 0);
  // A feature branch, and a commit into the claim on the main branch that is on the remote already.
  gitRun(repo, env, "checkout", "-q", "-b", "feature");
  assert.equal(commitFile(repo, env, "notes.txt").status, 0);
  assert.equal(gitRun(repo, env, "push", "-q", "origin", "feature").status, 0);
  gitRun(repo, env, "checkout", "-q", branch);
  assert.equal(commitFile(repo, env, "src/a.ts", "--no-verify").status, 0);
  assert.equal(gitRun(repo, env, "push", "-q", "--no-verify", "origin", branch).status, 0);

  gitRun(repo, env, "checkout", "-q", "feature");
  assert.equal(gitRun(repo, env, "merge", "-q", "--no-edit", "--no-verify", `origin/${branch}`).status, 0);
  const updated = gitRun(repo, env, "push", "-q", "origin", "feature");
  assert.equal(updated.status, 0, `merging what the remote has into a branch touches nothing new: ${updated.stderr}`);

  // An edit made inside a merge commit (a conflict resolved) is the merge's own change.
  gitRun(repo, env, "checkout", "-q", "-b", "evil", `origin/${branch}`);
  gitRun(repo, env, "merge", "-q", "--no-commit", "--no-ff", "origin/feature");
  writeFileSync(join(repo, "src/b.ts"), "changed in the merge\n");
  gitRun(repo, env, "add", "src/b.ts");
  assert.equal(gitRun(repo, env, "commit", "-q", "--no-verify", "-m", "merge").status, 0);
  const evil = gitRun(repo, env, "push", "-q", "origin", "evil");
  assert.notEqual(evil.status, 0, "an edit in a merge commit is checked");
  assert.match(evil.stderr, /"src\/b\.ts": claimed by codex:holder/);

  // A commit into the claim that origin has is new to another remote.
  addRemote(t, repo, "upstream");
  const toUpstream = gitRun(repo, env, "push", "-q", "upstream", branch);
  assert.notEqual(toUpstream.status, 0, "what origin has is not what upstream has");
  assert.match(toUpstream.stderr, /"src\/a\.ts": claimed by codex:holder/);

  // Someone else pushed to feature since our last fetch; a force push replaces a tip this repository never saw.
  const other = tempDir(t, "peerpost-other-");
  git(other, "clone", "-q", git(repo, "remote", "get-url", "origin").trim(), ".");
  gitRun(other, {}, "checkout", "-q", "feature");
  writeFileSync(join(other, "theirs.txt"), "theirs\n");
  gitRun(other, {}, "add", "theirs.txt");
  assert.equal(gitRun(other, {}, "commit", "-q", "-m", "theirs").status, 0);
  assert.equal(gitRun(other, {}, "push", "-q", "origin", "feature").status, 0);
  gitRun(repo, env, "checkout", "-q", "feature");
  assert.equal(commitFile(repo, env, "src/a.ts", "--no-verify").status, 0);
  const forced = gitRun(repo, env, "push", "-q", "--force", "origin", "feature");
  assert.notEqual(forced.status, 0, `a force push over an unknown tip is checked, not let through: ${forced.stderr}`);
  assert.match(forced.stderr, /"src\/a\.ts": claimed by codex:holder/);
});

test("a remote whose name has a slash is still a remote: what its branches have is not checked again; a push to a bare URL checks everything", async (t) => {
  const { repo, env } = await guarded(t);
  const remote = addRemote(t, repo, "team/upstream");
  const branch = git(repo, "rev-parse", "--abbrev-ref", "HEAD").trim();
  // The history on the remote touches the claimed src/** already.
  assert.equal(gitRun(repo, env, "push", "-q", "--no-verify", "team/upstream", branch).status, 0);
  gitRun(repo, env, "checkout", "-q", "-b", "feature");
  assert.equal(commitFile(repo, env, "notes.txt").status, 0);
  const named = gitRun(repo, env, "push", "-q", "team/upstream", "feature");
  assert.equal(named.status, 0, `only notes.txt is new to team/upstream: ${named.stderr}`);
  // A remote named `team` has none of team/upstream's branches, though their refs sit under refs/remotes/team/.
  addRemote(t, repo, "team");
  const toTeam = gitRun(repo, env, "push", "-q", "team", "feature");
  assert.notEqual(toTeam.status, 0, "what team/upstream has is not what team has");
  assert.match(toTeam.stderr, /"src\/a\.ts": claimed by codex:holder/);
  // A branch of team's own with a slash in its name counts for team.
  assert.equal(gitRun(repo, env, "push", "-q", "--no-verify", "team", "feature:refs/heads/work/one").status, 0);
  assert.equal(commitFile(repo, env, "more-notes.txt").status, 0);
  const onTeam = gitRun(repo, env, "push", "-q", "team", "feature:refs/heads/work/two");
  assert.equal(onTeam.status, 0, `only more-notes.txt is new to team: ${onTeam.stderr}`);
  // Named by its URL, the push has no remote's branches to go by (git passes the URL twice).
  const byUrl = gitRun(repo, env, "push", "-q", remote, "feature:refs/heads/other");
  assert.notEqual(byUrl.status, 0, "nothing is known to be at a bare URL");
  assert.match(byUrl.stderr, /"src\/a\.ts": claimed by codex:holder/);
});

test("a merge that needs no resolving is not refused: pulling what others pushed goes through, and what a merge brings from unpushed work is checked at its push", async (t) => {
  const { repo, env } = await guarded(t);
  addRemote(t, repo, "origin");
  const branch = git(repo, "rev-parse", "--abbrev-ref", "HEAD").trim();
  // The holder's own work on its claimed file, already on the remote.
  assert.equal(commitFile(repo, env, "src/a.ts", "--no-verify").status, 0);
  assert.equal(gitRun(repo, env, "push", "-q", "--no-verify", "origin", branch).status, 0);
  gitRun(repo, env, "checkout", "-q", "-b", "feature", `${branch}~1`);
  assert.equal(commitFile(repo, env, "docs/guide.md").status, 0);
  const pulled = gitRun(repo, env, "merge", "-q", "--no-edit", `origin/${branch}`);
  assert.equal(pulled.status, 0, `merging the remote's history: ${pulled.stderr}`);
  assert.equal(gitRun(repo, env, "push", "-q", "origin", "feature").status, 0, "and pushing that merge");
  // Work that never reached the remote, committed past the guard, merged in: its push is where it is caught.
  gitRun(repo, env, "checkout", "-q", "-b", "unpushed", branch);
  assert.equal(commitFile(repo, env, "src/b.ts", "--no-verify").status, 0);
  gitRun(repo, env, "checkout", "-q", "feature");
  assert.equal(gitRun(repo, env, "merge", "-q", "--no-edit", "unpushed").status, 0);
  const pushed = gitRun(repo, env, "push", "-q", "origin", "feature");
  assert.notEqual(pushed.status, 0);
  assert.match(pushed.stderr, /"src\/b\.ts": claimed by codex:holder/);
});

test("a push of a merge that drops the holder's pushed change to its claimed file (`merge -s ours`, which runs no pre-commit) is refused", async (t) => {
  const { repo, env } = await guarded(t);
  const remote = addRemote(t, repo, "origin");
  const branch = git(repo, "rev-parse", "--abbrev-ref", "HEAD").trim();
  // The holder's own work on its claimed file, on the remote.
  assert.equal(commitFile(repo, env, "src/a.ts", "--no-verify").status, 0);
  assert.equal(gitRun(repo, env, "push", "-q", "--no-verify", "origin", branch).status, 0);
  const holders = git(repo, "show", "HEAD:src/a.ts");
  // Someone else, on a branch from before it, merges the remote keeping only their own side.
  gitRun(repo, env, "checkout", "-q", "-b", "feature", `${branch}~1`);
  assert.equal(commitFile(repo, env, "docs/guide.md").status, 0);
  const merged = gitRun(repo, env, "merge", "-q", "-s", "ours", "--no-edit", `origin/${branch}`);
  assert.equal(merged.status, 0, merged.stderr);
  assert.equal(git(repo, "show", "HEAD:src/a.ts"), "a\n", "the merge dropped the holder's change");
  const pushed = gitRun(repo, env, "push", "-q", "origin", `feature:${branch}`);
  assert.notEqual(pushed.status, 0, "the push went through");
  assert.match(pushed.stderr, /"src\/a\.ts": claimed by codex:holder/);
  assert.equal(git(remote, "show", `${branch}:src/a.ts`), holders, "the remote keeps the holder's work");
});

test("a cherry-pick, a rebase and git am are checked at each commit they make; a plain commit --no-verify still passes, and PEERPOST_GUARD=off lets a stopped one go on", async (t) => {
  const { repo, env } = await guarded(t);
  const branch = git(repo, "rev-parse", "--abbrev-ref", "HEAD").trim();
  // Work into the claim, made past the guard on a side branch, then brought over in each of git's ways.
  gitRun(repo, env, "checkout", "-q", "-b", "side");
  assert.equal(commitFile(repo, env, "notes.txt").status, 0);
  assert.equal(commitFile(repo, env, "src/a.ts", "--no-verify").status, 0);
  const patch = join(tempDir(t), "patch");
  git(repo, "format-patch", "-q", "-1", "HEAD", "-o", patch);
  gitRun(repo, env, "checkout", "-q", branch);
  const head = () => git(repo, "rev-parse", "HEAD").trim();
  const before = head();

  const picked = gitRun(repo, env, "cherry-pick", "side");
  assert.notEqual(picked.status, 0, "cherry-pick of a commit into the claim");
  assert.match(picked.stderr, /this cherry-pick or rebase touches paths another live session holds exclusively:\n  "src\/a\.ts": claimed by codex:holder[^]*PEERPOST_GUARD=off git cherry-pick --continue/);
  assert.equal(head(), before, "no commit made");
  const onward = gitRun(repo, { ...env, PEERPOST_GUARD: "off" }, "cherry-pick", "--continue");
  assert.equal(onward.status, 0, onward.stderr);
  assert.notEqual(head(), before, "PEERPOST_GUARD=off went on");
  gitRun(repo, env, "reset", "-q", "--hard", before);
  // A range: the commit outside the claim goes, the one into it stops the pick.
  const range = gitRun(repo, env, "cherry-pick", `${branch}..side`);
  assert.notEqual(range.status, 0);
  assert.equal(git(repo, "log", "-1", "--format=%s").trim(), "change notes.txt", "the first pick went through");
  gitRun(repo, env, "cherry-pick", "--abort");

  // The branch moves on, so a rebase of side onto it replays side's commits.
  assert.equal(commitFile(repo, env, "docs/guide.md").status, 0);
  const rebased = gitRun(repo, env, "rebase", "-q", branch, "side");
  assert.notEqual(rebased.status, 0, "a rebase replaying a commit into the claim");
  assert.match(rebased.stderr + rebased.stdout, /"src\/a\.ts": claimed by codex:holder/);
  gitRun(repo, env, "rebase", "--abort");
  gitRun(repo, env, "checkout", "-q", branch);

  const moved = head();
  const applied = gitRun(repo, env, "am", "-q", ...readdirSync(patch).map((name) => join(patch, name)));
  assert.notEqual(applied.status, 0, "git am of a patch into the claim");
  assert.match(applied.stderr, /this patch \(git am\) touches paths[^]*"src\/a\.ts": claimed by codex:holder/);
  assert.equal(head(), moved);
  gitRun(repo, env, "am", "--abort");

  // A plain commit runs the sequencer's check too (prepare-commit-msg), and skips it: --no-verify is still the override.
  assert.equal(commitFile(repo, env, "src/b.ts", "--no-verify").status, 0);

  // A person's own commit at a rebase's stop is pre-commit's to check, and --no-verify still lets it through.
  const editFirst = { ...env, GIT_SEQUENCE_EDITOR: "sed -i 1s/^pick/edit/" };
  assert.equal(gitRun(repo, editFirst, "rebase", "-q", "-i", "HEAD~1").status, 0, "stopped at the commit");
  writeFileSync(join(repo, "src/a.ts"), "edited at the stop\n");
  gitRun(repo, env, "add", "src/a.ts");
  const atStop = gitRun(repo, env, "commit", "-q", "-m", "at the stop");
  assert.notEqual(atStop.status, 0);
  assert.match(atStop.stderr, /this commit touches[^]*git commit --no-verify/);
  const noVerify = gitRun(repo, env, "commit", "-q", "--no-verify", "-m", "at the stop");
  assert.equal(noVerify.status, 0, noVerify.stderr);
  const continued = gitRun(repo, env, "rebase", "--continue");
  assert.equal(continued.status, 0, continued.stderr);

  // A rebase by patches runs git am's hook: its refusal says how to go on with the rebase, and that works.
  gitRun(repo, env, "checkout", "-q", "-B", "onto", before);
  assert.equal(commitFile(repo, env, "docs/guide.md").status, 0);
  gitRun(repo, env, "checkout", "-q", "-B", "patches", before);
  assert.equal(commitFile(repo, env, "src/a.ts", "--no-verify").status, 0);
  const byPatches = gitRun(repo, env, "rebase", "-q", "--apply", "onto");
  assert.notEqual(byPatches.status, 0);
  assert.match(byPatches.stderr, /this rebase touches[^]*To go on anyway: PEERPOST_GUARD=off git rebase --continue/);
  const resumed = gitRun(repo, { ...env, PEERPOST_GUARD: "off" }, "rebase", "--continue");
  assert.equal(resumed.status, 0, resumed.stderr);
  assert.equal(git(repo, "rev-parse", "--abbrev-ref", "HEAD").trim(), "patches", "the rebase finished");
});

test("a remote with fifty thousand branches (pull requests fetched as refs) is checked, not let through for a failed git", async (t) => {
  const { repo, env } = await guarded(t);
  addRemote(t, repo, "team");
  const branch = git(repo, "rev-parse", "--abbrev-ref", "HEAD").trim();
  assert.equal(gitRun(repo, env, "push", "-q", "--no-verify", "team", branch).status, 0);
  const base = git(repo, "rev-parse", "HEAD").trim();
  // Packed, as a fetch of that many refs leaves them: every one at the pushed commit.
  const refs = Array.from({ length: 50_000 }, (_, n) => `${base} refs/remotes/team/pr/${n}`);
  writeFileSync(join(repo, ".git", "packed-refs"), `# pack-refs with: peeled fully-peeled sorted\n${refs.sort().join("\n")}\n`);
  assert.equal(commitFile(repo, env, "src/a.ts", "--no-verify").status, 0);
  const pushed = gitRun(repo, env, "push", "-q", "team", branch);
  assert.notEqual(pushed.status, 0, pushed.stderr);
  assert.match(pushed.stderr, /this push touches[^]*"src\/a\.ts": claimed by codex:holder/);
});

test("husky's hooks still run after the guard is installed over them: its dispatcher finds its script by the hook's own name", async (t) => {
  const { repo, env } = await guarded(t);
  // husky 9's layout: core.hooksPath .husky/_, each hook there a two-line script that sources the dispatcher, which runs .husky/<its own name>.
  git(repo, "config", "core.hooksPath", ".husky/_");
  mkdirSync(join(repo, ".husky", "_"), { recursive: true });
  writeFileSync(join(repo, ".husky", "_", "h"), '#!/usr/bin/env sh\nn=$(basename "$0")\ns=$(dirname "$(dirname "$0")")/$n\n[ ! -f "$s" ] && exit 0\nsh -e "$s" "$@"\n');
  for (const hook of ["pre-commit", "prepare-commit-msg"]) writeFileSync(join(repo, ".husky", "_", hook), '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n', { mode: 0o755 });
  writeFileSync(join(repo, ".husky", "prepare-commit-msg"), 'printf "[JIRA-1] %s" "$(cat "$1")" > "$1"\n');
  writeFileSync(join(repo, ".husky", "pre-commit"), `echo ran >> "${join(repo, ".git", "husky-ran")}"\n`);
  assert.equal(commitFile(repo, env, "notes.txt").status, 0);
  assert.equal(git(repo, "log", "-1", "--format=%s").trim(), "[JIRA-1] change notes.txt", "husky before the guard");
  const installed = await cliIn(repo, env, "guard", "install", "--json");
  assert.equal(installed.code, 0, installed.stderr);
  assert.equal(commitFile(repo, env, "notes.txt").status, 0);
  assert.equal(git(repo, "log", "-1", "--format=%s").trim(), "[JIRA-1] change notes.txt", "husky's prepare-commit-msg still ran");
  assert.equal(readFileSync(join(repo, ".git", "husky-ran"), "utf8"), "ran\nran\n", "and its pre-commit, both times");
  const refused = commitFile(repo, env, "src/a.ts");
  assert.notEqual(refused.status, 0, "the guard still refuses");
});

test("a commit that also adds a path of thousands of characters is checked, not let through for a failure of the check", async (t) => {
  const { repo, env, peerpost } = await guarded(t);
  // A pattern with a leading wildcard is compared character by character with the long path.
  await claimPaths(peerpost, { holder: "codex:holder", cwd: repo, paths: ["**/*.md"], ttl: "2h" });
  writeFileSync(join(repo, "src", "a.ts"), "changed\n");
  gitRun(repo, env, "add", "src/a.ts");
  const blob = git(repo, "hash-object", "-w", "src/b.ts").trim();
  git(repo, "update-index", "--add", "--cacheinfo", `100644,${blob},${"deep/".repeat(2400)}notes.md`);
  const commit = gitRun(repo, env, "commit", "-q", "-m", "both");
  assert.notEqual(commit.status, 0, commit.stderr.slice(0, 300));
  assert.match(commit.stderr, /"src\/a\.ts": claimed by codex:holder/);
  assert.match(commit.stderr, /"(deep\/){2400}notes\.md": claimed by codex:holder/);
});

test("submodules: an edit inside one is checked against a claim made from the superproject, and a commit that moves one is checked against claims inside it", async (t) => {
  const { repo, env, peerpost } = await guarded(t);
  const library = tempRepo(t, { "x.ts": "x\n" });
  gitRun(repo, env, "-c", "protocol.file.allow=always", "submodule", "add", "-q", library, "sub");
  assert.equal(gitRun(repo, env, "commit", "-q", "--no-verify", "-m", "sub").status, 0);
  await claimPaths(peerpost, { holder: "codex:holder", cwd: repo, paths: ["sub/x.ts"], ttl: "2h" });
  const edit = await runHook("claude-code", "pre-tool", { session_id: "editor", cwd: repo, hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: join(repo, "sub", "x.ts"), content: "y" } }, env);
  // Claimed from the superproject, the file is the submodule's own x.ts.
  assert.match(edit.stdout, /"permissionDecision":"deny"[^]*peerpost: x\.ts is claimed exclusively by codex:holder/);
  const sub = join(repo, "sub");
  writeFileSync(join(sub, "x.ts"), "changed\n");
  assert.equal(gitRun(sub, env, "commit", "-qam", "inside", "--no-verify").status, 0);
  gitRun(repo, env, "add", "sub");
  const moved = gitRun(repo, env, "commit", "-q", "-m", "move sub");
  assert.notEqual(moved.status, 0, "the commit moving the submodule is refused");
  assert.match(moved.stderr, /"sub": claimed by codex:holder/);
});

test("installing again over a hook another tool put in the guard's place refuses, and loses neither hook", async (t) => {
  const { repo, env, hooksDir } = await guarded(t);
  // A hook framework rewrites pre-commit after the guard was installed.
  writeFileSync(join(hooksDir, "pre-commit"), "#!/bin/sh\necho framework\n");
  const kept = readFileSync(join(hooksDir, "pre-commit.peerpost-chained"), "utf8");
  const again = await cliIn(repo, env, "guard", "install");
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /already keeps the hook that was there before it/);
  assert.equal(readFileSync(join(hooksDir, "pre-commit"), "utf8"), "#!/bin/sh\necho framework\n", "the framework's hook is where it was");
  assert.equal(readFileSync(join(hooksDir, "pre-commit.peerpost-chained"), "utf8"), kept, "the first hook is still kept");
});

test("a push from a linked worktree carrying a commit into another session's claim is refused, as the same push from the main checkout is", async (t) => {
  const { repo, env } = await guarded(t);
  addRemote(t, repo, "origin");
  assert.equal(gitRun(repo, env, "push", "-q", "origin", "HEAD:refs/heads/main", "--no-verify").status, 0);

  // Another agent works in a worktree of the same repository, and commits into the claimed file.
  const worktree = join(tempDir(t), "wt");
  assert.equal(gitRun(repo, env, "worktree", "add", "-q", worktree, "-b", "side").status, 0);
  writeFileSync(join(worktree, "src/a.ts"), "changed in the worktree\n");
  assert.equal(gitRun(worktree, env, "commit", "-q", "--no-verify", "-a", "-m", "into the claim").status, 0);

  const fromMain = gitRun(repo, env, "push", "-q", "origin", "side:refs/heads/main");
  assert.notEqual(fromMain.status, 0, "from the main checkout the push is refused");
  assert.match(fromMain.stderr, /"src\/a\.ts": claimed by codex:holder/);
  const fromWorktree = gitRun(worktree, env, "push", "-q", "origin", "side:refs/heads/main");
  assert.match(fromWorktree.stderr, /"src\/a\.ts": claimed by codex:holder/, "the same commits pushed from the worktree");
  assert.notEqual(fromWorktree.status, 0, "refused from the worktree too");
});

test("at a rebase's stop, a person's --no-verify commit through a git alias passes, as `git commit --no-verify` does", async (t) => {
  const { repo, env } = await guarded(t);
  git(repo, "config", "alias.ci", "commit");
  writeFileSync(join(repo, "docs/guide.md"), "more\n");
  assert.equal(gitRun(repo, env, "commit", "-q", "-a", "-m", "docs").status, 0);

  const editFirst = { ...env, GIT_SEQUENCE_EDITOR: "sed -i 1s/^pick/edit/" };
  const stopped = gitRun(repo, editFirst, "rebase", "-q", "-i", "HEAD~1");
  assert.equal(stopped.status, 0, stopped.stderr);
  writeFileSync(join(repo, "src/a.ts"), "edited at the stop\n");
  gitRun(repo, env, "add", "src/a.ts");
  // Without --no-verify the alias is refused by pre-commit, as a plain commit is.
  const checked = gitRun(repo, env, "ci", "-q", "-m", "at the stop");
  assert.notEqual(checked.status, 0);
  assert.match(checked.stderr, /this commit touches/);
  const noVerify = gitRun(repo, env, "ci", "-q", "--no-verify", "-m", "at the stop");
  assert.equal(noVerify.status, 0, `the person's override, through an alias:\n${noVerify.stderr}`);
});

test("a guard whose peerpost was removed lets commits through with a word, rather than refusing every commit", async (t) => {
  const repo = tempRepo(t);
  const { stateDir, home } = tempPeerpost(t);
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  // A peerpost installed in a prefix of its own, which installs the guard.
  const prefix = tempDir(t, "peerpost-prefix-");
  cpSync(join(REPO_ROOT, "dist"), join(prefix, "dist"), { recursive: true });
  const installed = await collect(spawn(process.execPath, [join(prefix, "dist", "cli.mjs"), "guard", "install"], { cwd: repo, env: { PATH: "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(installed.code, 0, installed.stderr);
  writeFileSync(join(repo, "notes.txt"), "n\n");
  gitRun(repo, env, "add", "notes.txt");
  // That peerpost is removed; the repository's hooks stay.
  rmSync(prefix, { recursive: true, force: true });
  const committed = gitRun(repo, env, "commit", "-q", "-m", "notes");
  assert.equal(committed.status, 0, `every commit refused:\n${committed.stderr}`);
});

test("the commit guard refuses a commit into another session's claim when the login name cannot be a user: address", { skip: notRoot }, async (t) => {
  const repo = tempRepo(t, { "src/a.ts": "a\n" });
  const { peerpost, stateDir, home } = tempPeerpost(t);
  const holderHost = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  onCleanup(t, () => holderHost.kill("SIGKILL"));
  await peerpost.sessions.register({ host: "codex", address: "codex:holder", sessionId: "holder", hostPid: holderHost.pid!, source: "startup" });
  await claimPaths(peerpost, { holder: "codex:holder", cwd: repo, paths: ["src/**"], reason: "refactor", ttl: "2h" });
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(Date.parse("2026-01-01T00:30:00.000Z")) };
  const installed = await cliIn(repo, env, "guard", "install", "--json");
  assert.equal(installed.code, 0, installed.stderr);
  writeFileSync(join(repo, "src/a.ts"), "changed\n");
  // Everything the committer uses is theirs: a uid with no passwd entry, whose USER is a domain login.
  for (const dir of [repo, home]) spawnSync("chown", ["-R", `${UID}:${UID}`, dir]);
  chmodSync(home, 0o700);
  const gitEnv = { ...env, PATH: "/usr/bin:/bin", USER: "ana@corp.example", GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.invalid", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.invalid" };
  const asUser = (...args: string[]) => spawnSync("setpriv", [`--reuid=${UID}`, `--regid=${UID}`, "--clear-groups", "git", ...args], { cwd: repo, encoding: "utf8", env: gitEnv });
  assert.equal(asUser("add", "src/a.ts").status, 0);
  const commit = asUser("commit", "-q", "-m", "into the claim");
  assert.doesNotMatch(commit.stderr, /could not check the claims/, "the guard failed open");
  assert.notEqual(commit.status, 0, `the commit went through:\n${commit.stderr}`);
  assert.match(commit.stderr, /"src\/a\.ts": claimed by codex:holder/);
});
