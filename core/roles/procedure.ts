// A role's procedure: a text file the user wrote, read once when the role is set and stored in the role
// event. Read without following a symlink anywhere on its path and only from a regular file on a regular
// file system, so a link planted in the state dir (or a directory on the way) cannot make peerpost copy
// some other file into every holder's envelope, nor a pseudo file (procfs: the environment) either.
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readSync, statfsSync, type Stats } from "node:fs";
import { join, parse, resolve, sep } from "node:path";
import { nodeCrypto } from "../common/crypto.js";
import { PeerpostError } from "../common/errors.js";

export const MAX_PROCEDURE_BYTES = 64 * 1024;

export interface Procedure {
  version: string;
  text: string;
  source: string;
}

function refused(path: string, reason: "symlink" | "not_regular" | "special_file_system" | "not_utf8" | "missing", what: string): PeerpostError {
  return new PeerpostError("invalid_arguments", `The procedure ${path} ${what}.`, {
    details: { field: "procedure", path, reason },
    hint: "Give a regular UTF-8 text file of at most 64 KiB on an ordinary disk, by a path with no symlink in it (nor in its directories); roles/<name>.md in the state dir is used when --procedure is not given.",
  });
}

/**
 * File systems whose files are views of the kernel or of processes (Linux statfs magic numbers): procfs,
 * sysfs, debugfs, tracefs, securityfs, cgroup 1 and 2, configfs, efivarfs, pstore, bpf, devpts.
 */
const PSEUDO_FILE_SYSTEMS = new Set([0x9fa0, 0x62656572, 0x64626720, 0x74726163, 0x73636673, 0x27e0eb, 0x63677270, 0x62656570, 0xde5e81e4, 0x6165676c, 0xcafe4a11, 0x1cd1]);

/** The first symlink on the way to `path` (every directory from the root, then the file), or undefined. */
function linkOnTheWay(path: string): string | undefined {
  const absolute = resolve(path);
  const { root } = parse(absolute);
  let at = root;
  for (const part of absolute.slice(root.length).split(sep).filter(Boolean)) {
    at = join(at, part);
    let stat: Stats;
    try {
      stat = lstatSync(at);
    } catch {
      // Missing: the open below says so.
      return undefined;
    }
    if (stat.isSymbolicLink()) return at;
  }
  return undefined;
}

/** Whether the open file lives on a pseudo file system (through its /proc/self/fd link where there is one: the file itself, not a path). */
function onPseudoFileSystem(fd: number, path: string): boolean {
  const self = `/proc/self/fd/${fd}`;
  try {
    return PSEUDO_FILE_SYSTEMS.has(statfsSync(existsSync(self) ? self : path).type);
  } catch {
    return false;
  }
}
/** Reads a procedure file; `optional` makes a missing file give undefined instead of an error. */
export function readProcedure(path: string, optional = false): Procedure | undefined {
  const link = linkOnTheWay(path);
  if (link !== undefined) throw refused(path, "symlink", link === resolve(path) ? "is a symlink; peerpost does not follow it" : `is reached through the symlink ${link}; peerpost does not follow it`);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const errno = (error as NodeJS.ErrnoException).code;
    if (errno === "ENOENT") {
      if (optional) return undefined;
      throw refused(path, "missing", "does not exist");
    }
    if (errno === "ELOOP") throw refused(path, "symlink", "is a symlink; peerpost does not follow it");
    throw refused(path, "not_regular", `cannot be opened (${errno ?? "error"})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw refused(path, "not_regular", "is not a regular file");
    if (onPseudoFileSystem(fd, path)) throw refused(path, "special_file_system", "is on a kernel pseudo file system (such as /proc or /sys), not a file on disk");
    // A directory swapped for a link between the walk and the open: the opened file is not the one walked to.
    const walked = lstatSync(resolve(path), { throwIfNoEntry: false });
    if (!walked || walked.ino !== stat.ino || walked.dev !== stat.dev || linkOnTheWay(path) !== undefined) throw refused(path, "symlink", "changed to a symlink while it was read");
    if (stat.size > MAX_PROCEDURE_BYTES) throw tooLarge(path, stat.size);
    // One byte more than the limit tells a file that grew since fstat.
    const buffer = Buffer.alloc(MAX_PROCEDURE_BYTES + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n) n = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > MAX_PROCEDURE_BYTES) throw tooLarge(path, length);
    // A file on disk holds what its size says; one that does not changed while read, or is not a plain file.
    if (length !== stat.size) throw refused(path, "not_regular", `changed while it was read (${stat.size} bytes by its size, ${length} read)`);
    const bytes = buffer.subarray(0, length);
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      throw refused(path, "not_utf8", "is not UTF-8 text");
    }
    return { version: nodeCrypto().createHash("sha256").update(bytes).digest("hex"), text, source: path };
  } finally {
    closeSync(fd);
  }
}

function tooLarge(path: string, bytes: number): PeerpostError {
  return new PeerpostError("body_too_large", `The procedure ${path} is ${bytes} bytes; the limit is ${MAX_PROCEDURE_BYTES}.`, {
    details: { field: "procedure", path, bytes, limit: MAX_PROCEDURE_BYTES, reason: "too_large" },
    hint: "Shorten the procedure to at most 64 KiB.",
  });
}

/** The state dir's default procedure for a role (the role name is validated, so it is a plain file name). */
export function defaultProcedurePath(stateDir: string, role: string): string {
  return join(stateDir, "roles", `${role}.md`);
}
