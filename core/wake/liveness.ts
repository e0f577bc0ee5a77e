// Whether a session's host process may still hold it: the rule that keeps a wake from being a second
// writer on a live transcript. A session whose host pid peerpost recorded is alive while that process
// (pid and start time) runs. A session known only from its host's files (discovered, no pid) is taken
// as gone only when peerpost can be sure, on this machine's /proc, that:
//   1. its session file was last written more than PEERPOST_WAKE_QUIET_MS ago (default 10 min);
//   2. no process peerpost can see (other than this one and its ancestors) names the session id on its
//      command line or in its environment (a `--resume <id>`, a host's children carrying the id);
//   3. no process of that host runs in the session's working directory (it could be the holder).
// Anything it cannot check (no /proc, no session file, no working dir) counts as "not sure": no wake.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import type { Peerpost } from "../peerpost.js";
import type { SessionEntry } from "../sessions/registry.js";
import { ancestors, processInfo, type ProcessInfo } from "../sessions/process-tree.js";
import { findUnseen } from "../sessions/unseen.js";
import type { Waker } from "./waker.js";

export type Liveness = { state: "alive" } | { state: "gone" } | { state: "unsure"; why: string };

function readProc(pid: string, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "latin1");
  } catch {
    return undefined;
  }
}

/** The first other process that may hold the session, with why; undefined when there is none. */
function holder(sessionId: string, cwd: string, isHostProcess: ((info: ProcessInfo) => boolean) | undefined): string | undefined {
  const mine = new Set([process.pid, ...ancestors().map((info) => info.pid)].map(String));
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name) && !mine.has(name));
  } catch {
    return "this system does not show its processes (/proc)";
  }
  for (const pid of pids) {
    const named = [readProc(pid, "cmdline"), readProc(pid, "environ")].some((text) => text?.includes(sessionId));
    if (named) return `process ${pid} names the session on its command line or in its environment`;
    if (!isHostProcess) continue;
    let dir: string | undefined;
    try {
      dir = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      continue;
    }
    const info = dir === cwd ? processInfo(Number(pid)) : undefined;
    if (info && isHostProcess(info)) return `a ${info.name} process (${pid}) runs in the session's working directory`;
  }
  return undefined;
}

export function sessionLiveness(peerpost: Peerpost, entry: SessionEntry, waker: Waker | undefined): Liveness {
  if (entry.hostPid !== undefined) return entry.alive ? { state: "alive" } : { state: "gone" };
  if (process.platform !== "linux") return { state: "unsure", why: "no host process is known for it, and this system does not show its processes" };
  if (entry.cwd === undefined) return { state: "unsure", why: "no host process or working directory is known for it" };
  const file = findUnseen(peerpost, entry.address);
  if (!file) return { state: "unsure", why: "no host process is known for it, and its host's session file was not found" };
  const quietMs = peerpost.config.wake.quietMs;
  const idleMs = peerpost.config.now() - Date.parse(file.lastActivity);
  if (idleMs < quietMs) return { state: "unsure", why: `its host's session file was written ${Math.round(idleMs / 1000)} s ago (a wake needs ${Math.round(quietMs / 1000)} s of quiet, PEERPOST_WAKE_QUIET_MS)` };
  const held = holder(entry.sessionId, entry.cwd, waker?.isHostProcess);
  return held ? { state: "unsure", why: held } : { state: "gone" };
}
