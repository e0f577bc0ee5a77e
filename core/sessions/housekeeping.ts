// Session housekeeping through each host's own files and commands: list and show read the hosts'
// session files (the same bounded readers discovery uses) beside what peerpost knows of each; archive
// runs the host's own archive command, only where it has one, and never on a running session. Nothing
// is written but what the host's command writes itself.
import { nodeChildProcess } from "../common/child-process.js";
import { PeerpostError } from "../common/errors.js";
import type { Peerpost } from "../peerpost.js";
import type { SessionHost } from "../records/schemas.js";
import type { DiscoveredSession } from "./discovery.js";
import type { Waker, Wakers } from "../wake/waker.js";

export interface HostSessionRow extends DiscoveredSession {
  /** Whether peerpost has the session in its registry, and whether its host process runs now. */
  known: boolean;
  alive: boolean;
  archive: "supported" | "unsupported";
}

export function listHostSessions(peerpost: Peerpost, wakers: Wakers, host?: SessionHost): HostSessionRow[] {
  const found = (peerpost.discover?.(peerpost.env) ?? []).filter((session) => host === undefined || session.host === host);
  return found
    .map((session) => {
      const entry = peerpost.sessions.get(session.address);
      return { ...session, known: entry !== undefined, alive: entry?.alive ?? false, archive: wakers[session.host]?.archive ? ("supported" as const) : ("unsupported" as const) };
    })
    .sort((a, b) => (a.lastActivity < b.lastActivity ? 1 : -1));
}

export function showHostSession(peerpost: Peerpost, wakers: Wakers, address: string): HostSessionRow {
  const row = listHostSessions(peerpost, wakers).find((session) => session.address === address);
  if (!row) throw new PeerpostError("not_found", `No host session file shows ${address}.`, { details: { address }, hint: "`peerpost sessions list` shows the sessions the hosts' own files hold." });
  return row;
}

export interface Archived {
  address: string;
  command: string[];
  output: string;
}

/** Archives a session with its host's own command; unsupported where the host has none, refused while it runs. */
export async function archiveHostSession(peerpost: Peerpost, wakers: Wakers, address: string): Promise<Archived> {
  const row = showHostSession(peerpost, wakers, address);
  const waker = wakers[row.host];
  if (!waker?.archive)
    throw new PeerpostError("unsupported", `${row.host} sessions cannot be archived: ${waker?.archiveMissing ?? "no archive command is known"}. Housekeeping is read-only there.`, { details: { host: row.host }, hint: "`peerpost sessions show` still shows the session." });
  if (row.alive) throw new PeerpostError("permission_denied", `${address} is running now; peerpost archives only sessions whose host process has ended.`, { details: { reason: "session_running", address }, hint: "Archive it after it ends." });
  const archived = await archiveWith(waker, row.sessionId, peerpost.env);
  if (archived.code !== 0)
    throw new PeerpostError("internal_error", `${archived.command.join(" ")} exited ${archived.code}: ${archived.output.split("\n").pop() ?? ""}`.slice(0, 2000), { details: { host: row.host, exitCode: archived.code }, hint: "Run the host's command yourself to see why." });
  return { address, command: archived.command, output: archived.output };
}

/** Runs a host's archive command for one session (the caller checked it has one). */
export async function archiveWith(waker: Waker, sessionId: string, env: NodeJS.ProcessEnv): Promise<{ code: number; command: string[]; output: string }> {
  const { command, args } = waker.archive!(sessionId);
  const result = await run(command, args, env);
  return { code: result.code, command: [command, ...args], output: result.output.trim().slice(-2000) };
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = nodeChildProcess().spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-8000)));
    child.stderr.on("data", (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-8000)));
    child.on("error", (error) => resolve({ code: 127, output: error.message }));
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}
