// The pre-tool hook: an edit or file write to a path another live session holds exclusively is refused
// through the host's own deny answer, with one line the model reads (who, until when, how to ask).
// Shared claims and the session's own pass. It reads only the claims' lines of the log (through the
// per-address index), and like every hook it allows the call and logs why on any failure of its own.
import { dirname, isAbsolute, join, parse, relative, resolve, sep } from "node:path";
import { readlinkSync, realpathSync, statSync } from "node:fs";
import { openPeerpost, type Peerpost } from "../core/peerpost.js";
import { formatAddress } from "../core/common/address.js";
import { readClaims } from "../core/claims/claims.js";
import { blockingClaims, type ClaimEntry } from "../core/claims/fold.js";
import { heldBefore, holderGone } from "../core/claims/holders.js";
import { gitTopsOf, slashRelative } from "../core/claims/paths.js";
import { SYNC_BATCH } from "../core/store/postgres/mirror.js";
import { syncClaims } from "../core/claims/sync.js";
import { escapeVisible } from "../core/security/escape.js";
import type { HookDialect, HookInput } from "./dialect.js";
import { EDIT_EVENTS } from "./programs.js";
import type { HookProgram } from "./run.js";

/**
 * The paths an edit of `path` may write: the file through its directory's real path (a symlinked checkout
 * names the same claims), and when the file itself is a symlink, what it leads to, which a write through it
 * changes or creates (claims are stored resolved the same way, claims/paths.ts).
 */
function realPaths(path: string, hops = 0): string[] {
  const dir = deepestExisting(path);
  let realDir: string;
  try {
    realDir = realpathSync(dir);
  } catch {
    return [path];
  }
  const inRealDir = join(realDir, relative(dir, path));
  return [inRealDir, ...linkTarget(inRealDir, hops)];
}

/**
 * The deepest directory above `path` that exists, found from the root down: a path of thousands of
 * directories that do not exist costs one look past the last that does, not a look (and a copy of the
 * whole path) at each level up.
 */
function deepestExisting(path: string): string {
  const root = parse(path).root;
  const parts = dirname(path).slice(root.length).split(sep).filter((part) => part !== "");
  let dir = root;
  for (const part of parts) {
    const next = join(dir, part);
    let isDir: boolean;
    try {
      isDir = statSync(next, { throwIfNoEntry: false })?.isDirectory() ?? false;
    } catch {
      // ENAMETOOLONG, ELOOP, EACCES: nothing below can be written through it; one path's failure never drops the others' checks.
      isDir = false;
    }
    if (!isDir) return dir;
    dir = next;
  }
  return dir;
}

/** Where a symlink leads, followed even when its target does not exist yet (a write creates it); none for a file that is no link. */
function linkTarget(path: string, hops: number): string[] {
  let target: string;
  try {
    target = readlinkSync(path);
  } catch {
    return [];
  }
  // The kernel gives up on a chain of 40 links too.
  return hops >= 40 ? [] : realPaths(resolve(dirname(path), target), hops + 1);
}

/** Every existing directory above a path, nearest first, up to the root: a claim was made from one. */
function directoriesAbove(path: string): string[] {
  const dirs: string[] = [];
  for (let dir = deepestExisting(path); ; dir = dirname(dir)) {
    dirs.push(dir);
    if (dirname(dir) === dir) return dirs;
  }
}

/** Longer than this, no system writes a path (Linux's PATH_MAX): no claim can concern it. */
const MAX_PATH_BYTES = 4096;

export interface Blocked {
  path: string;
  entry: ClaimEntry;
}

