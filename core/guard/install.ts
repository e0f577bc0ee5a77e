// `peerpost guard install|uninstall`: git hooks that run `peerpost guard check`: pre-commit and pre-push;
// prepare-commit-msg for the commits a cherry-pick or a rebase makes without pre-commit (the hook runs for
// every commit, and checks only while one of those is under way: a plain commit was checked by
// pre-commit, or let through by --no-verify); pre-applypatch for `git am`. A merge that needs no resolving
// commits without pre-commit, and adds nothing of its own: what it brings in was checked when it was
// committed, and is checked again when it is pushed (check.ts). A revert's commits are checked at push
// only: git leaves no trace of one under way that a hook could tell from a plain commit.
// The hooks directory is git's own answer (core.hooksPath respected). A hook already there is moved
// aside, byte for byte with its mode, and runs first from ours (a failing one still stops the commit);
// uninstall removes ours and moves it back, so the repository is exactly as it was.
import { shellQuote } from "../common/shell-word.js";
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gitPath, topLevel } from "./git.js";
import { PeerpostError } from "../common/errors.js";

export const GUARDED_HOOKS = ["pre-commit", "prepare-commit-msg", "pre-applypatch", "pre-push"] as const;
export type GuardedHook = (typeof GUARDED_HOOKS)[number];
/** What a hook stops, as refusals name it, the word for asking the holder, and how to go on anyway. */
export interface GuardedAction {
  what: string;
  verb: "commit" | "push";
  override: string;
}

export const GUARDED_ACTION: Record<GuardedHook, GuardedAction> = {
  "pre-commit": { what: "commit", verb: "commit", override: "git commit --no-verify, or PEERPOST_GUARD=off git commit …" },
  "prepare-commit-msg": { what: "cherry-pick or rebase", verb: "commit", override: "PEERPOST_GUARD=off git cherry-pick --continue (or rebase --continue)" },
  "pre-applypatch": { what: "patch (git am)", verb: "commit", override: "git am --no-verify, or PEERPOST_GUARD=off git am --continue" },
  "pre-push": { what: "push", verb: "push", override: "git push --no-verify, or PEERPOST_GUARD=off git push …" },
};
const MARKER = "# peerpost guard:";
const CHAINED_SUFFIX = ".peerpost-chained";

/**
 * The hook: the chained one first, then the check. pre-push reads its refs on stdin (kept for both) and
 * passes its remote on; prepare-commit-msg checks only while a cherry-pick or a rebase is under way, as
 * git's own files show, without starting node for a plain commit.
 */
function hookScript(hook: GuardedHook, node: string, cli: string): string {
  const check = `${shellQuote(node)} ${shellQuote(cli)} guard check ${hook}`;
  // The peerpost that installed the hook may be gone since (uninstalled, or nvm's prefix of a node removed):
  // a failure of the guard's own, which lets the commit through with a word, as the check does.
  const gone = `[ -x ${shellQuote(node)} ] && [ -f ${shellQuote(cli)} ] || { echo ${shellQuote(`peerpost guard: ${node} or ${cli} is gone; letting the ${GUARDED_ACTION[hook].what} through. Run \`peerpost guard install\` again.`)} >&2; exit 0; }`;
  const body =
    hook === "pre-push"
      ? ['input=$(cat; echo x); input=${input%x}', runChained(hook, `printf '%s' "$input" | `), gone, `printf '%s' "$input" | exec ${check} "$@"`]
      : [runChained(hook, ""), ...(hook === "prepare-commit-msg" ? [SEQUENCER_UNDER_WAY] : []), gone, `exec ${check} </dev/null`];
  return ["#!/bin/sh", `${MARKER} refuses a ${GUARDED_ACTION[hook].what} touching paths another live session claimed. \`peerpost guard uninstall\` puts back what was here.`, ...body, ""].join("\n");
}

