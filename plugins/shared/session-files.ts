// Bounded, no-follow reads of a host's own session files: a directory's entries without symlinks, the
// newest few hundred files, and at most a head and a tail of each. A session store is the host's, full of
// untrusted text; nothing here follows a link out of it or reads a whole transcript.
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from "node:fs";
import { ID_PATTERN, type SessionKind } from "../../core/common/address.js";
import type { DiscoveredSession } from "../../core/sessions/discovery.js";
import type { SessionHost } from "../../core/records/schemas.js";

/** At most this many session files per host, the most recently written first. */
export const MAX_SESSION_FILES = 500;
export const HEAD_BYTES = 64 * 1024;
/** A second, longer head for a transcript whose first lines outgrow HEAD_BYTES (a long first prompt). */
export const LONG_HEAD_BYTES = 1024 * 1024;
export const TAIL_BYTES = 16 * 1024;

export interface SessionFile {
  path: string;
  mtimeMs: number;
}

/** Names of the real (not symlinked) subdirectories or regular files of a dir; [] when unreadable. */
export function entries(dir: string, kind: "dir" | "file"): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => (kind === "dir" ? entry.isDirectory() : entry.isFile()))
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** The newest `limit` of these paths that are regular files (lstat: a symlink is skipped). */
export function newestFiles(paths: string[], limit = MAX_SESSION_FILES): SessionFile[] {
  const files: SessionFile[] = [];
  for (const path of paths) {
    try {
      const stat = lstatSync(path);
      if (stat.isFile()) files.push({ path, mtimeMs: stat.mtimeMs });
    } catch {
      // gone since it was listed
    }
  }
  return files.sort((a, b) => b.mtimeMs - a.mtimeMs).slice(0, limit);
}

/** Up to `bytes` from the start (or the end) of a regular file, opened without following a symlink. */
export function readBounded(path: string, bytes: number, from: "head" | "tail" = "head"): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return "";
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return "";
    const length = Math.min(bytes, stat.size);
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, from === "head" ? 0 : stat.size - length);
    return buffer.subarray(0, read).toString("utf8");
  } catch {
    return "";
  } finally {
    closeSync(fd);
  }
}

/**
 * Visits each complete JSON object line of a chunk (a cut first or last line is skipped), last line first
 * when `backwards`, until `visit` returns true: a reader parses only as far as it needs.
 */
export function scanJsonLines(text: string, visit: (record: Record<string, unknown>) => boolean, backwards = false): void {
  const lines = text.split("\n");
  if (backwards) lines.reverse();
  for (const line of lines) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (value && typeof value === "object" && !Array.isArray(value) && visit(value as Record<string, unknown>)) return;
  }
}

export function stringField(record: unknown, key: string): string | undefined {
  const value = record && typeof record === "object" ? (record as Record<string, unknown>)[key] : undefined;
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** Titles are cut to what the sessions registry keeps. */
export function shortTitle(title: string | undefined): string | undefined {
  return title === undefined ? undefined : title.replace(/\s+/g, " ").trim().slice(0, 200) || undefined;
}

/** A discovered row when the id is a valid peerpost id; undefined otherwise (never a guessed address). */
export function discovered(host: SessionHost, kind: SessionKind, sessionId: string | undefined, fields: { cwd?: string | undefined; title?: string | undefined; mtimeMs: number }): DiscoveredSession | undefined {
  if (sessionId === undefined || !ID_PATTERN.test(sessionId)) return undefined;
  const session: DiscoveredSession = { address: `${kind}:${sessionId}`, host, sessionId, lastActivity: new Date(fields.mtimeMs).toISOString() };
  if (fields.cwd !== undefined && fields.cwd.length <= 4096) session.cwd = fields.cwd;
  const title = shortTitle(fields.title);
  if (title !== undefined) session.title = title;
  return session;
}
