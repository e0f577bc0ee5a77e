// This machine's id: made once per state dir and kept in it, so sessions from several machines that share
// one store (PostgreSQL) can be told apart. Liveness (a pid), push, wakes and hooks only ever act for
// sessions of their own machine: a pid on another machine means nothing here.
import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { ioError } from "../common/errors.js";
import { FILE_MODE } from "../security/state-dir.js";

/** Loaded only when an id is made (once per state dir): node:crypto costs every hook ~8 ms to load. */
function randomHex(bytes: number): string {
  const { randomBytes } = createRequire(process.execPath)("node:crypto") as typeof import("node:crypto");
  return randomBytes(bytes).toString("hex");
}

export const MACHINE_PATTERN = /^[A-Za-z0-9._-]{1,80}$/;

export function machineIdPath(stateDir: string): string {
  return join(stateDir, "machine-id");
}

/** Reads the state dir's machine id, creating it (host name + random suffix) on first use. */
export function machineId(stateDir: string): string {
  const path = machineIdPath(stateDir);
  const existing = readId(path);
  if (existing !== undefined) return existing;
  const name = hostname().toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "machine";
  const id = `${name}.${randomHex(4)}`;
  try {
    // "wx": two processes creating it at once keep the first one's id.
    writeFileSync(path, id + "\n", { mode: FILE_MODE, flag: "wx" });
    return id;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw ioError("create", path, error);
    return readId(path) ?? id;
  }
}

function readId(path: string): string | undefined {
  try {
    const id = readFileSync(path, "utf8").trim();
    return MACHINE_PATTERN.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}
