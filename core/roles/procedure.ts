// A role's procedure: a text file the user wrote, read once when the role is set and stored in the role
// event. Read without following a symlink and only from a regular file, so a link planted in the state
// dir cannot make peerpost copy some other file into every holder's envelope.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { PeerpostError } from "../common/errors.js";

export const MAX_PROCEDURE_BYTES = 64 * 1024;

export interface Procedure {
  version: string;
  text: string;
  source: string;
}

function refused(path: string, reason: "symlink" | "not_regular" | "not_utf8" | "missing", what: string): PeerpostError {
  return new PeerpostError("invalid_arguments", `The procedure ${path} ${what}.`, {
    details: { field: "procedure", path, reason },
    hint: "Give a regular UTF-8 text file of at most 64 KiB (not a symlink); roles/<name>.md in the state dir is used when --procedure is not given.",
  });
}

/** Reads a procedure file; `optional` makes a missing file give undefined instead of an error. */
export function readProcedure(path: string, optional = false): Procedure | undefined {
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
    if (stat.size > MAX_PROCEDURE_BYTES) throw tooLarge(path, stat.size);
    // One byte more than the limit tells a file that grew since fstat.
    const buffer = Buffer.alloc(MAX_PROCEDURE_BYTES + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n) n = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > MAX_PROCEDURE_BYTES) throw tooLarge(path, length);
    const bytes = buffer.subarray(0, length);
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      throw refused(path, "not_utf8", "is not UTF-8 text");
    }
    return { version: createHash("sha256").update(bytes).digest("hex"), text, source: path };
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
