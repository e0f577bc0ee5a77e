// Launching a helper: a new headless session on a host, in a directory, with a message as its first
// prompt. It has its own switch (`peerpost launch on|off`, off by default) and the wake budget: at most
// PEERPOST_WAKE_CONCURRENCY runs at once and PEERPOST_WAKE_PER_HOUR launches an hour on the machine.
// Where the host lets it, peerpost picks the new session's id on the host's command line, so the address
// is known at once; Codex names its thread itself, so the call waits for that (launch-bind.ts).
import { statSync } from "node:fs";
import { basename, isAbsolute } from "node:path";
import type { Peerpost } from "../peerpost.js";
import { nodeCrypto } from "../common/crypto.js";
import { PeerpostError } from "../common/errors.js";
import { formatAddress } from "../common/address.js";
import { idFactory } from "../common/ids.js";
import type { Anticipation, SessionHost } from "../records/schemas.js";
import { readSwitches } from "./switches.js";
import { HOUR_MS, newClaim, releaseAbandoned, startRunner, stopGroup } from "./request.js";
import { isSameProcess } from "../sessions/process-tree.js";
import type { LaunchInput, RunSettings, WakeDeps } from "./waker.js";
import { checkRunSettings, settingTags } from "./settings.js";
import type { WakeClaim } from "./records.js";
import type { WakeFold } from "./wake-fold.js";
import { checkBody } from "../mail/messages.js";
import { awaitBinding, KIND_OF_HOST, LAUNCH_BIND_TIMEOUT_MS } from "./launch-bind.js";
import { requireHostBinary } from "./host-binary.js";
import { escapeVisible } from "../security/escape.js";

export interface LaunchRequest {
  from: string;
  fromVerified: boolean;
  host: SessionHost;
  cwd: string;
  text: string;
  anticipation?: Anticipation;
  /** Model and reasoning effort, through the host's own flags. */
  settings?: RunSettings;
}

export interface Launched {
  address: string;
  messageId: string;
  claimId: string;
}

/**
 * The peerpost MCP server a launched session gets on its command line: this bundle, serving that host. A
 * launch whose host names the session itself passes its run id, so the server's first call waits for it.
 */
