// Grok Build run headless for peerpost (verified with 1.0.41, see README.md): `grok --single <prompt>
// --resume <id>`, allowing exactly peerpost's read and reply (Grok names MCP tools <server>__<tool>).
import type { RunSettings, Waker } from "../../core/wake/waker.js";
import { isGrokProcess } from "../shared/host-processes.js";

const ALLOW = ["--output-format", "streaming-json", "--allow", "peerpost__read", "--allow", "peerpost__reply"];

/** `-m` and `--reasoning-effort` (1.0.41's --help; the words are the model's to check). */
export function grokSettingFlags(settings: RunSettings | undefined): string[] {
  return [...(settings?.model ? ["-m", settings.model] : []), ...(settings?.effort ? ["--reasoning-effort", settings.effort] : [])];
}

export const grokWaker: Waker = {
  host: "grok",
  isHostProcess: isGrokProcess,
  // Grok matches sessions to the current directory on resume.
  settings: { model: true, effort: true, cwdOnResume: false, cwdWhy: "Grok keeps each session with the directory it started in" },
  resume: ({ sessionId, prompt, settings }) => ({ command: "grok", args: ["--single", prompt, "--resume", sessionId, ...grokSettingFlags(settings), ...ALLOW] }),
  // Grok takes MCP servers from its config only: a launched session has peerpost's tools through the plugin.
  launch: ({ sessionId, prompt, settings }) => ({ command: "grok", args: ["--single", prompt, "--session-id", sessionId, ...grokSettingFlags(settings), ...ALLOW] }),
};
