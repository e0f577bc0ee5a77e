// Forking a session: a prompt runs on a copy of the session's history, on the host's own fork (Claude
// Code `--resume <id> --fork-session`, Codex `codex exec fork <id>`, Grok `--resume <id> --fork-session`),
// optionally with another model, effort or working dir; the original keeps its transcript, model and
// prompt cache. It is a run of the wake runner: claimed under the wakes log's lock within the same budget,
// detached, with receipts; its answer comes back to the original session as one message (fork-run.ts).
import type { Peerpost } from "../peerpost.js";
import { PeerpostError } from "../common/errors.js";
import { requireHostBinary } from "./host-binary.js";
import { idFactory } from "../common/ids.js";
import { checkBody } from "../mail/messages.js";
import type { Recipient } from "../sessions/recipients.js";
import { budgetRefusal, newClaim, releaseAbandoned, startRunner } from "./request.js";
import { checkRunSettings, settingTags } from "./settings.js";
import { insideWorkspace } from "./overrides.js";
import { readSwitches, wakeSetting } from "./switches.js";
import type { RunSettings, WakeDeps } from "./waker.js";
import { nodeCrypto } from "../common/crypto.js";

export interface ForkRequest {
  from: string;
  fromVerified: boolean;
  /** The session to fork, resolved exactly. */
  session: Recipient;
  text: string;
  settings: RunSettings;
  cwd?: string | undefined;
  /** Keep the fork session when it completes (a failed one is always kept). */
  keep: boolean;
  /** Asked by an agent (the tool), not a person: another session is forked only where waking is on for it. */
  byAgent?: boolean;
}

export interface Forked {
  runId: string;
  /** The fork's address where peerpost chose its id; else it is named when the host starts it. */
  forkAddress?: string;
}

export async function forkSession(peerpost: Peerpost, deps: WakeDeps, request: ForkRequest): Promise<Forked> {
  const entry = request.session.entry;
  if (!entry || request.session.via === request.session.address)
    throw new PeerpostError("invalid_arguments", `${request.session.address} is not a session, so there is nothing to fork.`, { details: { field: "address" }, hint: "Give a session's address, as `peerpost agents` lists it." });
  const waker = deps.wakers[entry.host];
  if (!waker?.fork)
    throw new PeerpostError("unsupported", `peerpost cannot fork ${entry.host} sessions: ${waker?.forkMissing ?? "no headless run of this host is known"}.`, { details: { host: entry.host }, hint: "Fork a Claude Code, Codex or Grok session, or launch a new session with the task." });
  if (!entry.local)
    throw new PeerpostError("unsupported", `${entry.address} runs on machine ${entry.machine ?? "?"}; peerpost forks only sessions of its own machine.`, { details: { host: entry.host }, hint: "Fork it on its own machine." });
  if (entry.cwd === undefined) throw new PeerpostError("unsupported", `${entry.address} has no recorded working directory, so it cannot be resumed to fork.`, { details: { host: entry.host } });
  checkBody(request.text);
  const settings = checkRunSettings(entry.host, waker, request.settings);
  let cwd = entry.cwd;
  if (request.cwd !== undefined) {
    if (!waker.settings.cwdOnResume) throw new PeerpostError("unsupported", `${entry.host} cannot fork into another working dir: ${waker.settings.cwdWhy ?? "unknown"}.`, { details: { host: entry.host, setting: "cwd" }, hint: { model: "Leave cwd out.", cli: "Leave --cwd out." } });
    cwd = insideWorkspace(request.cwd, entry.cwd);
  }
  if (request.byAgent && entry.address !== request.from && !wakeSetting(readSwitches(peerpost.stateDir.path), entry).on)
    throw new PeerpostError("permission_denied", `Waking is off for ${entry.address}, so an agent may not fork it.`, {
      details: { reason: "wake_off", address: entry.address },
      hint: `A person forks it with \`peerpost fork\`, or turns waking on for it (\`peerpost wake on ${entry.address}\`).`,
    });
  // Refused at once, as a launch is, not as a failed run later in the forked session's mail.
  requireHostBinary(entry.host, waker.binary, process.env);
  const forkSessionId = waker.fork.choosesId ? nodeCrypto().randomUUID() : undefined;
  const newId = await idFactory();
  let claimId: string | undefined;
  let refusal: string | undefined;
  await peerpost.wakes.decide((fold) => {
    const now = peerpost.config.now();
    const records = releaseAbandoned(fold, now);
    refusal = budgetRefusal(peerpost, fold, entry.address, now)?.message;
    if (refusal) return records;
    const claim = newClaim(peerpost, newId(now), now, "fork", {
      address: entry.address,
      host: entry.host,
      sessionId: entry.sessionId,
      cwd,
      messageIds: [],
      request: { from: request.from, fromVerified: request.fromVerified, anticipation: "reply", body: request.text },
      fork: { keep: request.keep, ...(forkSessionId ? { sessionId: forkSessionId } : {}) },
      ...(Object.keys(settings).length > 0 ? { settings } : {}),
    });
    claimId = claim.id;
    return [...records, claim];
  });
  if (claimId === undefined)
    throw new PeerpostError("permission_denied", `Over the wake budget: ${refusal ?? ""}`, { details: { reason: "wake_over_budget" }, hint: "Try again when a run has ended, or raise the setting." });
  await peerpost.receipts
    .record({ kind: "fork", host: entry.host, from: request.from, to: entry.address, messageId: claimId, delivery: "queued", via: `fork:${claimId}`, warnings: [], tags: ["status=started", ...settingTags({ ...settings, cwd: request.cwd === undefined ? undefined : cwd })], origin: { source: "explicit", detail: "fork", pid: process.pid, cwd } })
    .catch(() => undefined);
  startRunner(peerpost, deps, claimId);
  return { runId: claimId, ...(forkSessionId ? { forkAddress: `${entry.address.split(":")[0]}:${forkSessionId}` } : {}) };
}
