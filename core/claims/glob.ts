// Claim patterns: repository-relative paths and globs, and whether two of them can name the same path.
// Only `*` (any characters but `/`), `**` (any characters, `/` included) and `?` (one character but `/`)
// are special, and a leading-segment `**/` also matches no directory at all; everything else is itself. A
// directory is claimed as `dir/**` (paths.ts). Overlap is decided exactly, on the patterns' tokens (an
// intersection of two regular languages), never by trying sample paths.

/**
 * One token of a pattern: a literal character, or a wildcard; or before a leading-segment `**\/`, a fork
 * that also goes on past it (`to`: the index after its `/`), so that `**\/` matches no directory too.
 */
type Token = { kind: "char"; char: string } | { kind: "one" } | { kind: "star" } | { kind: "globstar" } | { kind: "skip"; to: number };

export interface MatchOptions {
  /** Compare letters without case (file systems that fold case: macOS, Windows). */
  ignoreCase?: boolean;
}

/**
 * The normal form of a repository-relative pattern: `/` separators, no `.` or empty segments, no
 * trailing slash, runs of `*` longer than two cut to `**`. `..` is not resolved here (see paths.ts).
 */
export function normalisePattern(pattern: string): string {
  return pattern
    .replace(/\\/g, "/")
    .split("/")
    .filter((segment) => segment !== "" && segment !== ".")
    .map((segment) => segment.replace(/\*{3,}/g, "**"))
    .join("/");
}

/** Whether a pattern has a wildcard at all (a plain path otherwise). */
export function isGlob(pattern: string): boolean {
  return /[*?]/.test(pattern);
}

/** Whether every segment is made of wildcards only (`**`, `*`, `*\/**`, the empty root): it names the whole repository. */
export function matchesEverything(pattern: string): boolean {
  const normal = normalisePattern(pattern);
  return normal === "" || normal.split("/").every((segment) => /^\*+$/.test(segment));
}

function tokens(pattern: string, literal: boolean): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (literal || (char !== "*" && char !== "?")) out.push({ kind: "char", char });
    else if (char === "?") out.push({ kind: "one" });
    else if (pattern[i + 1] === "*") {
      if (pattern[i + 2] === "/" && (i === 0 || pattern[i - 1] === "/")) out.push({ kind: "skip", to: out.length + 3 });
      out.push({ kind: "globstar" });
      i++;
    } else out.push({ kind: "star" });
  }
  return out;
}

/** A pattern's tokens (the empty pattern, the repository's root, covers everything). */
function covering(pattern: string): Token[] {
  return pattern === "" ? [{ kind: "globstar" }] : tokens(pattern, false);
}

function isStar(token: Token | undefined): boolean {
  return token?.kind === "star" || token?.kind === "globstar";
}

/** Whether the token accepts one character matched by the other token (both single-character tokens or stars). */
function sameCharacterPossible(a: Token, b: Token, ignoreCase: boolean): boolean {
  if (a.kind === "char" && b.kind === "char") return ignoreCase ? a.char.toLowerCase() === b.char.toLowerCase() : a.char === b.char;
  const char = a.kind === "char" ? a.char : b.kind === "char" ? b.char : undefined;
  // Only a globstar takes a slash; a `?` or `*` on either side rules it out.
  if (char === "/") return (a.kind === "globstar" || a.kind === "char") && (b.kind === "globstar" || b.kind === "char");
  return true;
}

/**
 * Whether some string is in both token languages: a walk over position pairs, each visited once. With a
 * stack of its own, not recursion: a path of thousands of characters would overflow the call stack.
 */
function intersects(a: Token[], b: Token[], ignoreCase: boolean): boolean {
  const seen = new Set<number>();
  const width = b.length + 1;
  const pending: Array<[number, number]> = [[0, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [i, j] = next;
    if (i === a.length && j === b.length) return true;
    const key = i * width + j;
    if (seen.has(key)) continue;
    seen.add(key);
    const x = a[i];
    const y = b[j];
    // A leading-segment `**/`: into it, or past it (no directory at all).
    if (x?.kind === "skip") {
      pending.push([i + 1, j], [x.to, j]);
      continue;
    }
    if (y?.kind === "skip") {
      pending.push([i, j + 1], [i, y.to]);
      continue;
    }
    // A star may match nothing.
    if (isStar(x)) pending.push([i + 1, j]);
    if (isStar(y)) pending.push([i, j + 1]);
    if (x === undefined || y === undefined || !sameCharacterPossible(x, y, ignoreCase)) continue;
    // One character both accept: a star stays where it is, anything else moves on (both stars: a loop, nothing new).
    const nextI = isStar(x) ? i : i + 1;
    const nextJ = isStar(y) ? j : j + 1;
    if (nextI !== i || nextJ !== j) pending.push([nextI, nextJ]);
  }
  return false;
}

/** Where a pattern's first wildcard is (its length without one), kept: a fold compares each claim with every standing one. */
const heads = new Map<string, number>();

function headLength(pattern: string): number {
  let length = heads.get(pattern);
  if (length === undefined) {
    const wildcard = pattern.search(/[*?]/);
    length = wildcard < 0 ? pattern.length : wildcard;
    if (heads.size >= 10_000) heads.clear();
    heads.set(pattern, length);
  }
  return length;
}

/** A cheap test that rules most pairs out before the exact one: literal beginnings that differ within both. */
function headsDiffer(a: string, aHead: number, b: string, bHead: number, ignoreCase: boolean): boolean {
  const length = Math.min(aHead, bHead);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y && (!ignoreCase || a[i]!.toLowerCase() !== b[i]!.toLowerCase())) return true;
  }
  return false;
}

/** Whether two normalised patterns cover a path in common. */
export function patternsOverlap(a: string, b: string, options: MatchOptions = {}): boolean {
  if (headsDiffer(a, headLength(a), b, headLength(b), options.ignoreCase ?? false)) return false;
  return intersects(covering(a), covering(b), options.ignoreCase ?? false);
}

/** Whether a normalised pattern covers a repository-relative path (the path's characters are all literal). */
export function patternCovers(pattern: string, path: string, options: MatchOptions = {}): boolean {
  // The path's own `*` and `?` are characters: its head runs to its end.
  const normal = normalisePattern(path);
  if (headsDiffer(pattern, headLength(pattern), normal, normal.length, options.ignoreCase ?? false)) return false;
  return intersects(covering(pattern), tokens(normal, true), options.ignoreCase ?? false);
}


