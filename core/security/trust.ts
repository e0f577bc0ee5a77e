// What peerpost trusts on disk. The state dir and its sub-dirs must be real directories of this user,
// writable by no one else, below directories that are this user's or root's (and writable by others
// only when sticky). Every state file is opened without following a link and must be a regular file of
// this user that no one else can write. Links are resolved before any of these checks. peerpost
// never changes the mode of a directory it did not just create.
import { shellWord } from "../common/shell-word.js";
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, ftruncateSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, writeFileSync, type Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { PeerpostError } from "../common/errors.js";

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;
const STICKY = 0o1000;
const WRITABLE_BY_OTHERS = 0o022;

let euid: number | undefined | null = null;

/** The effective uid peerpost acts for (undefined where the platform has none); asked once, as every file check needs it. */
function me(): number | undefined {
  if (euid === null) euid = typeof process.geteuid === "function" ? process.geteuid() : undefined;
  return euid;
}

function untrusted(path: string, why: string, hint: string): PeerpostError {
  return new PeerpostError("permission_denied", `Refusing to use ${path}: ${why}.`, { details: { path, problem: why }, hint });
}

/** The wrong kind of file where peerpost needs a directory or a regular file: a path mistake, not an attack. */
function wrongKind(path: string, expected: "a directory" | "a regular file"): PeerpostError {
  return new PeerpostError("state_io_error", `Refusing to use ${path}: it is not ${expected}.`, {
    details: { path, problem: `not ${expected}` },
    hint: "Point PEERPOST_HOME at a directory of your own (it is created if missing), or move what is at that path away.",
  });
}

/** Refuses what a state file's path holds when it is no regular file (a link, a FIFO, a directory), as opening it would. */
export function checkStateFileKind(path: string, stat: Stats): void {
  if (stat.isFile()) return;
  if (stat.isSymbolicLink()) throw untrusted(path, "it is a symbolic link", OWN_IT_HINT);
  throw wrongKind(path, "a regular file");
}

const OWN_IT_HINT = "peerpost only uses state it alone can write. Remove it (it is recreated), or fix its owner and mode (files 0600, dirs 0700), or point PEERPOST_HOME at a directory of your own.";

/** Your own state with a mode others can write: the chmod keeps what it holds (removing it would lose the mail). */
function modeHint(path: string, mode: "700" | "600"): string {
  return `Run: chmod ${mode} ${shellWord(path)} (peerpost only uses state it alone can write; removing it instead would lose what it holds).`;
}

/**
 * The path with every link in its existing part resolved; the part that does not exist yet is appended as
 * given. Missing parts are found by lstat, which throws nothing for them: every hook resolves the state dir
 * and the hosts' config dirs (most of them missing), and an exception per missing dir is most of that cost.
 */
export function resolveLinks(path: string): string {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    const parent = dirname(current);
    try {
      if (parent === current || lstatSync(current, { throwIfNoEntry: false }) !== undefined) return join(realpathSync.native(current), ...missing.reverse());
    } catch (error) {
      // A dangling link, or a file where a directory should be: resolved no further, as a missing part.
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== "ENOENT" && code !== "ENOTDIR") || parent === current) throw error;
    }
    missing.push(basename(current));
    current = parent;
  }
}

/** Why a directory may not hold (or be) peerpost state, or undefined when it may. */
function directoryProblem(stat: Stats, ownerMustBeMe: boolean): string | undefined {
  const uid = me();
  if (uid === undefined) return undefined;
  if (ownerMustBeMe ? stat.uid !== uid : stat.uid !== uid && stat.uid !== 0) return `it belongs to another user (uid ${stat.uid})`;
  if ((stat.mode & WRITABLE_BY_OTHERS) !== 0 && (ownerMustBeMe || (stat.mode & STICKY) === 0)) return `other users can write to it (mode 0${(stat.mode & 0o7777).toString(8)})`;
  return undefined;
}

/** Every existing directory above `path` must be this user's or root's, and writable by others only when sticky. */
export function checkAncestors(path: string): void {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    let stat: Stats | undefined;
    try {
      stat = lstatSync(dir);
    } catch {
      stat = undefined; // Not created yet: mkdir makes it ours.
    }
    if (stat && !stat.isDirectory()) throw wrongKind(dir, "a directory");
    const problem = stat && directoryProblem(stat, false);
    if (problem) throw untrusted(dir, `a directory above the state dir is unsafe: ${problem}`, "Another user could replace peerpost's files from there. Point PEERPOST_HOME at a directory under your own home.");
    if (dirname(dir) === dir) return;
  }
}

