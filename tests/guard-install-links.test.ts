// `peerpost guard install` in repositories whose hooks are set up in ways people use: a hook that is a
// symlink into the work tree (a team's scripts/ dir), here one whose script is not on this branch, and
// hooks turned off with core.hooksPath=/dev/null. The guard never writes its hook into the work tree
// through the link, uninstall puts the person's link back, and a hooks path that is no directory is an
// error with a code and a hint, not "a bug in peerpost".
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, lstatSync, readlinkSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { git, tempRepo } from "./helpers/repo.js";
import { cliIn } from "./helpers/cli.js";
import { tempPeerpost } from "./helpers/temp.js";

// The same link where the scripts' directory itself is missing on this branch.
test("a symlinked hook whose directory is missing: install either works or answers with a code, never an internal error", async (t) => {
  const repo = tempRepo(t);
  const { stateDir, home } = tempPeerpost(t);
  symlinkSync("../../tools/hooks/pre-commit", join(repo, ".git", "hooks", "pre-commit"));
  const installed = await cliIn(repo, { HOME: home, PEERPOST_HOME: stateDir }, "guard", "install");
  assert.doesNotMatch(installed.stderr, /internal_error|a bug in peerpost/, installed.stderr);
  assert.equal(installed.code, 0, installed.stderr);
});

test("a pre-commit hook that is a symlink to a script not on this branch: nothing is written into the work tree, and uninstall puts the link back", async (t) => {
  // The team's hook scripts live in tools/hooks/; this branch does not have pre-commit there (yet).
  const repo = tempRepo(t, { "src/a.ts": "a\n", "tools/hooks/README.md": "hooks\n" });
  const { stateDir, home } = tempPeerpost(t);
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  const hook = join(repo, ".git", "hooks", "pre-commit");
  symlinkSync("../../tools/hooks/pre-commit", hook);
  const installed = await cliIn(repo, env, "guard", "install");
  assert.equal(installed.code, 0, installed.stderr);
  assert.equal(git(repo, "status", "--porcelain", "--untracked-files=all"), "", "guard install wrote into the work tree (through the hook's symlink)");
  const removed = await cliIn(repo, env, "guard", "uninstall");
  assert.equal(removed.code, 0, removed.stderr);
  assert.ok(existsSync(hook) || lstatSync(hook, { throwIfNoEntry: false })?.isSymbolicLink(), "uninstall deleted the person's symlinked hook");
  assert.equal(readlinkSync(hook), "../../tools/hooks/pre-commit", "the link is back as it was");
  assert.equal(git(repo, "status", "--porcelain", "--untracked-files=all"), "", "nothing of the guard is left in the work tree");
});

test("hooks turned off with core.hooksPath=/dev/null: install answers with a code and a hint, not an internal error", async (t) => {
  const repo = tempRepo(t);
  const { stateDir, home } = tempPeerpost(t);
  git(repo, "config", "core.hooksPath", "/dev/null");
  const installed = await cliIn(repo, { HOME: home, PEERPOST_HOME: stateDir }, "guard", "install");
  assert.equal(installed.code, 1);
  assert.doesNotMatch(installed.stderr, /internal_error|a bug in peerpost/, installed.stderr);
  assert.match(installed.stderr, /core\.hooksPath/, "the hint names what to change");
});
