// Copilot CLI run headless for peerpost (verified with 1.0.102, see README.md): `copilot -p <prompt>
// --resume=<id> --allow-tool=peerpost`, which allows exactly the peerpost server's tools.
import type { RunSettings, Waker } from "../../core/wake/waker.js";
import { isCopilotProcess } from "../shared/host-processes.js";

/** `--model` and `--reasoning-effort` (1.0.102's --help: none, minimal, low, medium, high, xhigh, max). */
function copilotSettingFlags(settings: RunSettings | undefined): string[] {
  return [...(settings?.model ? [`--model=${settings.model}`] : []), ...(settings?.effort ? [`--reasoning-effort=${settings.effort}`] : [])];
}

export const copilotWaker: Waker = {
  host: "copilot",
  binary: "copilot",
  isHostProcess: isCopilotProcess,
  settings: { model: true, effort: true, efforts: ["none", "minimal", "low", "medium", "high", "xhigh", "max"], cwdOnResume: false, cwdWhy: "a Copilot CLI session keeps the working directory it started in (--resume restores it)" },
  archiveMissing: "Copilot CLI 1.0.102 has no archive command (`copilot sessions` only imports)",
  forkMissing: "Copilot CLI 1.0.102 has no fork: its --help lists no --fork-session flag and no fork command, and --resume continues the session itself",
  resume: ({ sessionId, prompt, settings }) => ({ command: "copilot", args: ["-p", prompt, `--resume=${sessionId}`, ...copilotSettingFlags(settings), "--allow-tool=peerpost"] }),
  // --additional-mcp-config (highest precedence) names the server "peerpost", so --allow-tool=peerpost covers it.
  launch: ({ sessionId, prompt, server, settings }) => ({
    command: "copilot",
    args: ["-p", prompt, `--session-id=${sessionId}`, ...copilotSettingFlags(settings), "--allow-tool=peerpost", "--additional-mcp-config", JSON.stringify({ mcpServers: { peerpost: { type: "local", ...server, tools: ["*"] } } })],
  }),
};
