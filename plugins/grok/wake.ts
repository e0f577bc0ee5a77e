// Grok Build run headless for peerpost (verified with 1.0.41, see README.md): `grok --prompt-file /dev/stdin
// --resume <id>`, the prompt on stdin, allowing exactly peerpost's read and reply (Grok names MCP tools <server>__<tool>).
import type { RunSettings, Waker } from "../../core/wake/waker.js";
import { anthropicStyleUsage, usageInJsonLines } from "../../core/wake/usage.js";
import { isGrokProcess } from "../shared/host-processes.js";

/** The agent's text in streaming-json output (1.0.41): its `{"type":"text","data":…}` lines, joined. */
function agentText(stdout: string): string | undefined {
  let text = "";
  for (const line of stdout.split("\n")) {
    try {
      const event = JSON.parse(line) as { type?: string; data?: unknown };
      if (event.type === "text" && typeof event.data === "string") text += event.data;
    } catch {
      // not an event line
    }
  }
  return text || undefined;
}

/** The `end` event's usage. */
function usage(stdout: string) {
  return usageInJsonLines(stdout, (event) => (event["type"] === "end" ? anthropicStyleUsage(event["usage"]) : undefined));
}

/** A single-turn prompt read from a file (1.0.41's --help): the run's stdin. */
const PROMPT_ON_STDIN = ["--prompt-file", "/dev/stdin"];

const ALLOW = ["--output-format", "streaming-json", "--allow", "peerpost__read", "--allow", "peerpost__reply"];

/** `-m` and `--reasoning-effort` (1.0.41's --help; the words are the model's to check). */
export function grokSettingFlags(settings: RunSettings | undefined): string[] {
  return [...(settings?.model ? ["-m", settings.model] : []), ...(settings?.effort ? ["--reasoning-effort", settings.effort] : [])];
}

export const grokWaker: Waker = {
  host: "grok",
  binary: "grok",
  isHostProcess: isGrokProcess,
  // Grok matches sessions to the current directory on resume.
  settings: { model: true, effort: true, cwdOnResume: false, cwdWhy: "Grok keeps each session with the directory it started in" },
  resume: ({ sessionId, prompt, settings }) => ({ command: "grok", args: [...PROMPT_ON_STDIN, "--resume", sessionId, ...grokSettingFlags(settings), ...ALLOW], stdin: prompt }),
  // Grok takes MCP servers from its config only: a launched session has peerpost's tools through the plugin.
  launch: ({ sessionId, prompt, settings }) => ({ command: "grok", args: [...PROMPT_ON_STDIN, "--session-id", sessionId, ...grokSettingFlags(settings), ...ALLOW], stdin: prompt }),
  // `--resume <id> --fork-session` copies the session; `--session-id` names the fork (1.0.41's --help).
  fork: {
    choosesId: true,
    command: ({ sessionId, forkSessionId, prompt, settings }) => ({ command: "grok", args: [...PROMPT_ON_STDIN, "--resume", sessionId, "--fork-session", ...(forkSessionId ? ["--session-id", forkSessionId] : []), ...grokSettingFlags(settings), "--output-format", "streaming-json"], stdin: prompt }),
  },
  finalAnswer: agentText,
  usage,
  archiveMissing: "Grok 1.0.41 has no archive (`grok sessions` lists, searches and deletes permanently; peerpost never deletes)",
};
