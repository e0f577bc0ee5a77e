// The Agent Client Protocol half of `peerpost shim` (Grok's `grok agent stdio`, Copilot's `copilot --acp`):
// sessions come from session/new (its result) and session/load or session/resume (their params); a
// session is busy while a session/prompt, the editor's or the shim's, or the editor's load of a session it
// has open has no answer yet (Copilot has no idle signal of its own, and cancels a running prompt when
// another arrives). A turn is a session/prompt.
import { PeerpostError } from "../../core/common/errors.js";
import type { RelayObserver, RpcMessage, ShimRelay } from "../../core/server/shim-relay.js";
import type { ShimSessionEvents } from "../../core/server/shim-sessions.js";

const stringField = (value: unknown, field: string): string | undefined => {
  const found = (value as Record<string, unknown> | undefined)?.[field];
  return typeof found === "string" ? found : undefined;
};
export const sessionIdOf = (value: unknown): string | undefined => stringField(value, "sessionId");

/**
 * The requests a session is busy with until they are answered: a prompt, and a load or resume of a session
 * the editor has open already (reopening a thread from history replays it; a turn pushed meanwhile would
 * land in the middle of the replay).
 */
const HOLDING: Record<string, string> = { "session/prompt": "prompt", "session/load": "load", "session/resume": "resume" };

/** Sessions and prompts in flight, as any ACP agent shows them. */
export function acpObserver(events: ShimSessionEvents): RelayObserver {
  return {
    request(method, params, id, from) {
      const sessionId = sessionIdOf(params);
      if (HOLDING[method] !== undefined && sessionId !== undefined) events.busy(sessionId, `${HOLDING[method]}:${from}:${id}`, true);
    },
    response(request, answer, from) {
      const asked = sessionIdOf(request.params);
      if (HOLDING[request.method] !== undefined && asked !== undefined) events.busy(asked, `${HOLDING[request.method]}:${from}:${request.id}`, false);
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
 * Updates an agent sends about a session at any time, not as work on a turn: the commands and modes it
 * offers, its title, its token usage. None of them says a pushed prompt was taken.
 */
const SESSION_STATE_UPDATES = new Set(["available_commands_update", "current_mode_update", "session_info_update", "config_option_update", "usage_update"]);

/** Whether a session/update shows the agent at work on a turn: streamed text or thought, a tool call, a plan. */
function isTurnWork(params: unknown): boolean {
  const kind = stringField((params as Record<string, unknown> | undefined)?.["update"], "sessionUpdate");
  return kind !== undefined && !SESSION_STATE_UPDATES.has(kind);
}

/**
 * Sends the turn as a session/prompt with the shim's own id. Resolves once the agent works on it (its
 * first update of turn work for the session) or has answered it; rejects on an error answer.
 */
/** The messages whose turn text the editor was shown already: a push tried again is not shown twice. */
const shownToEditor = new Set<string>();

export async function acpInject(relay: ShimRelay, sessionId: string, text: string, messageId: string): Promise<void> {
  let stopWatching: () => void = () => undefined;
  const working = new Promise<"working">((resolve) => {
    stopWatching = relay.observe({
      notification(method, params) {
        if (method === "session/update" && sessionIdOf(params) === sessionId && isTurnWork(params)) resolve("working");
      },
    });
  });
  // ACP agents do not echo a prompt they did not get from the editor: the panel shows the pushed turn's
  // text as the user's message (what a load of the session replays it as), so its person sees what was asked.
  if (!shownToEditor.has(messageId)) {
    shownToEditor.add(messageId);
    relay.notifyEditor("session/update", { sessionId, update: { sessionUpdate: "user_message_chunk", content: { type: "text", text } } });
  }
  const answer = relay.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  const first = await Promise.race([working, answer]);
  stopWatching();
  if (first !== "working" && first.error !== undefined) throw rejected(first, sessionId);
}
