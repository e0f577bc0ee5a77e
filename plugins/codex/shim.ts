// `peerpost shim codex app-server` (verified with codex-cli 0.171.0): the editor's threads come from the
// results of thread/start, thread/resume and thread/fork. A thread is busy while a turn/start (or another
// request that sets it to work: a review, a compaction, a shell command) waits for its answer, while a
// turn runs (turn/start's answer or turn/started, until turn/completed), and while
// thread/status/changed says "active". A turn is a turn/start whose clientUserMessageId names the message,
// as the daemon push does (push.ts): a turn started on a busy thread would steer the running turn.
import { PeerpostError } from "../../core/common/errors.js";
import { CLOSED, type ShimDialect, type ShimSessionEvents } from "../../core/server/shim-sessions.js";
import type { RelayObserver } from "../../core/server/shim-relay.js";
import { textInput, type ThreadStatus, type TurnStartParams } from "./app-server-client.js";
import { clientMessageIdFor } from "./push.js";

/** app-server subcommands and flags that do not start the stdio server. */
const NOT_THE_SERVER = ["daemon", "proxy", "generate-ts", "generate-json-schema", "help", "-h", "--help", "--print-startup-config"];

function listenTarget(args: readonly string[]): string | undefined {
  const at = args.indexOf("--listen");
  if (at >= 0) return args[at + 1];
  return args.find((arg) => arg.startsWith("--listen="))?.slice("--listen=".length);
}

const threadIdOf = (value: unknown): string | undefined => {
  const id = (value as { threadId?: unknown } | undefined)?.threadId;
  return typeof id === "string" ? id : undefined;
};

const turnIdOf = (value: unknown): string | undefined => {
  const id = (value as { turn?: { id?: unknown } } | undefined)?.turn?.id;
  return typeof id === "string" ? id : undefined;
};

/** Notifications that a thread is gone from the app-server. */
const CLOSING = ["thread/archived", "thread/deleted", "thread/closed"];

/**
 * Requests that set a thread to work (codex-cli 0.171.0's protocol): it is busy from the request to its
 * answer, and turn/start's and review/start's answer name the turn that holds it on (review/start's on the
 * thread the review runs in) until turn/completed. A turn started meanwhile would join that work.
 */
const THREAD_WORK = ["turn/start", "review/start", "thread/compact/start", "thread/shellCommand"];

/** How many ended turns an observer remembers: enough for the answers still in flight. */
const ENDED_TURNS_KEPT = 256;

function codexObserver(events: ShimSessionEvents): RelayObserver {
  // A turn that fails at once can end (turn/completed) before turn/start is answered: its answer must
  // not hold the thread busy again, for good.
  const ended = new Set<string>();
  const endTurn = (turnId: string) => {
    ended.add(turnId);
    if (ended.size > ENDED_TURNS_KEPT) ended.delete(ended.values().next().value!);
  };
  return {
    request(method, params, id, from) {
      const threadId = threadIdOf(params);
      if (THREAD_WORK.includes(method) && threadId !== undefined) events.busy(threadId, `start:${from}:${id}`, true);
      // A thread the editor closed is shown nowhere: no turn starts there until it opens it again.
      if (method === "thread/unsubscribe" && threadId !== undefined && from === "editor") events.busy(threadId, CLOSED, true);
    },
    response(request, answer, from) {
      const threadId = threadIdOf(request.params);
      if (THREAD_WORK.includes(request.method) && threadId !== undefined) {
        // The running turn holds the thread before the start is let go, so it never looks idle between.
        const turnId = turnIdOf(answer.result);
        const reviewThreadId = (answer.result as { reviewThreadId?: unknown } | undefined)?.reviewThreadId;
        const turnThread = typeof reviewThreadId === "string" ? reviewThreadId : threadId;
        if (turnId !== undefined && !ended.has(turnId)) events.busy(turnThread, `turn:${turnId}`, true);
        events.busy(threadId, `start:${from}:${request.id}`, false);
        return;
      }
      if (!["thread/start", "thread/resume", "thread/fork"].includes(request.method)) return;
      const thread = (answer.result as { thread?: { id?: unknown; cwd?: unknown; status?: ThreadStatus } } | undefined)?.thread;
      if (typeof thread?.id !== "string") return;
      events.opened(thread.id, typeof thread.cwd === "string" ? thread.cwd : undefined);
      events.busy(thread.id, CLOSED, false);
      events.busy(thread.id, "status", thread.status?.type === "active");
    },
    notification(method, params) {
      const threadId = threadIdOf(params);
      if (threadId === undefined) return;
      // A thread the app-server let go (archived, deleted, unloaded) answers turn/start "thread not found": closed until opened again.
      if (CLOSING.includes(method) || (method === "thread/status/changed" && (params as { status?: ThreadStatus }).status?.type === "notLoaded")) events.busy(threadId, CLOSED, true);
      if (method === "thread/status/changed") events.busy(threadId, "status", (params as { status?: ThreadStatus }).status?.type === "active");
      const turnId = turnIdOf(params);
      if (turnId === undefined) return;
      if (method === "turn/started") events.busy(threadId, `turn:${turnId}`, true);
      if (method === "turn/completed") {
        endTurn(turnId);
        events.busy(threadId, `turn:${turnId}`, false);
      }
    },
  };
}

export const codexShim: ShimDialect = {
  host: "codex",
  kind: "codex",
  binary: "codex",
  isProtocolMode(args) {
    const at = args.indexOf("app-server");
    if (at < 0) return false;
    const rest = args.slice(at + 1);
    const listen = listenTarget(rest);
    return !rest.some((arg) => NOT_THE_SERVER.includes(arg)) && (listen === undefined || listen.startsWith("stdio"));
  },
  observer: codexObserver,
  async inject(relay, threadId, text, messageId) {
    const params: TurnStartParams = { threadId, input: [textInput(text)], clientUserMessageId: clientMessageIdFor(messageId) };
    const answer = await relay.request("turn/start", params);
    if (answer.error !== undefined)
      throw new PeerpostError("unsupported", `Codex refused the turn for thread ${threadId}: ${answer.error.message ?? "no reason given"}`, {
        details: { threadId, ...(answer.error.code !== undefined ? { rpcCode: answer.error.code } : {}) },
        hint: "The message stays unread for read and the hooks, and the push is retried.",
      });
  },
};
