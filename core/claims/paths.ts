// Where a claim lives: the repository (the git top level, else the working directory) and the patterns
// in it, relative and normalised, its existing part resolved through symlinks. A pattern that leaves the
// repository (`..`, an absolute path outside, a symlink that leads out) is refused, as is one that names
// the whole repository unless asked for.
// The top level is found by walking up to a `.git` entry, not by running git: an edit hook pays for it.
import { lstatSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import { PeerpostError } from "../common/errors.js";
import { isDirectory } from "../common/is-directory.js";
import { isGlob, matchesEverything, normalisePattern } from "./glob.js";

export const MAX_PATTERNS = 100;
const MAX_PATTERN_LENGTH = 1024;

/** The path with its links resolved, or as given when it does not exist (yet). */
export function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The git top level a path is in: the nearest directory up from it with a `.git` entry; undefined outside git. */
export function gitTopOf(start: string): string | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    try {
      lstatSync(join(dir, ".git"));
      return realOrSelf(dir);
    } catch {
      // Not here; one level up.
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** Every git top level a path is in, nearest first: a submodule's, then its superproject's (whose claims reach into it). */
export function gitTopsOf(start: string): string[] {
  const tops: string[] = [];
  for (let top = gitTopOf(start); top !== undefined; top = dirname(top) === top ? undefined : gitTopOf(dirname(top))) tops.push(top);
  return tops;
}

/** A pattern's segments (`/` or `\` between them) before its first wildcard, and those from it on. */
function splitAtGlob(pattern: string): { literal: string; globs: string[] } {
  const segments = pattern.replace(/\\/g, "/").split("/");
  const firstGlob = segments.findIndex((segment) => isGlob(segment));
  return firstGlob < 0 ? { literal: segments.join("/"), globs: [] } : { literal: segments.slice(0, firstGlob).join("/"), globs: segments.slice(firstGlob) };
}

/** `path` with the deepest part of it that exists resolved through symlinks. */
function realAsFarAsItExists(path: string): string {
  for (let dir = path; ; dir = dirname(dir)) {
    try {
      return join(realpathSync(dir), relative(dir, path));
    } catch {
      if (dirname(dir) === dir) return path;
    }
  }
}

/**
 * The repository a pattern names files of: the git top level of its literal part (before any wildcard),
 * followed through symlinks as far as it exists; undefined outside git. A path written from the parent
 * directory of several clones, or from a superproject into a submodule, belongs to the repository it goes
 * into, where the edit hook and the guard of that repository look for it.
 */
export function repositoryOfPattern(pattern: string, cwd: string): string | undefined {
  const { literal } = splitAtGlob(pattern);
  const base = realOrSelf(resolve(cwd));
  const real = realAsFarAsItExists(resolve(base, literal));
  const top = gitTopOf(real);
  // A path that names a submodule itself from above it (`sub`, `sub/**` from the superproject) is the
  // superproject's, `sub/**` there, as claimed from there before.
  const fromAbove = top !== undefined && top === real && base !== top && !base.startsWith(top + sep);
  return fromAbove && dirname(top) !== top ? (gitTopOf(dirname(top)) ?? top) : top;
}

/** `to` relative to `from`, with `/` between its segments whatever the system's separator: as claims store paths. */
export function slashRelative(from: string, to: string): string {
  return relative(from, to).split(sep).join("/");
}

/** The repository a path is in: its git top level, else `fallback` (the working directory). */
export function repositoryOf(start: string, fallback = start): string {
  return gitTopOf(start) ?? realOrSelf(resolve(fallback));
}

function refused(pattern: string, reason: "outside" | "symlink" | "everything" | "empty" | "too_long", message: string, hint: string): PeerpostError {
  return new PeerpostError("invalid_arguments", message, { details: { field: "paths", value: pattern.slice(0, 200), reason }, hint });
}

const OUTSIDE_HINT = "Claim paths inside the repository (the git top level, or the working directory outside git), relative to where you are or absolute.";

/**
 * The pattern with the part of its literal segments (those before the first wildcard) that exists resolved
 * through symlinks: a claim names the files an edit reaches, whichever link it is made through, as an
 * edit's path is resolved the same way (hooks/edit-check.ts). Refused when that leads out of the repository.
 */
function throughLinks(root: string, relativePattern: string, original: string): string {
  const segments = relativePattern === "" ? [] : relativePattern.split("/");
  const firstGlob = segments.findIndex((segment) => isGlob(segment));
  // The deepest literal part that exists decides: what does not exist yet cannot lead anywhere.
  let existing = firstGlob < 0 ? segments.length : firstGlob;
  for (; existing > 0; existing--) {
    try {
      lstatSync(join(root, ...segments.slice(0, existing)));
      break;
    } catch {
      // Not there yet: one segment up.
    }
  }
  if (existing === 0) return relativePattern;
  const probe = join(root, ...segments.slice(0, existing));
  let real: string;
  try {
    real = realpathSync(probe);
  } catch {
    return relativePattern;
  }
  if (real !== root && !real.startsWith(root + sep)) throw refused(original, "symlink", `${original} leads out of the repository ${root} through a symlink (to ${real}).`, OUTSIDE_HINT);
  return normalisePattern([slashRelative(root, real), ...segments.slice(existing)].join("/"));
}

export interface PatternOptions {
  /** The repository root (a real path). */
  root: string;
  /** Where relative patterns start (the caller's working directory). */
  cwd: string;
  /** Allow a pattern that names the whole repository. */
  all?: boolean;
}

/**
 * `joined` (the pattern made absolute, normalised) relative to the root, or undefined when it is outside. An
 * absolute path written through a link to the repository (macOS's /tmp, a linked home) is in it once its
 * literal part (`literal`, before the segments from the first wildcard, `globs`) is followed through links
 * as far as it exists.
 */
function inRoot(root: string, joined: string, literal: string, globs: readonly string[]): string | undefined {
  const relativeTo = (path: string) => {
    const inside = slashRelative(root, path);
    return inside === ".." || inside.startsWith("../") || isAbsolute(inside) ? undefined : inside;
  };
  const direct = relativeTo(joined);
  if (direct !== undefined) return direct;
  const real = relativeTo(realAsFarAsItExists(literal));
  return real === undefined ? undefined : [real, ...globs].filter((part) => part !== "" && part !== ".").join("/");
}

/** Refuses a pattern too long or empty to name anything, before any directory is looked at for it. */
export function checkPatternText(pattern: string): void {
  if (pattern.length > MAX_PATTERN_LENGTH) throw refused(pattern, "too_long", `A path of ${pattern.length} characters is longer than ${MAX_PATTERN_LENGTH}.`, "Claim a shorter path or a directory above it.");
  if (pattern.trim() === "" || pattern.includes("\0")) throw refused(pattern, "empty", "An empty path cannot be claimed.", "Give a file, a directory or a glob such as src/**.");
}

/** One pattern as stored: relative to the root, normalised; refused when it leaves the root. */
export function repositoryPattern(pattern: string, options: PatternOptions): string {
  checkPatternText(pattern);
  const raw = pattern.replace(/\\/g, "/");
  // `..` resolves against the caller's directory only before the first wildcard: `*/..` names nothing certain.
  const { literal: literalPart, globs } = splitAtGlob(raw);
  if (globs.includes(".."))
    throw refused(pattern, "outside", `${pattern} has '..' after a wildcard.`, "Write the pattern without '..' after its first wildcard.");
  const base = isAbsolute(raw) ? "/" : realOrSelf(resolve(options.cwd)).split(sep).join("/");
  const joined = posix.normalize(posix.join(base, raw));
  const relativePattern = inRoot(options.root, joined, posix.normalize(posix.join(base, literalPart)), globs);
  if (relativePattern === undefined)
    throw refused(pattern, "outside", `${pattern} is outside the repository ${options.root}.`, OUTSIDE_HINT);
  const normal = throughLinks(options.root, normalisePattern(relativePattern), pattern);
  if (!options.all && matchesEverything(normal))
    throw refused(pattern, "everything", `${pattern} names the whole repository ${options.root}.`, "Claim the directories you work in, or pass --all (all: true) to claim the whole repository on purpose.");
  // A directory is claimed with everything under it: one that exists, and any path or glob written with a trailing slash.
  const directory = !normal.endsWith("**") && (/[/\\]$/.test(pattern) || (!isGlob(normal) && isDirectory(join(options.root, normal))));
  const stored = !directory ? normal : normal === "" ? "**" : `${normal}/**`;
  // Made relative to the root, a short path written from deep in the tree is longer than it was given.
  if (stored.length > MAX_PATTERN_LENGTH) throw refused(pattern, "too_long", `This path is ${stored.length} characters long from the repository's root (${options.root}), longer than ${MAX_PATTERN_LENGTH}.`, "Claim a shorter path or a directory above it.");
  return stored;
}
