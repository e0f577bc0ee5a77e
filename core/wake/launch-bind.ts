// A launch on a host that picks the new session's id itself (Codex names its thread in `thread.started`):
// the runner reads the id from the host's output, sends the launch's first message to that address, and
// only then binds the run (`wake-bound`). The launcher waits for the binding to return the address, and
// the launched session's own server waits for it before its first tool call, so the model's first `read`
// finds the message.
import type { Peerpost } from "../peerpost.js";
import { formatAddress, type SessionKind } from "../common/address.js";
import type { SessionHost } from "../records/schemas.js";
import { waitFor } from "../mail/wait.js";
import type { WakeClaim } from "./records.js";
import type { WakeState } from "./wake-fold.js";

/** How long a launch call (and the launched server's first tool call) waits for the host to name the session. */
export const LAUNCH_BIND_TIMEOUT_MS = 60_000;

export const KIND_OF_HOST: Record<SessionHost, SessionKind> = { "claude-code": "claude", codex: "codex", copilot: "copilot", grok: "grok" };

/** The run once it is bound or has ended; undefined at the timeout. */
export async function awaitBinding(peerpost: Peerpost, runId: string, timeoutMs: number = LAUNCH_BIND_TIMEOUT_MS): Promise<WakeState | undefined> {
  const outcome = await waitFor(
    () => {
      const run = peerpost.wakes.fold().runs.get(runId);
      return run && (run.bound || run.ended) ? run : undefined;
    },
    { timeoutMs, pollMs: 100, watchDir: peerpost.stateDir.path },
  );
  return outcome.outcome === "match" ? outcome.value : undefined;
}

/**
 * Runner side, once the host named the session: registers it, sends the launch's first message, and binds
 * the run under the wakes log's lock. False when the run had already ended (the launcher gave up on it).
 */
export async function bindLaunch(peerpost: Peerpost, claim: WakeClaim, sessionId: string): Promise<boolean> {
  const request = claim.request;
  if (!request) return false;
  const address = formatAddress(KIND_OF_HOST[claim.host], sessionId);
  await peerpost.sessions.register({ host: claim.host, address, sessionId, cwd: claim.cwd, source: "cli" });
  const { message } = await peerpost.mailbox.send({ ...request, to: address, idempotencyKey: `launch:${claim.id}` });
  let bound = false;
  await peerpost.wakes.decide((fold) => {
    const run = fold.runs.get(claim.id);
    if (!run || run.bound || run.ended) return [];
    bound = true;
    return [{ v: 1, type: "wake-bound", id: claim.id, address, sessionId, messageIds: [message.id], at: new Date(peerpost.config.now()).toISOString() }];
  });
  return bound;
}