/**
 * Creates `path` (0700) if missing, then checks it is a real directory of this user that no one else
 * can write. Returns whether it was created now. An existing directory's mode is never changed.
 * With `parents: false`, a missing parent is an error rather than created.
 */
export function ensurePrivateDir(path: string, options: { parents?: boolean } = {}): boolean {
  let created: string | undefined;
  // Most calls find the dir there already: looked at first, it costs no mkdir and no EEXIST exception.
  const existing = lstatSync(path, { throwIfNoEntry: false });
  if (existing === undefined) {
    try {
      if (options.parents === false) {
        mkdirSync(path, { mode: DIR_MODE });
        created = path;
      } else created = mkdirSync(path, { recursive: true, mode: DIR_MODE });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  checkPrivateDir(path, created === undefined ? existing : undefined);
  return created !== undefined;
}

/** Checks, without creating anything, that `path` is a real directory of this user that no one else can write. */
export function checkPrivateDir(path: string, stat: Stats = lstatSync(path)): void {
  if (stat.isSymbolicLink()) throw untrusted(path, "it is a symbolic link", OWN_IT_HINT);
  if (!stat.isDirectory()) throw wrongKind(path, "a directory");
  const problem = directoryProblem(stat, true);
  if (problem) throw untrusted(path, problem, stat.uid === me() ? modeHint(path, "700") : OWN_IT_HINT);
}

/** Whether a state file passes every check as it is: a regular file of this user that no one else can read or write. */
export function isPrivateFile(stat: Stats): boolean {
  const uid = me();
  return stat.isFile() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o077) === 0;
}

/** Checks an open state file: a regular file of this user that no one else can write; a readable-by-others one is tightened. */
function checkOpenFile(fd: number, path: string): void {
  const stat = fstatSync(fd);
  if (isPrivateFile(stat)) return;
  const uid = me();
  if (!stat.isFile()) throw wrongKind(path, "a regular file");
  if (uid !== undefined && stat.uid !== uid) throw untrusted(path, `it belongs to another user (uid ${stat.uid})`, OWN_IT_HINT);
  if ((stat.mode & WRITABLE_BY_OTHERS) !== 0) throw untrusted(path, `other users can write to it (mode 0${(stat.mode & 0o777).toString(8)})`, modeHint(path, "600"));
  // Our own file, only too readable: tightening it takes nothing from anyone.
  if ((stat.mode & 0o077) !== 0) fchmodSync(fd, FILE_MODE);
}

/**
 * Opens a state file without following a link (`flags` from fs.constants; O_CREAT creates it 0600) and
 * checks what it opened. Errors from open itself (ENOENT, EACCES) are thrown as they are; a link or an
 * untrusted file is a `permission_denied` PeerpostError.
 */
export function openStateFile(path: string, flags: number): number {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO put in a file's place would block the open until someone writes to it; this way
    // it opens at once and is refused as no regular file (regular files ignore the flag).
    fd = openSync(path, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw untrusted(path, "it is a symbolic link", OWN_IT_HINT);
    throw error;
  }
  try {
    checkOpenFile(fd, path);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/** The whole bytes of a state file, opened as `openStateFile` does. */
export function readStateBytes(path: string): Buffer {
  const fd = openStateFile(path, constants.O_RDONLY);
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The whole text of a state file, opened as `openStateFile` does. */
export function readStateFile(path: string): string {
  return readStateBytes(path).toString("utf8");
}

/** The text of a state file, or undefined when there is none; a link or another user's file is refused as `openStateFile` does. */
export function readStateFileIfAny(path: string): string | undefined {
  try {
    return readStateFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Opens a state file for writing it anew (created if missing): emptied only once the checks passed, so
 * a link or another user's file in its place is refused untouched (O_TRUNC would empty it first).
 */
export function openEmptiedStateFile(path: string): number {
  const fd = openStateFile(path, constants.O_RDWR | constants.O_CREAT);
  try {
    ftruncateSync(fd, 0);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/**
 * Writes a state file in place (0600, created if missing, never through a link), fsynced when `sync`:
 * for files whose readers tell a torn one from a whole one themselves.
 */
export function writeStateFileInPlace(path: string, data: string | Buffer, options: { sync?: boolean } = {}): void {
  const fd = openEmptiedStateFile(path);
  try {
    writeFileSync(fd, data);
    if (options.sync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a small state file whole (0600): under a temporary name, renamed in, so a reader (or a process
 * killed at any point) sees the old text or the new. `sync`: the text is on disk before the rename.
 */
export function writeStateFile(path: string, text: string, options: { sync?: boolean } = {}): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeStateFileInPlace(temporary, text, options);
  renameSync(temporary, path);
}