/** The first claim of another live holder that keeps `editor` out of one of `paths`. */
export function firstBlocking(peerpost: Peerpost, editor: string, cwd: string, paths: readonly string[]): Blocked | undefined {
  const now = peerpost.config.now();
  // Measured as the host writes it: resolved, its `..` dropped (Codex normalizes a patch path so).
  const writable = paths.filter((path) => Buffer.byteLength(resolve(cwd, path), "utf8") < MAX_PATH_BYTES);
  // Each path as given too: a write through a linked directory inside a claimed one (src/shared -> ../lib) lands elsewhere, yet names a claimed path.
  const wanted = writable.flatMap((path) => {
    const given = isAbsolute(path) ? resolve(path) : resolve(cwd, path);
    return [...new Set([given, ...realPaths(given)])].flatMap((absolute) => {
      // A directory that does not exist holds no `.git`: the walk up starts at the deepest that does.
      const tops = gitTopsOf(deepestExisting(absolute));
      // Outside git a claim's repository is the directory it was made from: any directory above the file.
      return (tops.length === 0 ? directoriesAbove(absolute) : tops).flatMap((repo) => {
        const inRepo = slashRelative(repo, absolute);
        return inRepo === "" || inRepo.startsWith("../") ? [] : [{ repo, inRepo }];
      });
    });
  });
  // Only the segments of these paths are read (readClaims).
  const blocking = readClaims(peerpost, (state) => wanted.map(({ repo, inRepo }) => ({ path: inRepo, entries: blockingClaims(state, repo, inRepo, editor, now) })));
  for (const { path, entries } of blocking) {
    const entry = entries.find((claim) => !holderGone(peerpost, claim.holder) && !heldBefore(peerpost, claim.holder, editor));
    if (entry) return { path, entry };
  }
  return undefined;
}

/** The one line the model reads. */
export function refusal({ path, entry }: Blocked): string {
  // The reason is the holder's text, read by this session's model: escaped as every other session's text is.
  const why = entry.reason !== undefined ? ` (${JSON.stringify(escapeVisible(entry.reason, { multiline: true }))})` : "";
  return `peerpost: ${escapeVisible(path)} is claimed exclusively by ${entry.holder} until ${entry.until}${why}. Ask the holder with peerpost's message tool (to ${entry.holder}) before changing it, or work elsewhere.`;
}

/**
 * The host's answer to a tool call that writes where another live session holds an exclusive claim;
 * undefined lets it run. After the call (post-tool) only `warn` speaks, on a host with no note before it.
 */
export async function editCheck(dialect: HookDialect, event: "pre-tool" | "post-tool", input: HookInput, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const paths = input.tool ? dialect.writes(input.tool) : [];
  if (paths.length === 0 || (event === "post-tool" && !dialect.noteAfter)) return undefined;
  const peerpost = openPeerpost({ env, kind: "hook", create: false });
  if (!peerpost || peerpost.config.claimsEdits === "off" || (event === "post-tool" && peerpost.config.claimsEdits !== "warn")) return undefined;
  try {
    // A mirror one batch does not bring up to date (a machine new to a large shared store) is brought up to
    // date all the same, once: a claim made lately is at the store's end, past what one batch copies.
    if ((await syncClaims(peerpost, `edit-check ${event}`, { trust: "followed", budget: SYNC_BATCH })) === "behind") await syncClaims(peerpost, `edit-check ${event}`, { trust: "followed" });
    const blocked = firstBlocking(peerpost, formatAddress(dialect.kind, input.sessionId), input.cwd ?? process.cwd(), paths);
    if (!blocked) return undefined;
    const line = refusal(blocked);
    if (event === "post-tool") return dialect.noteAfter!(line);
    return peerpost.config.claimsEdits === "warn" ? dialect.allowWithNote(line) : dialect.deny(line);
  } finally {
    await peerpost.backend.close({ wait: false });
  }
}

/** The program of the edit events: edit-program.cjs, which loads nothing of the mail's hooks. */
export const editProgram: HookProgram = {
  events: EDIT_EVENTS,
  logic: async (dialect, event, input, env) => {
    const stdout = await editCheck(dialect, event as "pre-tool" | "post-tool", input, env);
    return stdout === undefined ? {} : { stdout };
  },
};
