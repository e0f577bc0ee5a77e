// Launching a helper: a new headless session on a host, in a directory, with a message as its first
// prompt. It has its own switch (`peerpost launch on|off`, off by default) and the wake budget: at most
// PEERPOST_WAKE_CONCURRENCY runs at once and PEERPOST_WAKE_PER_HOUR launches an hour on the machine.
// The address is known at once because peerpost picks the new session's id on the host's command line.
import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { basename, isAbsolute } from "node:path";
import type { Peerpost } from "../peerpost.js";
import { PeerpostError } from "../errors.js";
import { formatAddress, type SessionKind } from "../address.js";
import { idFactory } from "../ids.js";
import type { Anticipation, SessionHost } from "../schemas.js";
import { readSwitches } from "./switches.js";
import { claimDeadline, releaseAbandoned, startRunner } from "./request.js";
import type { LaunchInput, WakeDeps } from "./waker.js";
import type { WakeClaim } from "./records.js";
import type { WakeFold } from "./wakes.js";

const KIND_OF_HOST: Record<SessionHost, SessionKind> = { "claude-code": "claude", codex: "codex", copilot: "copilot", grok: "grok" };
const HOUR_MS = 3_600_000;

export interface LaunchRequest {
  from: string;
  fromVerified: boolean;
  host: SessionHost;
  cwd: string;
  text: string;
  anticipation?: Anticipation;
}

export interface Launched {
  address: string;
  messageId: string;
  claimId: string;
}

/** The peerpost MCP server a launched session gets on its command line: this bundle, serving that host. */
export function launchServer(deps: WakeDeps, host: SessionHost, stateDir: string): LaunchInput["server"] {
  const args = basename(deps.runnerEntry) === "cli.mjs" ? [deps.runnerEntry, "serve", "--host", host] : [deps.runnerEntry];
  return { command: process.execPath, args, env: { PEERPOST_HOME: stateDir } };
}

/** Why one more launch would be over budget, or undefined. */
function launchRefusal(peerpost: Peerpost, fold: WakeFold): string | undefined {
  const now = peerpost.config.now();
  const { perHour, concurrency } = peerpost.config.wake;
  const running = fold.active(now).length;
  if (running >= concurrency) return `${running} woken or launched turn(s) already run on this machine (PEERPOST_WAKE_CONCURRENCY=${concurrency})`;
  const launches = [...fold.runs.values()].filter((run) => run.claim.kind === "launch" && Date.parse(run.claim.at) >= now - HOUR_MS).length;
  if (launches >= perHour) return `${launches} session(s) were launched on this machine in the last hour (PEERPOST_WAKE_PER_HOUR=${perHour})`;
  return undefined;
}

function overBudget(why: string, messageId?: string): PeerpostError {
  return new PeerpostError("permission_denied", `Over the launch budget: ${why}.`, {
    details: { reason: "wake_over_budget", ...(messageId ? { messageId, note: "the message was stored and waits for the new session's address" } : {}) },
    hint: "Try again when a run has ended, or raise the setting.",
  });
}

export async function launchSession(peerpost: Peerpost, deps: WakeDeps, request: LaunchRequest): Promise<Launched> {
  if (!readSwitches(peerpost.stateDir.path).launch)
    throw new PeerpostError("permission_denied", "Launching sessions is off on this machine.", { hint: "A person turns it on with `peerpost launch on` (and off again with `peerpost launch off`)." });
  const waker = deps.wakers[request.host];
  if (!waker?.launch)
    throw new PeerpostError("unsupported", `peerpost cannot launch ${request.host} sessions: the host does not let it choose the new session's id up front.`, {
      details: { host: request.host },
      hint: "Launch on claude-code, copilot or grok, or start the session yourself and message it.",
    });
  let isDir = false;
  try {
    isDir = isAbsolute(request.cwd) && statSync(request.cwd).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new PeerpostError("invalid_arguments", `cwd ${JSON.stringify(request.cwd)} is not an existing directory (absolute path).`, { details: { field: "cwd" }, hint: "Pass the absolute path of the directory the new session should work in." });
  const sessionId = randomUUID();
  const address = formatAddress(KIND_OF_HOST[request.host], sessionId);
  const refused = () => launchRefusal(peerpost, peerpost.wakes.fold());
  // Checked before anything is written, and again under the lock when the run is claimed.
  const early = refused();
  if (early) throw overBudget(early);
  await peerpost.sessions.register({ host: request.host, address, sessionId, cwd: request.cwd, source: "cli" });
  const { message } = await peerpost.mailbox.send({ from: request.from, fromVerified: request.fromVerified, to: address, body: request.text, anticipation: request.anticipation ?? "reply" });
  const newId = await idFactory();
  let claim: WakeClaim | undefined;
  let late: string | undefined;
  await peerpost.wakes.decide((fold) => {
    const now = peerpost.config.now();
    const records = releaseAbandoned(fold, now);
    late = launchRefusal(peerpost, fold);
    if (late) return records;
    claim = { v: 1, type: "wake", id: newId(now), kind: "launch", address, host: request.host, sessionId, cwd: request.cwd, messageIds: [message.id], at: new Date(now).toISOString(), deadline: claimDeadline(peerpost, now), by: process.pid };
    return [...records, claim];
  });
  if (!claim) throw overBudget(late ?? "", message.id);
  startRunner(peerpost, deps, claim.id);
  return { address, messageId: message.id, claimId: claim.id };
}
