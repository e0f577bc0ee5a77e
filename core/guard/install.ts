// `peerpost guard install|uninstall`: git pre-commit and pre-push hooks that run `peerpost guard check`.
// A merge that needs no resolving commits without pre-commit, and adds nothing of its own: what it brings
// in was checked when it was committed, and is checked again when it is pushed (check.ts).
// The hooks directory is git's own answer (core.hooksPath respected). A hook already there is moved
// aside, byte for byte with its mode, and runs first from ours (a failing one still stops the commit);
// uninstall removes ours and moves it back, so the repository is exactly as it was.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { git, topLevel } from "./git.js";
import { PeerpostError } from "../common/errors.js";

export const GUARDED_HOOKS = ["pre-commit", "pre-push"] as const;
export type GuardedHook = (typeof GUARDED_HOOKS)[number];
/** The git command each hook stops, as refusals name it. */
export const GUARDED_ACTION: Record<GuardedHook, "commit" | "push"> = { "pre-commit": "commit", "pre-push": "push" };
const MARKER = "# peerpost guard:";
const CHAINED_SUFFIX = ".peerpost-chained";

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The hook: the chained one first, then the check. pre-push reads its refs on stdin: kept for both. */
function hookScript(hook: GuardedHook, node: string, cli: string): string {
  const chained = `"$(dirname "$0")/${hook}${CHAINED_SUFFIX}"`;
  const check = `${shellQuote(node)} ${shellQuote(cli)} guard check ${hook} "$@"`;
  const body =
    hook === "pre-push"
      ? ['input=$(cat; echo x); input=${input%x}', `if [ -x ${chained} ]; then printf '%s' "$input" | ${chained} "$@" || exit $?; fi`, `printf '%s' "$input" | exec ${check}`]
      : [`if [ -x ${chained} ]; then ${chained} "$@" || exit $?; fi`, `exec ${check} </dev/null`];
  return ["#!/bin/sh", `${MARKER} refuses a ${GUARDED_ACTION[hook]} touching paths another live session claimed. \`peerpost guard uninstall\` puts back what was here.`, ...body, ""].join("\n");
}

export function hooksDir(repo: string): string {
  const top = topLevel(repo);
  const dir = git(top, ["rev-parse", "--git-path", "hooks"]).replace(/\n$/, "");
  return isAbsolute(dir) ? dir : join(top, dir);
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
  mkdirSync(dir, { recursive: true });
  // Checked for every hook before any is touched: moving a hook over a kept one would lose that one.
  for (const hook of GUARDED_HOOKS) {
    const path = join(dir, hook);
    if (existsSync(path) && !ours(path) && existsSync(path + CHAINED_SUFFIX))
      throw new PeerpostError("invalid_arguments", `${path} is not peerpost's guard, and ${path + CHAINED_SUFFIX} already keeps the hook that was there before it.`, {
        details: { hook: path, kept: path + CHAINED_SUFFIX },
        hint: "Another tool replaced the guard's hook. Merge the two hooks into one (or remove one of them), then install again.",
      });
  }
  const hooks = GUARDED_HOOKS.map((hook) => {
    const path = join(dir, hook);
    const chainedPath = path + CHAINED_SUFFIX;
    if (existsSync(path) && !ours(path)) renameSync(path, chainedPath);
    writeFileSync(path, hookScript(hook, node, cli));
    chmodSync(path, 0o755);
    return { hook, path, chained: existsSync(chainedPath) };
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
    const chained = existsSync(chainedPath);
    if (chained) renameSync(chainedPath, path);
    return [{ hook, path, chained }];
  });
  return { hooksDir: dir, hooks };
}
