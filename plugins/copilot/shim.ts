// `peerpost shim copilot --acp …` (verified with Copilot CLI 1.0.102): plain ACP over stdio. Copilot
// reports no activity of its own, so a session is idle when no session/prompt is in flight.
import type { ShimDialect } from "../../core/server/shim-sessions.js";
import { acpInject, acpObserver } from "../shared/acp-shim.js";

export const copilotShim: ShimDialect = {
  host: "copilot",
  kind: "copilot",
  binary: "copilot",
  // `--acp` alone (or with --stdio) speaks on stdio; `--acp --port N` listens on TCP, where no shim sits.
  isProtocolMode: (args) => args.includes("--acp") && !args.some((arg) => arg === "--port" || arg.startsWith("--port=") || arg === "-h" || arg === "--help"),
  observer: acpObserver,
  inject: acpInject,
};
