// `peerpost shim grok agent stdio` (verified with Grok Build 1.0.41): ACP over stdio, plus Grok's own
// notifications: `_x.ai/sessions/changed`, whose `activity` says whether a session is working or idle,
// and `_x.ai/mcp_initialized`, sent once a session's MCP servers are connected. Grok answers session/new
// before that; a prompt that arrives meanwhile runs without peerpost's tools (Grok tells the model they
// are still connecting), so the model cannot `read` the request it was told of. A session counts as busy
// until its MCP servers are up.
import type { ShimDialect, ShimSessionEvents } from "../../core/server/shim-sessions.js";
import type { RelayObserver } from "../../core/server/shim-relay.js";
import { acpInject, acpObserver, sessionIdOf } from "../shared/acp-shim.js";

interface SessionsChanged {
  upserted?: Array<{ sessionId?: unknown; activity?: unknown }>;
}

const AGENT_MODES_ELSEWHERE = ["headless", "serve", "leader", "help", "-h", "--help"];
const OPENING = ["session/new", "session/load", "session/resume"];
/** The busy reason while a session's MCP servers connect. */
const MCP_CONNECTING = "mcp";
/** A Grok that never says its MCP servers are up (another version) is not held longer than this. */
const MCP_WAIT_MS = 60_000;

function grokObserver(events: ShimSessionEvents): RelayObserver {
  const acp = acpObserver(events);
  /** Sessions whose MCP servers Grok reported connected (possibly before the session was opened here). */
  const connected = new Set<string>();
  const mcpReady = (sessionId: string) => {
    connected.add(sessionId);
    events.busy(sessionId, MCP_CONNECTING, false);
  };
  return {
    ...acp,
    response(request, answer, from) {
      acp.response?.(request, answer, from);
      if (!OPENING.includes(request.method) || answer.error !== undefined) return;
      const sessionId = sessionIdOf(answer.result) ?? sessionIdOf(request.params);
      if (sessionId === undefined || connected.has(sessionId)) return;
      events.busy(sessionId, MCP_CONNECTING, true);
      setTimeout(() => events.busy(sessionId, MCP_CONNECTING, false), MCP_WAIT_MS).unref();
    },
    notification(method, params) {
      const sessionId = sessionIdOf(params);
      if (method === "_x.ai/mcp_initialized" && sessionId !== undefined) mcpReady(sessionId);
      if (method !== "_x.ai/sessions/changed") return;
      for (const session of (params as SessionsChanged | undefined)?.upserted ?? [])
        if (typeof session.sessionId === "string") events.busy(session.sessionId, "status", session.activity !== "idle");
    },
  };
}

export const grokShim: ShimDialect = {
  host: "grok",
  kind: "grok",
  binary: "grok",
  isProtocolMode(args) {
    const agent = args.indexOf("agent");
    if (agent < 0) return false;
    const rest = args.slice(agent + 1);
    return rest.includes("stdio") && !rest.some((arg) => AGENT_MODES_ELSEWHERE.includes(arg));
  },
  observer: grokObserver,
  inject: acpInject,
};
