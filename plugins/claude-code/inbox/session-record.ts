// Finds a running Claude Code session's own messaging inbox: `<config>/sessions/<pid>.json`, written by
// every interactive or stream-json session (Claude Code's private peer protocol, version 1). Anything
// unexpected (another protocol version, no socket, a record of another session or of a dead or reused
// pid) makes the inbox unavailable with the reason, and mail goes to the hooks and `read` as before.
import { lstatSync, readdirSync } from "node:fs";
import { readBounded } from "../../shared/session-files.js";
import { join } from "node:path";
import { homedir } from "node:os";
import { isSameProcess } from "../../../core/sessions/process-tree.js";
import { nodeCrypto } from "../../../core/common/crypto.js";

export const PEER_PROTOCOL = 1;
const RECORD_BYTES = 64 * 1024;

export interface InboxSession {
  pid: number;
  sessionId: string;
  socketPath: string;
  /** The inbox's peer token, from the key file beside the record (optional on Linux and macOS). */
  token?: string;
}

export type InboxLookup = { ok: true; session: InboxSession } | { ok: false; reason: string };

export function claudeConfigDir(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), ".claude");
}

interface SessionRecordFile {
  pid?: unknown;
  sessionId?: unknown;
  procStart?: unknown;
  peerProtocol?: unknown;
  messagingSocketPath?: unknown;
}

function readRecord(path: string): SessionRecordFile | undefined {
  try {
    // Claude's own small files: bounded, never through a link, never blocking on a FIFO.
    const parsed = JSON.parse(readBounded(path, RECORD_BYTES)) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed as SessionRecordFile) : undefined;
  } catch {
    return undefined;
  }
}

function isSocket(path: string): boolean {
  try {
    return lstatSync(path).isSocket();
  } catch {
    return false;
  }
}

function peerToken(sessionsDir: string, pid: number, socketPath: string): string | undefined {
  const key = join(sessionsDir, `${pid}.${nodeCrypto().createHash("sha256").update(socketPath).digest("hex")}.key`);
  const token = (readRecord(key) as { peerToken?: unknown } | undefined)?.peerToken;
  return typeof token === "string" ? token : undefined;
}

/** The inbox of session `sessionId`, run by `hostPid` when known (else any live pid whose record names it). */
export function findInboxSession(configDir: string, sessionId: string, hostPid: number | undefined): InboxLookup {
  const sessionsDir = join(configDir, "sessions");
  let names: string[];
  try {
    names = hostPid !== undefined ? [`${hostPid}.json`] : readdirSync(sessionsDir).filter((name) => /^\d+\.json$/.test(name));
  } catch {
    return { ok: false, reason: `no Claude Code session registry at ${sessionsDir}` };
  }
  for (const name of names) {
    const record = readRecord(join(sessionsDir, name));
    if (!record || record.sessionId !== sessionId || typeof record.pid !== "number") continue;
    const procStart = typeof record.procStart === "string" && /^\d+$/.test(record.procStart) ? Number(record.procStart) : undefined;
    if (!isSameProcess(record.pid, procStart)) continue;
    if (record.peerProtocol !== PEER_PROTOCOL) return { ok: false, reason: `the session's record speaks peerProtocol ${JSON.stringify(record.peerProtocol)}, not ${PEER_PROTOCOL}; peerpost does not guess another protocol` };
    if (typeof record.messagingSocketPath !== "string") return { ok: false, reason: "the session has no messaging socket (its inbox is off: --bare, CLAUDE_CODE_HARBOR_KITE=0, or a restricted session)" };
    if (!isSocket(record.messagingSocketPath)) return { ok: false, reason: `the session's messaging socket ${record.messagingSocketPath} is not there` };
    const token = peerToken(sessionsDir, record.pid, record.messagingSocketPath);
    return { ok: true, session: { pid: record.pid, sessionId, socketPath: record.messagingSocketPath, ...(token !== undefined ? { token } : {}) } };
  }
  return { ok: false, reason: `no running Claude Code session ${sessionId} in ${sessionsDir} (yet)` };
}
