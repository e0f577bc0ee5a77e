// This machine's id: made once per state dir and kept in it, so sessions from several machines that share
// one store (PostgreSQL) can be told apart. Liveness (a pid), push, wakes and hooks only ever act for
// sessions of their own machine: a pid on another machine means nothing here.
import { linkSync, renameSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { PeerpostError, ioError } from "../common/errors.js";
import { readStateFileIfAny, writeStateFileInPlace } from "../security/trust.js";
import { withFileLock } from "../security/file-lock.js";

/** Loaded only when an id is made (once per state dir): node:crypto costs every hook ~8 ms to load. */
function randomHex(bytes: number): string {
  const { randomBytes } = createRequire(process.execPath)("node:crypto") as typeof import("node:crypto");
  return randomBytes(bytes).toString("hex");
}

export const MACHINE_PATTERN = /^[A-Za-z0-9._-]{1,80}$/;

export function machineIdPath(stateDir: string): string {
  return join(stateDir, "machine-id");
}

/**
 * Reads the state dir's machine id, creating it (host name + random suffix) on first use. A link, a FIFO
 * or another user's file in its place is refused (trust.ts). A damaged one (emptied, edited) is set aside
 * as machine-id.damaged and made anew, once, under a lock: every process then reads the same new id, not
 * one of its own.
 */
export function machineId(stateDir: string): string {
  const path = machineIdPath(stateDir);
  const text = readStateFileIfAny(path);
  return idIn(text) ?? (text === undefined ? (createId(path) ?? validId(path)) : repaired(path));
}

/** The id a machine-id file's text holds, or undefined when it holds none (missing, emptied, edited). */
function idIn(text: string | undefined): string | undefined {
  const id = text?.trim();
  return id !== undefined && MACHINE_PATTERN.test(id) ? id : undefined;
}

/** The id in the file, which another process just wrote whole. */
function validId(path: string): string {
  const id = idIn(readStateFileIfAny(path));
  if (id !== undefined) return id;
  throw ioError("read", path, new Error("another process replaced it as it was made"));
}

/**
 * A damaged id replaced under a lock, and read again under it: a process that found it damaged after
 * another one repaired it sets no good id aside.
 */
function repaired(path: string): string {
  return withFileLock(path, () => {
    const text = readStateFileIfAny(path);
    const existing = idIn(text);
    if (existing !== undefined) return existing;
    if (text !== undefined) renameSync(path, `${path}.damaged`);
    return createId(path) ?? validId(path);
  });
}

/**
 * A new id, written whole under a temporary name and linked in only where no id is: two processes making
 * one at once keep the first one's (undefined for the other, which reads it). Never an empty file, as
 * creating it and then writing it left when killed in between.
 */
function createId(path: string): string | undefined {
  const name = hostname().toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "machine";
  const id = `${name}.${randomHex(4)}`;
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeStateFileInPlace(temporary, id + "\n", { sync: true });
    linkSync(temporary, path);
    return id;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    if (error instanceof PeerpostError) throw error;
    throw ioError("create", path, error);
  } finally {
    rmSync(temporary, { force: true });
  }
}