/**
 * Shell: runs the hook that was here before, with this hook's arguments (and `input` on stdin). A shell
 * script is read by a subshell instead of run, so its `$0` is still this hook's path: a dispatcher that
 * finds its own script by `$0` (husky's) would look for `<hook>.peerpost-chained` and quietly do nothing.
 */
function runChained(hook: GuardedHook, input: string): string {
  const chained = `"$(dirname "$0")/${hook}${CHAINED_SUFFIX}"`;
  return [
    `if [ -x ${chained} ]; then`,
    `  case "$(head -n 1 ${chained})" in`,
    `    "#!/bin/sh" | "#!/bin/sh "* | "#!/usr/bin/env sh" | "#!/usr/bin/env sh "*) ${input}( . ${chained} ) || exit $? ;;`,
    `    *) ${input}${chained} "$@" || exit $? ;;`,
    "  esac",
    "fi",
  ].join("\n");
}

/** Shell: exits 0 unless a cherry-pick (CHERRY_PICK_HEAD, for one commit or a range) or a rebase (rebase-merge/) is under way. */
const SEQUENCER_UNDER_WAY = 'for name in CHERRY_PICK_HEAD rebase-merge; do [ -e "$(git rev-parse --git-path "$name")" ] && underway=1; done; [ -n "$underway" ] || exit 0';

export function hooksDir(repo: string): string {
  return gitPath(topLevel(repo), "hooks");
}

/** Whether there is an entry at `path`, a symlink included (a hook linked to a script not on this branch dangles). */
function present(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

function ours(path: string): boolean {
  try {
    return readFileSync(path, "utf8").includes(MARKER);
  } catch {
    return false;
  }
}

export interface GuardChange {
  hooksDir: string;
  hooks: Array<{ hook: GuardedHook; path: string; chained: boolean }>;
}

export function installGuard(repo: string, node: string, cli: string): GuardChange {
  const dir = hooksDir(repo);
  // core.hooksPath=/dev/null is how people turn hooks off.
  const kind = statSync(dir, { throwIfNoEntry: false });
  if (kind !== undefined && !kind.isDirectory())
    throw new PeerpostError("invalid_arguments", `git's hooks path ${dir} is not a directory, so git runs no hooks in this repository.`, {
      details: { hooksDir: dir },
      hint: "core.hooksPath turns hooks off here: set it to a directory (or unset it: git config --unset core.hooksPath), then install again.",
    });
  mkdirSync(dir, { recursive: true });
  // Checked for every hook before any is touched: moving a hook over a kept one would lose that one.
  for (const hook of GUARDED_HOOKS) {
    const path = join(dir, hook);
    if (present(path) && !ours(path) && present(path + CHAINED_SUFFIX))
      throw new PeerpostError("invalid_arguments", `${path} is not peerpost's guard, and ${path + CHAINED_SUFFIX} already keeps the hook that was there before it.`, {
        details: { hook: path, kept: path + CHAINED_SUFFIX },
        hint: "Another tool replaced the guard's hook. Merge the two hooks into one (or remove one of them), then install again.",
      });
  }
  const hooks = GUARDED_HOOKS.map((hook) => {
    const path = join(dir, hook);
    const chainedPath = path + CHAINED_SUFFIX;
    // A symlink is moved aside as a link: writing through it would put the guard into the work tree.
    if (present(path) && !ours(path)) renameSync(path, chainedPath);
    writeFileSync(path, hookScript(hook, node, cli));
    chmodSync(path, 0o755);
    return { hook, path, chained: present(chainedPath) };
  });
  return { hooksDir: dir, hooks };
}

export function uninstallGuard(repo: string): GuardChange {
  const dir = hooksDir(repo);
  const hooks = GUARDED_HOOKS.flatMap((hook) => {
    const path = join(dir, hook);
    if (!ours(path)) return [];
    rmSync(path);
    const chainedPath = path + CHAINED_SUFFIX;
    const chained = present(chainedPath);
    if (chained) renameSync(chainedPath, path);
    return [{ hook, path, chained }];
  });
  return { hooksDir: dir, hooks };
}
