// The Agent Client Protocol half of `peerpost shim` (Grok's `grok agent stdio`, Copilot's `copilot --acp`):
// sessions come from session/new (its result) and session/load or session/resume (their params); a
// session is busy while a session/prompt, the editor's or the shim's, has no answer yet (Copilot has no
// idle signal of its own, and cancels a running prompt when another arrives). A turn is a session/prompt.
import { PeerpostError } from "../../core/common/errors.js";
import type { RelayObserver, RpcMessage, ShimRelay } from "../../core/server/shim-relay.js";
import type { ShimSessionEvents } from "../../core/server/shim-sessions.js";

const stringField = (value: unknown, field: string): string | undefined => {
  const found = (value as Record<string, unknown> | undefined)?.[field];
  return typeof found === "string" ? found : undefined;
};
export const sessionIdOf = (value: unknown): string | undefined => stringField(value, "sessionId");

/** Sessions and prompts in flight, as any ACP agent shows them. */
export function acpObserver(events: ShimSessionEvents): RelayObserver {
  return {
    request(method, params, id, from) {
      const sessionId = sessionIdOf(params);
      if (method === "session/prompt" && sessionId !== undefined) events.busy(sessionId, `prompt:${from}:${id}`, true);
    },
    response(request, answer, from) {
      const asked = sessionIdOf(request.params);
      if (request.method === "session/prompt" && asked !== undefined) events.busy(asked, `prompt:${from}:${request.id}`, false);
      if (answer.error !== undefined) return;
      if (request.method === "session/new") {
        const created = sessionIdOf(answer.result);
        if (created !== undefined) events.opened(created, stringField(request.params, "cwd"));
      }
      if ((request.method === "session/load" || request.method === "session/resume") && asked !== undefined) events.opened(asked, stringField(request.params, "cwd"));
    },
  };
}

function rejected(answer: RpcMessage, sessionId: string): PeerpostError {
  return new PeerpostError("unsupported", `the agent refused the turn for session ${sessionId}: ${answer.error?.message ?? "no reason given"}`, {
    details: { sessionId, ...(answer.error?.code !== undefined ? { rpcCode: answer.error.code } : {}) },
    hint: "The message stays unread for read and the hooks, and the push is retried.",
  });
}

/**
 * Sends the turn as a session/prompt with the shim's own id. Resolves once the agent works on it (its
 * first session/update for the session) or has answered it; rejects on an error answer.
 */
export async function acpInject(relay: ShimRelay, sessionId: string, text: string): Promise<void> {
  let stopWatching: () => void = () => undefined;
  const working = new Promise<"working">((resolve) => {
    stopWatching = relay.observe({
      notification(method, params) {
        if (method === "session/update" && sessionIdOf(params) === sessionId) resolve("working");
      },
    });
  });
  const answer = relay.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  const first = await Promise.race([working, answer]);
  stopWatching();
  if (first !== "working" && first.error !== undefined) throw rejected(first, sessionId);
}
