// A fork's run and its answer. The runner starts the host's fork command, records the fork's session once
// the host names it (`wake-forked`), and when the run ends sends the fork's final answer back to the
// forked session as one message (`<fork thread model effort status/>` and the answer), idempotent by run,
// then marks the run `wake-reconciled`. The sweeper of any running server (sweeper.ts) does the same for
// runs whose runner stopped. Sent by the runner and the sweeper alike, the message still exists once.
import { readStateFile } from "../security/trust.js";
import type { Peerpost } from "../peerpost.js";
import { escapeForModel as escapeAttribute } from "../security/escape.js";
import { formatAddress } from "../common/address.js";
import { KIND_OF_HOST } from "./launch-bind.js";
import { claimEnvironment, runClaim } from "./run-claim.js";
import { settingTags } from "./settings.js";
import { usageTags } from "./usage.js";
import { archiveWith } from "../sessions/housekeeping.js";
import type { Waker } from "./waker.js";
import type { WakeClaim } from "./records.js";
import type { WakeState } from "./wake-fold.js";
import { MAX_BODY_BYTES } from "../records/schemas.js";
import { cutToBytes } from "../common/utf8.js";

export type ForkStatus = "completed" | "failed" | "interrupted";

/** Runs a claimed fork to its end, then sends its answer back. */
export async function runFork(peerpost: Peerpost, claim: WakeClaim, waker: Waker): Promise<number> {
  const fork = waker.fork;
  if (!fork || claim.sessionId === undefined || !claim.request) throw new Error(`${claim.host} cannot fork`);
  const named = async (sessionId: string) => {
    const address = formatAddress(KIND_OF_HOST[claim.host], sessionId);
    await peerpost.sessions.register({ host: claim.host, address, sessionId, cwd: claim.cwd, source: "cli" });
    await peerpost.wakes.append({ v: 1, type: "wake-forked", id: claim.id, address, sessionId, at: new Date(peerpost.config.now()).toISOString() });
    return true;
  };
  const chosen = claim.fork?.sessionId;
  if (chosen !== undefined) await named(chosen);
  const command = fork.command({ sessionId: claim.sessionId, forkSessionId: chosen, prompt: claim.request.body, settings: claim.settings });
  const naming = chosen === undefined && fork.forkNamed ? { sessionIdIn: fork.forkNamed, bind: named } : undefined;
  const ended = await runClaim(peerpost, claim, command, waker, naming);
  const run = peerpost.wakes.fold().runs.get(claim.id);
  if (run) await reconcileFork(peerpost, run, waker);
  // A completed fork is archived (where the host can) unless asked to keep it; a failed one is kept.
  if (ended.outcome === "ok" && !claim.fork?.keep && run?.forked && waker.archive) {
    // In the host's config dir the fork ran in (its CODEX_HOME): the forked session's own environment.
    const archived = await archiveWith(waker, run.forked.sessionId, claimEnvironment(peerpost, claim).env);
    await peerpost.receipts
      .record({ kind: "fork", host: claim.host, from: run.forked.address, to: run.forked.address, messageId: claim.id, delivery: archived.code === 0 ? "delivered" : "failed", via: `fork:${claim.id}`, warnings: archived.code === 0 ? [] : [archived.output.slice(-2000)], tags: ["archived"], origin: { source: "host", detail: archived.command.join(" ").slice(0, 200), pid: process.pid, cwd: claim.cwd } })
      .catch(() => undefined);
  }
  return ended.outcome === "ok" ? 0 : 1;
}

function statusOf(run: Readonly<WakeState>): ForkStatus {
  const outcome = run.ended?.outcome;
  if (outcome === "ok") return "completed";
  if (outcome === "timeout" || outcome === "abandoned") return "interrupted";
  return "failed";
}

/** The fork's final answer, from its output log (the whole log: the answer may be long). */
function answerOf(run: Readonly<WakeState>, waker: Waker | undefined): string | undefined {
  const path = run.ended?.logPath;
  if (!path) return undefined;
  try {
    const output = readStateFile(path);
    return waker?.finalAnswer?.(output) ?? waker?.report?.(output);
  } catch {
    return undefined;
  }
}

/** Sends an ended fork's answer to the forked session, once, and marks the run reconciled. */
export async function reconcileFork(peerpost: Peerpost, run: Readonly<WakeState>, waker: Waker | undefined): Promise<void> {
  const { claim } = run;
  if (claim.kind !== "fork" || !run.ended || run.reconciled || claim.address === undefined) return;
  const status = statusOf(run);
  // A fork that never named its session still answers, from an address no session has.
  const from = run.forked?.address ?? formatAddress(KIND_OF_HOST[claim.host], claim.id);
  const answer = status === "completed" ? answerOf(run, waker) : undefined;
  const element = `<fork thread="${escapeAttribute(from)}" model="${escapeAttribute(claim.settings?.model ?? "default")}" effort="${escapeAttribute(claim.settings?.effort ?? "default")}" status="${status}"/>`;
  const detail = answer ?? (status === "completed" ? "(the fork ended without a final answer)" : `The fork ${status === "interrupted" ? "was interrupted" : "failed"}: ${run.ended.reason ?? run.ended.outcome}. It is kept for inspection${run.ended.logPath ? `; its output is in ${run.ended.logPath}` : ""}.`);
  // Cut by UTF-8 bytes, the body's limit: 60,000 characters of CJK text are 180 KB, which the send would
  // refuse, and the answer would never come back.
  const body = cutToBytes(`${element}\n\n${detail}`, MAX_BODY_BYTES);
  const { message, created } = await peerpost.mailbox.send({ from, fromVerified: true, to: claim.address, body, anticipation: "fyi", idempotencyKey: `fork:${claim.id}`, allowSelf: true });
  if (created)
    await peerpost.receipts
      .record({ kind: "fork", host: claim.host, from, to: claim.address, messageId: message.id, delivery: "queued", via: `fork:${claim.id}`, warnings: run.ended.reason ? [run.ended.reason.slice(0, 2000)] : [], tags: [`status=${status}`, ...settingTags(claim.settings ?? {}), ...usageTags(run.ended.usage)], origin: { source: "host", detail: "fork reconcile", pid: process.pid, cwd: claim.cwd } })
      .catch(() => undefined);
  await peerpost.wakes.decide((fold) => (fold.runs.get(claim.id)?.reconciled ? [] : [{ v: 1, type: "wake-reconciled", id: claim.id, messageId: message.id, at: new Date(peerpost.config.now()).toISOString() }]));
}
