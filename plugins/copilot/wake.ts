// Copilot CLI run headless for peerpost (verified with 1.0.102, see README.md): `copilot -p <prompt>
// --resume=<id> --allow-tool=peerpost(read) --allow-tool=peerpost(reply)`: a turn another agent's message
// started answers it, and asks before anything else (in -p mode, where nobody answers, is refused).
import type { RunSettings, Waker } from "../../core/wake/waker.js";
import { isCopilotProcess } from "../shared/host-processes.js";

/** `--model` and `--reasoning-effort` (1.0.102's --help: none, minimal, low, medium, high, xhigh, max). */
function copilotSettingFlags(settings: RunSettings | undefined): string[] {
  return [...(settings?.model ? [`--model=${settings.model}`] : []), ...(settings?.effort ? [`--reasoning-effort=${settings.effort}`] : [])];
}

/** The peerpost tools a woken or launched run may use without asking, as on every host: read and reply. */
const READ_AND_REPLY = ["--allow-tool=peerpost(read)", "--allow-tool=peerpost(reply)"];

export const copilotWaker: Waker = {
  host: "copilot",
  binary: "copilot",
  isHostProcess: isCopilotProcess,
  settings: { model: true, effort: true, efforts: ["none", "minimal", "low", "medium", "high", "xhigh", "max"], cwdOnResume: false, cwdWhy: "a Copilot CLI session keeps the working directory it started in (--resume restores it)" },
  archiveMissing: "Copilot CLI 1.0.102 has no archive command (`copilot sessions` only imports)",
  forkMissing: "Copilot CLI 1.0.102 has no fork: its --help lists no --fork-session flag and no fork command, and --resume continues the session itself",
  resume: ({ sessionId, prompt, settings }) => ({ command: "copilot", args: ["-p", prompt, `--resume=${sessionId}`, ...copilotSettingFlags(settings), ...READ_AND_REPLY] }),
  // --additional-mcp-config (highest precedence) names the server "peerpost", which the allowed tools name.
  launch: ({ sessionId, prompt, server, settings }) => ({
    command: "copilot",
    args: ["-p", prompt, `--session-id=${sessionId}`, ...copilotSettingFlags(settings), ...READ_AND_REPLY, "--additional-mcp-config", JSON.stringify({ mcpServers: { peerpost: { type: "local", ...server, tools: ["*"] } } })],
  }),
};
