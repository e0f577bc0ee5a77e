// A small, size-capped error log under the state dir (logs/errors.log, 0600) for failures that must
// stay silent where they happen (hooks), so `peerpost doctor` can show them.
import { closeSync, constants, renameSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { checkAncestors, ensurePrivateDir, openStateFile } from "../security/trust.js";

export const ERROR_LOG_MAX_BYTES = 256 * 1024;

export function errorLogPath(stateDir: string): string {
  return join(stateDir, "logs", "errors.log");
}

/** Appends one line; rotates to errors.log.1 past the cap. Never throws. */
export function logError(stateDir: string, where: string, error: unknown): void {
  try {
    const path = errorLogPath(stateDir);
    // Only into a state dir peerpost would use (made as it would be when missing): the failure being logged
    // may be that this one was refused (another user's, or others can write it), and a logs/ dir of this
    // user there breaks its owner's log.
    checkAncestors(stateDir);
    ensurePrivateDir(stateDir);
    ensurePrivateDir(join(stateDir, "logs"));
    try {
      if (statSync(path).size > ERROR_LOG_MAX_BYTES) renameSync(path, `${path}.1`);
    } catch {
      // No log yet.
    }
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const { code, hint } = (error ?? {}) as { code?: unknown; hint?: unknown };
    const line = JSON.stringify({ at: new Date().toISOString(), where, code: typeof code === "string" ? code : undefined, error: detail.slice(0, 2000), hint: typeof hint === "string" ? hint.slice(0, 1000) : undefined, pid: process.pid });
    const fd = openStateFile(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND);
    try {
      writeSync(fd, line + "\n");
    } finally {
      closeSync(fd);
    }
  } catch {
    // Nowhere left to report to.
  }
}