export function launchServer(deps: WakeDeps, host: SessionHost, stateDir: string, runId?: string): LaunchInput["server"] {
  const args = /^cli\.[cm]js$/.test(basename(deps.runnerEntry)) ? [deps.runnerEntry, "serve", "--host", host] : [deps.runnerEntry];
  return { command: process.execPath, args, env: { PEERPOST_HOME: stateDir, PEERPOST_HOST: host, ...(runId !== undefined ? { PEERPOST_LAUNCH_RUN: runId } : {}) } };
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

function overBudget(why: string): PeerpostError {
  return new PeerpostError("permission_denied", `Over the launch budget: ${why}. Nothing was stored: no session, no message.`, {
    details: { reason: "wake_over_budget" },
    hint: "Try again when a run has ended, or raise the setting.",
  });
}

/** Claims a launch run under the wakes log's lock, within the budget; over it, the error says why. */
async function claimLaunch(peerpost: Peerpost, fields: Pick<WakeClaim, "host" | "cwd" | "messageIds"> & Partial<Pick<WakeClaim, "address" | "sessionId" | "request" | "settings">>): Promise<string> {
  const newId = await idFactory();
  let claimId: string | undefined;
  let late: string | undefined;
  await peerpost.wakes.decide((fold) => {
    const now = peerpost.config.now();
    const records = releaseAbandoned(fold, now);
    late = launchRefusal(peerpost, fold);
    if (late) return records;
    const claim = newClaim(peerpost, newId(now), now, "launch", fields);
    claimId = claim.id;
    return [...records, claim];
  });
  if (claimId === undefined) throw overBudget(late ?? "");
  return claimId;
}

export async function launchSession(peerpost: Peerpost, deps: WakeDeps, request: LaunchRequest): Promise<Launched> {
  if (!readSwitches(peerpost.stateDir.path).launch)
    throw new PeerpostError("permission_denied", "Launching sessions is off on this machine.", { hint: "A person turns it on with `peerpost launch on` (and off again with `peerpost launch off`)." });
  const waker = deps.wakers[request.host];
  if (!waker?.launch && !waker?.launchNamedByHost)
    throw new PeerpostError("unsupported", `peerpost cannot launch ${request.host} sessions from here.`, {
      details: { host: request.host },
      hint: "Launch on another host, or start the session yourself and message it.",
    });
  let isDir = false;
  try {
    isDir = isAbsolute(request.cwd) && statSync(request.cwd).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new PeerpostError("invalid_arguments", `cwd ${JSON.stringify(request.cwd)} is not an existing directory (absolute path).`, { details: { field: "cwd" }, hint: "Pass the absolute path of the directory the new session should work in." });
  checkBody(request.text);
  const settings = checkRunSettings(request.host, waker, request.settings ?? {});
  const withSettings = Object.keys(settings).length > 0 ? { settings } : {};
  // A launch runs the binary on the requester's own PATH (run-claim.ts), never one a capture would lend.
  requireHostBinary(request.host, waker.binary, process.env);
  const refused = () => launchRefusal(peerpost, peerpost.wakes.fold());
  // Checked before anything is written, and again under the lock when the run is claimed.
  const early = refused();
  if (early) throw overBudget(early);
  const launched = waker.launch ? await launchChosenId(peerpost, deps, request, withSettings) : await launchNamedByHost(peerpost, deps, request, withSettings);
  if (withSettings.settings) await recordSettings(peerpost, request, launched, withSettings.settings);
  return launched;
}

/** The receipt of a launch's chosen settings (the run's own receipt names them again when it ends). */
async function recordSettings(peerpost: Peerpost, request: LaunchRequest, launched: Launched, settings: RunSettings): Promise<void> {
  await peerpost.receipts
    .record({ kind: "settings", host: request.host, from: request.from, to: launched.address, messageId: launched.messageId, delivery: "queued", via: `launch:${launched.claimId}`, warnings: [], tags: settingTags({ ...settings, cwd: request.cwd }), origin: { source: "explicit", detail: "launch settings", pid: process.pid, cwd: request.cwd } })
    .catch(() => undefined);
}

async function launchChosenId(peerpost: Peerpost, deps: WakeDeps, request: LaunchRequest, withSettings: { settings?: RunSettings }): Promise<Launched> {
  const sessionId = nodeCrypto().randomUUID();
  const address = formatAddress(KIND_OF_HOST[request.host], sessionId);
  // The run is claimed before the session and its message are stored, so a launch refused over budget
  // leaves nothing behind; the claim then takes its message as a launch named by its host does (wake-bound).
  const claimId = await claimLaunch(peerpost, { address, host: request.host, sessionId, cwd: request.cwd, messageIds: [], ...withSettings });
  const at = () => new Date(peerpost.config.now()).toISOString();
  let messageId: string;
  try {
    await peerpost.sessions.register({ host: request.host, address, sessionId, cwd: request.cwd, source: "cli" });
    const { message } = await peerpost.mailbox.send({ from: request.from, fromVerified: request.fromVerified, to: address, body: request.text, anticipation: request.anticipation ?? "reply", idempotencyKey: `launch:${claimId}` });
    messageId = message.id;
    await peerpost.wakes.append({ v: 1, type: "wake-bound", id: claimId, address, sessionId, messageIds: [messageId], at: at() });
  } catch (error) {
    // The run never starts: it ends here rather than holding a slot of the budget until its deadline.
    await peerpost.wakes.append({ v: 1, type: "wake-ended", id: claimId, outcome: "failed", reason: `the launch could not store its session or message: ${(error as Error).message}`.slice(0, 2000), at: at() }).catch(() => undefined);
    throw error;
  }
  startRunner(peerpost, deps, claimId);
  return { address, messageId, claimId };
}

/**
 * A launch on a host that names the new session itself: the claim carries the first message, the runner
 * binds the session once the host names it, and this call waits for that (at most LAUNCH_BIND_TIMEOUT_MS).
 */
async function launchNamedByHost(peerpost: Peerpost, deps: WakeDeps, request: LaunchRequest, withSettings: { settings?: RunSettings }): Promise<Launched> {
  const firstMessage = { from: request.from, fromVerified: request.fromVerified, anticipation: request.anticipation === "action" ? "action" : "reply", body: request.text } as const;
  const runId = await claimLaunch(peerpost, { host: request.host, cwd: request.cwd, messageIds: [], request: firstMessage, ...withSettings });
  startRunner(peerpost, deps, runId);
  let run = await awaitBinding(peerpost, runId);
  if (!run) {
    // The host never named the session in time: end the run here (its runner stops the host when it sees this).
    await peerpost.wakes.decide((fold) => {
      const current = fold.runs.get(runId);
      return current?.bound || current?.ended ? [] : [{ v: 1, type: "wake-ended", id: runId, outcome: "failed", reason: `${request.host} did not name its new session within ${LAUNCH_BIND_TIMEOUT_MS} ms`, at: new Date(peerpost.config.now()).toISOString() }];
    });
    run = peerpost.wakes.fold().runs.get(runId);
    // Its runner watches for the name only in the host's output: a host that never prints it is stopped
    // here, or it would run on to the turn timeout, unaddressed and outside the concurrency budget.
    const host = run?.bound ? undefined : run?.host;
    if (host && isSameProcess(host.pid, host.pidStart)) stopGroup(host.pid);
  }
  const bound = run?.bound;
  if (!bound)
    throw new PeerpostError("internal_error", `The ${request.host} session could not be launched: ${run?.ended?.reason !== undefined ? escapeVisible(run.ended.reason) : "it never started"}.`, {
      details: { runId, host: request.host, ...(run?.ended?.logPath ? { logPath: run.ended.logPath } : {}) },
      hint: `See \`peerpost wake\` and the run's log for what the host said.`,
    });
  return { address: bound.address, messageId: bound.messageIds[0]!, claimId: runId };
}
