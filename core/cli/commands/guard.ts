// peerpost guard install|uninstall [--repo DIR]: git hooks that refuse a commit or push touching paths
// another live session claimed exclusively. `guard check HOOK` is what those hooks run.
import { readFileSync, realpathSync } from "node:fs";
import { logError } from "../../common/error-log.js";
import { syncClaims } from "../../claims/sync.js";
import { guardedAction, guardFindings, personsOwnCommit, refusalText } from "../../guard/check.js";
import { GUARDED_ACTION, GUARDED_HOOKS, installGuard, uninstallGuard, type GuardedHook } from "../../guard/install.js";
import { openPeerpost } from "../../peerpost.js";
import { isDirectory } from "../../common/is-directory.js";
import { PeerpostError } from "../../common/errors.js";
import { defineCommand } from "../command.js";
import { printJson } from "../output.js";

/** The guard's own failure: said on stderr, and the commit or push goes through (0). */
function letThrough(hook: GuardedHook, error: unknown): number {
  process.stderr.write(`peerpost guard: could not check the claims (${error instanceof Error ? error.message : String(error)}); letting the ${GUARDED_ACTION[hook].what} through.\n`);
  return 0;
}

/** The hook's check: exit 1 with the holders named, 0 otherwise; its own failure lets the commit through, said on stderr. */
async function check(hook: GuardedHook, remote: string | undefined): Promise<number> {
  if (hook === "prepare-commit-msg" && personsOwnCommit()) return 0;
  let peerpost: ReturnType<typeof openPeerpost>;
  try {
    peerpost = openPeerpost({ create: false });
  } catch (error) {
    // Its settings or its state dir refused (a bad variable, an unsafe mode): a failure of its own, as below.
    return letThrough(hook, error);
  }
  if (!peerpost || peerpost.config.guard === "off") return 0;
  try {
    await syncClaims(peerpost, `guard ${hook}`);
    const refs = hook === "pre-push" ? readFileSync(0, "utf8") : "";
    const findings = guardFindings(peerpost, process.cwd(), hook, refs, remote);
    if (findings.length === 0) return 0;
    process.stderr.write(refusalText(guardedAction(process.cwd(), hook), findings));
    return 1;
  } catch (error) {
    logError(peerpost.stateDir.path, `guard ${hook}`, error);
    return letThrough(hook, error);
  } finally {
    await peerpost.backend.close({ wait: false });
  }
}

export const guardCommand = defineCommand({
  name: "guard",
  summary: "git hooks that refuse commits and pushes touching others' claims",
  usage: "install|uninstall [--repo DIR]",
  details:
    "install adds pre-commit, prepare-commit-msg (checking only a cherry-pick's or a rebase's commits), pre-applypatch (git am) and pre-push hooks to the repository (in core.hooksPath when set). A hook already there runs first, unchanged; uninstall puts it back byte for byte. " +
    "The hooks refuse a commit, cherry-pick, rebase, patch or push that touches a path another live session claimed exclusively, name the holder, and say how to override: git commit (or push, am) --no-verify, or PEERPOST_GUARD=off.",
  flags: { repo: { type: "string", value: "DIR", help: "The repository (default: the one you are in).", complete: "file" } },
  args: { min: 1, max: 4, name: "install, uninstall (or check HOOK [REMOTE URL], which the hooks run)", complete: ["install", "uninstall"] },
  examples: ["peerpost guard install", "peerpost guard uninstall --repo ~/src/app"],
  async run({ flags, args, json, usageError }) {
    const [action, hook, ...rest] = args as [string, string | undefined, ...string[]];
    if (action === "check") {
      if (!GUARDED_HOOKS.includes(hook as GuardedHook)) throw usageError(`check needs ${GUARDED_HOOKS.join(", ")}, not ${JSON.stringify(hook)}`);
      // git passes pre-push the remote's name and URL, or the URL twice when the push names no remote.
      const [name, url] = rest;
      return check(hook as GuardedHook, name !== undefined && name !== url ? name : undefined);
    }
    if ((action !== "install" && action !== "uninstall") || hook !== undefined || rest.length > 0) throw usageError(`needs install or uninstall, not ${JSON.stringify(args.join(" "))}`);
    const repo = flags.repo ?? process.cwd();
    // git run in a directory that is not there fails as if git were missing (spawnSync git ENOENT).
    if (!isDirectory(repo)) throw new PeerpostError("not_found", `${repo} is not a directory.`, { details: { repo }, hint: "Give --repo the repository's directory, or run the command inside it." });
    // The hooks run this very CLI with this node, whatever PATH git has.
    const change = action === "install" ? installGuard(repo, process.execPath, realpathSync(process.argv[1]!)) : uninstallGuard(repo);
    if (json) printJson({ ok: true, ...change });
    else
      process.stdout.write(
        change.hooks.length === 0
          ? `no peerpost guard hooks in ${change.hooksDir}\n`
          : change.hooks.map((entry) => `${action === "install" ? "installed" : "removed"} ${entry.path}${entry.chained ? (action === "install" ? " (the hook that was there runs first)" : " (the earlier hook is back)") : ""}\n`).join(""),
      );
    return 0;
  },
});
