// `peerpost guard check pre-commit|pre-push`, run by the guard's git hooks: the paths a commit (the
// index against HEAD, both sides of a rename) or a push (every commit the remote does not have yet, merges included)
// touches, checked against the claims of other live holders. The committer's own claims never refuse:
// PEERPOST_ADDRESS, the person's user:<name>, and every session whose host process is an ancestor of git.
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { Peerpost } from "../peerpost.js";
import { readClaims } from "../claims/claims.js";
import { blockingClaims, blockingWithin, type ClaimEntry, type ClaimsState } from "../claims/fold.js";
import { holderGone } from "../claims/holders.js";
import { gitTopOf, gitTopsOf, realOrSelf, slashRelative } from "../claims/paths.js";
import { isDirectory } from "../common/is-directory.js";
import { ancestors } from "../sessions/process-tree.js";
import { ownAddress } from "../sessions/people.js";
import { git, gitPath, namesFromStatus, topLevel } from "./git.js";
import { GUARDED_ACTION, type GuardedAction, type GuardedHook } from "./install.js";
import { escapeVisible } from "../security/escape.js";

const NO_COMMIT = /^0+$/;

/** Whether the repository has this commit (a remote's tip that was never fetched has not). */
function hasCommit(top: string, sha: string): boolean {
  try {
    git(top, ["cat-file", "-e", `${sha}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

/**
 * The tips of what this repository knows of `remote`'s branches: its refs under refs/remotes/<remote>/,
 * but not those of another remote whose name goes on from there (`team/upstream`'s are under `team`'s
 * prefix too; `--remotes=team` would take them for team's).
 */
function remoteTips(top: string, remote: string): string[] {
  const prefix = `refs/remotes/${remote}/`;
  const nested = git(top, ["remote"]).split("\n").filter((name) => name !== "" && name !== remote && `refs/remotes/${name}/`.startsWith(prefix)).map((name) => `refs/remotes/${name}/`);
  const tips = new Set<string>();
  for (const line of git(top, ["for-each-ref", "--format=%(objectname) %(refname)", prefix]).split("\n")) {
    const space = line.indexOf(" ");
    if (space > 0 && !nested.some((other) => line.startsWith(other, space + 1))) tips.add(line.slice(0, space));
  }
  return [...tips];
}

/**
 * The commits a push sends that the remote does not have, as revisions for `git log --stdin`: those of
 * `localSha` that are neither in the remote's tip (when this repository has it) nor in what it knows of
 * that remote's branches (`remote` is its name, undefined for a push to a bare URL: then no branch is
 * known to be there). On stdin, not as arguments: a remote with tens of thousands of branches (pull
 * requests fetched as refs) would pass the system's limit on them, and the check would fail.
 */
function pushedCommits(top: string, localSha: string, remoteSha: string, remote: string | undefined): string {
  const known = remote === undefined ? [] : remoteTips(top, remote);
  const tip = NO_COMMIT.test(remoteSha) || !hasCommit(top, remoteSha) ? [] : [remoteSha];
  return [localSha, ...[...tip, ...known].map((sha) => `^${sha}`), ""].join("\n");
}

/** The heads a merge in progress brings in (MERGE_HEAD: one line each, several for an octopus), or none. */
function mergeHeads(top: string): string[] {
  const path = gitPath(top, "MERGE_HEAD");
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter((line) => /^[0-9a-f]{40,64}$/.test(line)) : [];
}

/**
 * The paths the commit being made changes: the index against HEAD; for a merge commit (a conflict
 * resolved, then `git commit`) as each merged head's changes are kept or dropped. A path left as a head
 * has it after that head changed it since the merge base is what the head brought (a holder's own pushed
 * work: not the committer's change); one a head changed that the merge does not keep as it is, dropped
 * back to HEAD's version included, and one taken from a head that never changed it (undoing this side's
 * work) are the merge's own.
 */
function stagedPaths(top: string): string[] {
  const names = (args: string[]) => new Set(namesFromStatus(git(top, ["diff", "--name-status", "-z", "-M", ...args])));
  const paths = names(["--cached"]);
  const brought: Array<{ differs: Set<string>; changed: Set<string> }> = [];
  for (const head of mergeHeads(top)) {
    const differs = names(["--cached", head]);
    const changed = names([mergeBase(top, head), head]);
    for (const path of changed) if (differs.has(path)) paths.add(path);
    brought.push({ differs, changed });
  }
  return [...paths].filter((path) => !brought.some(({ differs, changed }) => changed.has(path) && !differs.has(path)));
}

/** Where `from` (HEAD) and `head` part, or the empty tree for histories that never met (a merge with --allow-unrelated-histories): all the head has, it brought. */
function mergeBase(top: string, head: string, from = "HEAD"): string {
  try {
    return git(top, ["merge-base", from, head]).trim();
  } catch {
    return git(top, ["hash-object", "-t", "tree", "/dev/null"]).trim();
  }
}

/**
 * The paths the change the hook is about touches, relative to the top level. A merge commit counts for
 * what it changed against every parent (`--cc`: a conflict resolved, an edit made in the merge).
 */
export function touchedPaths(top: string, hook: GuardedHook, refsOnStdin: string, remote?: string): string[] {
  // A commit, a cherry-pick's or a rebase's commit, a patch: the index against HEAD.
  if (hook !== "pre-push") return stagedPaths(top);
  const paths = new Set<string>();
  for (const line of refsOnStdin.split("\n")) {
    const [, localSha, , remoteSha] = line.trim().split(/\s+/);
    if (localSha === undefined || remoteSha === undefined || NO_COMMIT.test(localSha)) continue;
    const commits = pushedCommits(top, localSha, remoteSha, remote);
    for (const path of namesFromStatus(git(top, ["log", "--format=", "--name-status", "-z", "-M", "--cc", "--stdin"], commits))) paths.add(path);
    // `--cc` lists only what a merge changed against every parent: a merge that drops what one parent changed
    // (`merge -s ours`, which runs no pre-commit) keeps another parent's version and is not listed there.
    for (const path of droppedByMerges(top, commits)) paths.add(path);
  }
  return [...paths];
}

/** The paths the pushed merges drop or undo: ones a parent changed since it parted from another, that the merge does not keep as that parent has them. */
function droppedByMerges(top: string, commits: string): Set<string> {
  const names = (args: string[]) => new Set(namesFromStatus(git(top, ["diff", "--name-status", "-z", "-M", ...args])));
  const dropped = new Set<string>();
  for (const line of git(top, ["log", "--merges", "--format=%H %P", "--stdin"], commits).split("\n")) {
    const [merge, ...parents] = line.trim().split(" ");
    if (merge === undefined || merge === "" || parents.length < 2) continue;
    for (const parent of parents) {
      const differs = names([parent, merge]);
      for (const other of parents) if (other !== parent) for (const path of names([mergeBase(top, parent, other), parent])) if (differs.has(path)) dropped.add(path);
    }
  }
  return dropped;
}

/** The addresses whose claims are the committer's own. */
export function committerAddresses(peerpost: Peerpost): Set<string> {
  const own = new Set<string>();
  // A login name that cannot be an address (no PEERPOST_USER) holds no claims: the check goes on without it.
  const person = ownAddress(peerpost);
  if (person !== undefined) own.add(person);
  if (peerpost.config.address !== undefined) own.add(peerpost.config.address);
  const pids = new Set(ancestors().map((info) => info.pid));
  // The sessions its Claude Code process left (/clear, /resume) too: their claims are the process's own.
  for (const session of peerpost.sessions.list({ includeDead: true })) if ((session.alive || session.leftFor !== undefined) && session.hostPid !== undefined && pids.has(session.hostPid)) own.add(session.address);
  return own;
}

export interface GuardFinding {
  path: string;
  entry: ClaimEntry;
}

/**
 * The claims that keep others out of one touched path: those of the repository and of every superproject
 * around it (whose claims reach into a submodule, as the edit hook counts them); for a path that is a
 * directory on disk, a submodule, those on anything in it, its own repository's included.
 */
function blockingAt(state: ClaimsState, tops: readonly string[], worktrees: readonly string[], path: string, now: number): ClaimEntry[] {
  const absolute = join(tops[0]!, path);
  const submodule = isDirectory(absolute);
  const blocking = submodule ? blockingWithin : blockingClaims;
  const entries = tops.flatMap((repo) => blocking(state, repo, slashRelative(repo, absolute), "", now));
  // A push's commits are the same from every worktree of the repository: their claims count too.
  for (const root of worktrees) entries.push(...blocking(state, root, path, "", now));
  const inner = submodule ? gitTopOf(absolute) : undefined;
  if (inner !== undefined && inner !== tops[0]) entries.push(...blockingWithin(state, inner, "", "", now));
  return entries;
}

/** The top levels of the repository's other worktrees (`git worktree add`), real paths: they share its commits, branches and remotes. */
function otherWorktrees(top: string): string[] {
  const roots = git(top, ["worktree", "list", "--porcelain"])
    .split("\n")
    .filter((line) => line.startsWith("worktree "))
    .map((line) => line.slice("worktree ".length));
  const here = realOrSelf(top);
  return [...new Set(roots.map(realOrSelf))].filter((root) => root !== here);
}

export function guardFindings(peerpost: Peerpost, cwd: string, hook: GuardedHook, refsOnStdin: string, remote?: string): GuardFinding[] {
  const top = topLevel(cwd);
  const tops = gitTopsOf(top);
  // A push from any worktree sends the same commits to the same remote; a commit stays in its worktree's
  // branch, as edits there do (the edit hook counts the claims of the worktree's own top level).
  const worktrees = hook === "pre-push" ? otherWorktrees(top) : [];
  const own = committerAddresses(peerpost);
  const now = peerpost.config.now();
  const touched = touchedPaths(top, hook, refsOnStdin, remote);
  // Only the segments of the touched paths are read (readClaims).
  const blocking = readClaims(peerpost, (state) => touched.map((path) => ({ path, entries: blockingAt(state, tops, worktrees, path, now) })));
  const findings: GuardFinding[] = [];
  for (const { path, entries } of blocking) {
    const entry = entries.find((claim) => !own.has(claim.holder) && !holderGone(peerpost, claim.holder));
    if (entry) findings.push({ path, entry });
  }
  return findings;
}

/** A rebase by patches (`git rebase --apply`) runs git am's hook: its refusal says how to go on with the rebase. */
const REBASE_BY_PATCHES: GuardedAction = { what: "rebase", verb: "commit", override: "PEERPOST_GUARD=off git rebase --continue" };

/** What the hook stops, as its refusal names it. */
export function guardedAction(cwd: string, hook: GuardedHook): GuardedAction {
  if (hook === "pre-applypatch" && existsSync(gitPath(cwd, "rebase-apply/rebasing"))) return REBASE_BY_PATCHES;
  return GUARDED_ACTION[hook];
}

/** The git subcommand a process runs (`git -C dir commit -m x` → commit), or undefined for a process that is no git. */
function gitSubcommand(command: string): string | undefined {
  const words = command.split(" ");
  if (basename(words[0] ?? "") !== "git") return undefined;
  for (let at = 1; at < words.length; at++) {
    const word = words[at]!;
    if (!word.startsWith("-")) return word;
    // Global options whose value is the next word.
    if (["-c", "-C", "--git-dir", "--work-tree", "--namespace"].includes(word)) at++;
  }
  return undefined;
}

/**
 * Whether prepare-commit-msg runs for a person's own `git commit` (during a rebase's stop, after a
 * conflict): pre-commit checked it, or --no-verify let it through, which this hook cannot see and must
 * not undo. A commit a cherry-pick or a rebase makes runs the hook from that git itself, or from a
 * `git commit` it started.
 */
export function personsOwnCommit(): boolean {
  const [parent, grandparent] = ancestors(process.pid, 2);
  if (parent === undefined || gitSubcommand(parent.command) !== "commit") return false;
  // A git above it that is no command of those that commit on their own is a person's alias (`git ci`, alias.ci=commit), which git runs as a child `git commit`.
  const above = grandparent === undefined ? undefined : gitSubcommand(grandparent.command);
  return above === undefined || !SEQUENCING.has(above);
}

/** The git commands that make commits of their own, through a `git commit` child at times. */
const SEQUENCING = new Set(["rebase", "cherry-pick", "revert", "am", "pull", "merge", "commit"]);

/** What the hook prints on refusal: each path with its holder, then how to ask and how to override. */
export function refusalText(action: GuardedAction, findings: readonly GuardFinding[]): string {
  const { what, verb, override } = action;
  const lines = findings.map(({ path, entry }) => `  ${JSON.stringify(escapeVisible(path, { multiline: true }))}: claimed by ${entry.holder} until ${entry.until}${entry.reason !== undefined ? ` (${JSON.stringify(escapeVisible(entry.reason, { multiline: true }))})` : ""}`);
  const holders = [...new Set(findings.map(({ entry }) => entry.holder))];
  return [
    `peerpost guard: this ${what} touches paths another live session holds exclusively:`,
    ...lines,
    `Ask the holder first: peerpost send --to ${holders[0]} --anticipation reply 'May I ${verb} …?'`,
    `To go on anyway: ${override}`,
    "",
  ].join("\n");
}
