// A snapshot of a fold of a JSONL log: derived data saved with the position it was folded to. A reader
// trusts it only when the log it names is the same file (device + inode), at least as long as that
// position, with the same bytes just before it; anything else (missing, not JSON, another file, a log
// truncated or rewritten) makes it fold the log again. Each kind of snapshot checks its own state.
import { closeSync, constants, readSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { fnv1a64 } from "../common/hash.js";
import { ioError } from "../common/errors.js";
import { isPlainObject } from "../common/values.js";
import { FILE_MODE, openStateFile, readStateBytes } from "../security/trust.js";

/** Where in which log a snapshot's fold ends. */
export interface LogPosition {
  path: string;
  dev: number;
  ino: number;
  offset: number;
  tail: string;
}

/** Whether a value read from a snapshot is a log position as logPosition writes it. */
export function isLogPosition(value: unknown): value is LogPosition {
  return isPlainObject(value) && typeof value.path === "string" && Number.isFinite(value.dev) && Number.isFinite(value.ino) && Number.isSafeInteger(value.offset) && (value.offset as number) >= 0 && typeof value.tail === "string";
}

const TAIL_BYTES = 256;

/** A hash of the bytes just before `offset`: detects a log that was rewritten to the same length or longer. */
export function tailFingerprint(logPath: string, offset: number): string {
  const length = Math.min(TAIL_BYTES, offset);
  const buffer = Buffer.alloc(length);
  if (length > 0) {
    const fd = openStateFile(logPath, constants.O_RDONLY);
    try {
      readSync(fd, buffer, 0, length, offset - length);
    } finally {
      closeSync(fd);
    }
  }
  return fnv1a64(buffer);
}

/** The position of a fold of `logPath` (the file `identity` names) up to `offset`. */
export function logPosition(logPath: string, identity: { dev: number; ino: number }, offset: number): LogPosition {
  return { path: logPath, dev: identity.dev, ino: identity.ino, offset, tail: tailFingerprint(logPath, offset) };
}

/** Why a position no longer describes the log at `logPath`, or undefined when it does. */
export function positionProblem(logPath: string, position: LogPosition): string | undefined {
  if (position.path !== logPath) return "snapshot is of another log";
  try {
    const stat = statSync(logPath);
    if (stat.ino !== position.ino || stat.dev !== position.dev) return "log replaced";
    if (stat.size < position.offset) return "log truncated";
    if (tailFingerprint(logPath, position.offset) !== position.tail) return "log rewritten";
  } catch {
    return "log missing";
  }
  return undefined;
}

export type SnapshotRead = { status: "read"; value: unknown } | { status: "missing" } | { status: "invalid"; reason: string };

/** A snapshot file's bytes, or undefined when there is none or it is not a private file of this user (the state dir's checks). */
export function readSnapshotBytes(snapshotPath: string): Buffer | undefined {
  try {
    return readStateBytes(snapshotPath);
  } catch {
    return undefined;
  }
}

/** A snapshot file's JSON value. */
export function readSnapshotFile(snapshotPath: string): SnapshotRead {
  const bytes = readSnapshotBytes(snapshotPath);
  if (bytes === undefined) return { status: "missing" };
  try {
    return { status: "read", value: JSON.parse(bytes.toString("utf8")) };
  } catch {
    return { status: "invalid", reason: "not JSON" };
  }
}

type WriteFileAtomic = typeof import("write-file-atomic");

function writeFileAtomic(): WriteFileAtomic {
  // Loaded only when a snapshot is written, which most hooks never do. By require, not import(): in a
  // CommonJS hook bundle import() starts the ES module loader and lexes the package (~8 ms).
  return (typeof require === "function" ? require("write-file-atomic") : createRequire(import.meta.url)("write-file-atomic")) as WriteFileAtomic;
}

/** Writes a snapshot whole or not at all (a temporary file renamed). No fsync: one lost in a crash is folded again from the log. */
export async function writeSnapshotFile(snapshotPath: string, value: unknown): Promise<void> {
  try {
    await writeFileAtomic()(snapshotPath, JSON.stringify(value), { mode: FILE_MODE, fsync: false });
  } catch (error) {
    throw ioError("write the cache", snapshotPath, error);
  }
}

/** A snapshot's text, at once: for a fold read synchronously, in a hook that exits right after its answer. */
export function writeSnapshotTextSync(snapshotPath: string, text: string): void {
  try {
    writeFileAtomic().sync(snapshotPath, text, { mode: FILE_MODE, fsync: false });
  } catch (error) {
    throw ioError("write the cache", snapshotPath, error);
  }
}
