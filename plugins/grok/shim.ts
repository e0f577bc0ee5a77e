// `peerpost shim grok agent stdio` (verified with Grok Build 1.0.41): ACP over stdio, plus Grok's own
// `_x.ai/sessions/changed` notification, whose `activity` says whether a session is working or idle.
import type { ShimDialect } from "../../core/server/shim-sessions.js";
import { acpInject, acpObserver } from "../shared/acp-shim.js";

interface SessionsChanged {
  upserted?: Array<{ sessionId?: unknown; activity?: unknown }>;
}

const AGENT_MODES_ELSEWHERE = ["headless", "serve", "leader", "help", "-h", "--help"];

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
  observer(events) {
    const acp = acpObserver(events);
    return {
      ...acp,
      notification(method, params) {
        if (method !== "_x.ai/sessions/changed") return;
        for (const session of (params as SessionsChanged | undefined)?.upserted ?? [])
          if (typeof session.sessionId === "string") events.busy(session.sessionId, "status", session.activity !== "idle");
      },
    };
  },
  inject: (relay, sessionId, text) => acpInject(relay, sessionId, text),
};
