// Walks a process's ancestors. Hooks and MCP servers are both descendants of the host CLI's process,
// so finding the nearest ancestor that is the host links a server to the session its hooks registered.
import { readFileSync } from "node:fs";
import { nodeChildProcess } from "../common/child-process.js";

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Short command name (e.g. "node", "codex"). */
  name: string;
  /** Full command line, arguments joined by spaces. */
  command: string;
}

function fromProc(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The name is in parentheses and may itself contain spaces or parentheses: split after the last ')'.
    const close = stat.lastIndexOf(")");
    const name = stat.slice(stat.indexOf("(") + 1, close);
    const ppid = Number(stat.slice(close + 2).split(" ")[1]);
    const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
    return { pid, ppid, name, command };
  } catch {
    return undefined;
  }
}

function fromPs(pid: number): ProcessInfo | undefined {
  // Loaded only where there is no /proc: child_process costs a prompt hook several milliseconds.
  const { execFileSync } = nodeChildProcess();
  try {
    const out = execFileSync("ps", ["-o", "ppid=,comm=", "-p", String(pid)], { encoding: "utf8", timeout: 2000 }).trim();
    const match = /^(\d+)\s+(.*)$/.exec(out);
    if (!match) return undefined;
    const command = execFileSync("ps", ["-o", "command=", "-p", String(pid)], { encoding: "utf8", timeout: 2000 }).trim();
    const name = match[2]!.split("/").pop() ?? match[2]!;
    return { pid, ppid: Number(match[1]), name, command };
  } catch {
    return undefined;
  }
}

export function processInfo(pid: number): ProcessInfo | undefined {
  return process.platform === "linux" ? fromProc(pid) : fromPs(pid);
}

/** The ancestors of `pid`, nearest first, up to (not including) pid 1: each read only when it is asked for. */
function* parents(pid: number, maxDepth: number): Generator<ProcessInfo> {
  let current = processInfo(pid);
  for (let depth = 0; current && current.ppid > 1 && depth < maxDepth; depth++) {
    const parent = processInfo(current.ppid);
    if (!parent) return;
    yield parent;
    current = parent;
  }
}

/** The ancestors of `pid`, nearest first, up to (not including) pid 1. */
export function ancestors(pid: number = process.pid, maxDepth = 32): ProcessInfo[] {
  return [...parents(pid, maxDepth)];
}

/** The nearest ancestor the predicate accepts; the walk up stops there (a hook's own host is a step or two up). */
export function findAncestor(matches: (info: ProcessInfo) => boolean, pid: number = process.pid): ProcessInfo | undefined {
  for (const info of parents(pid, 32)) if (matches(info)) return info;
  return undefined;
}

/**
 * When the process started, in clock ticks since boot (Linux /proc; undefined elsewhere). A pid and its
 * start time name one process: a later process that reuses the pid has another start time.
 */
export function processStartTime(pid: number): number | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const start = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
    return Number.isFinite(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether this process is in its terminal's foreground process group (Linux /proc; false elsewhere): a
 * Ctrl-C typed there reaches every process of the group.
 */
export function inTerminalForeground(): boolean {
  if (process.platform !== "linux") return false;
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // After the command name: state, ppid, pgrp, session, tty_nr, tpgid.
    const [, , pgrp, , tty, foreground] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return tty !== "0" && pgrp === foreground;
  } catch {
    return false;
  }
}

/** The registry's `hostStart` field for a host pid, when the system tells start times. */
export function hostStartField(pid: number): { hostStart?: number } {
  const start = processStartTime(pid);
  return start === undefined ? {} : { hostStart: start };
}

/**
 * How long a start time read from /proc stands for its pid while the pid stays alive: for it to name
 * another process by then, the first must have ended and the kernel handed its pid out again, which
 * takes a wrap of every pid. Every send asks whether its recipient runs; reading /proc each time was
 * the largest part of the lookup.
 */
const START_TIME_FRESH_MS = 1000;
const startTimes = new Map<number, { start: number | undefined; readAt: number }>();

/** The pid's start time, read again once the last read is over START_TIME_FRESH_MS old (the caller saw the pid alive just now). */
function recentStartTime(pid: number): number | undefined {
  const now = Date.now();
  const known = startTimes.get(pid);
  if (known && now - known.readAt >= 0 && now - known.readAt < START_TIME_FRESH_MS) return known.start;
  // Pids a long-lived server asked about once are dropped wholesale now and then.
  if (startTimes.size >= 1024) startTimes.clear();
  const start = processStartTime(pid);
  startTimes.set(pid, { start, readAt: now });
  return start;
}

/** Alive and, when its start time was recorded, still the same process (not a reused pid). */
export function isSameProcess(pid: number, startTime: number | undefined): boolean {
  if (!isAlive(pid)) return false;
  if (startTime === undefined) return true;
  const now = recentStartTime(pid);
  return now === undefined || now === startTime;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
