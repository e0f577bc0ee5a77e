// Copilot CLI run headless for peerpost (verified with 1.0.102, see README.md): `copilot --resume=<id>
// --allow-tool=peerpost(read) --allow-tool=peerpost(reply)`, the prompt on stdin (Copilot runs it as -p
// runs one): a turn another agent's message started answers it, and asks before anything else (refused
// in a prompt-mode run, where nobody answers).
import type { LaunchInput, RunSettings, Waker } from "../../core/wake/waker.js";
import { isCopilotProcess } from "../shared/host-processes.js";

/** `--model` and `--reasoning-effort` (1.0.102's --help: none, minimal, low, medium, high, xhigh, max). */
function copilotSettingFlags(settings: RunSettings | undefined): string[] {
  return [...(settings?.model ? [`--model=${settings.model}`] : []), ...(settings?.effort ? [`--reasoning-effort=${settings.effort}`] : [])];
}

/** The peerpost tools a woken or launched run may use without asking, as on every host: read and reply. */
const READ_AND_REPLY = ["--allow-tool=peerpost(read)", "--allow-tool=peerpost(reply)"];

/** peerpost's server on the command line (--additional-mcp-config, highest precedence), named "peerpost" as the allowed tools name it: a launch's, and its resumes'. */
function launchedServer(server: LaunchInput["server"]): string[] {
  return ["--additional-mcp-config", JSON.stringify({ mcpServers: { peerpost: { type: "local", ...server, tools: ["*"] } } })];
}

export const copilotWaker: Waker = {
  host: "copilot",
  binary: "copilot",
  isHostProcess: isCopilotProcess,
  settings: { model: true, effort: true, efforts: ["none", "minimal", "low", "medium", "high", "xhigh", "max"], cwdOnResume: false, cwdWhy: "a Copilot CLI session keeps the working directory it started in (--resume restores it)" },
  archiveMissing: "Copilot CLI 1.0.102 has no archive command (`copilot sessions` only imports)",
  forkMissing: "Copilot CLI 1.0.102 has no fork: its --help lists no --fork-session flag and no fork command, and --resume continues the session itself",
  // A launched session gets its server again: the command line that gave it to the launch is not kept.
  resume: ({ sessionId, prompt, settings, server }) => ({ command: "copilot", args: [`--resume=${sessionId}`, ...copilotSettingFlags(settings), ...READ_AND_REPLY, ...(server ? launchedServer(server) : [])], stdin: prompt }),
  launch: ({ sessionId, prompt, server, settings }) => ({
    command: "copilot",
    args: [`--session-id=${sessionId}`, ...copilotSettingFlags(settings), ...READ_AND_REPLY, ...launchedServer(server)],
    stdin: prompt,
  }),
};
