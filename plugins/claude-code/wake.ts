// Claude Code run headless for peerpost (verified with 2.1.332, see README.md): resume a session with
// `claude -p --resume <id>`, the prompt on stdin; --allowedTools names exactly peerpost's read and reply, so the
// woken turn answers without a permission prompt while every other tool keeps the user's own rules.
import type { LaunchInput, RunSettings, Waker } from "../../core/wake/waker.js";
import { anthropicStyleUsage, usageInJsonLines } from "../../core/wake/usage.js";
import { isClaudeCodeProcess } from "../shared/host-processes.js";

/** How Claude Code names the plugin's tools: mcp__plugin_<plugin>_<server>__<tool>. */
export const CLAUDE_PEERPOST_TOOLS = ["read", "reply"].map((tool) => `mcp__plugin_peerpost_peerpost__${tool}`);

/** The `result` line of --output-format json: success or error, and the model's last text. */
function report(stdout: string): string | undefined {
  const line = stdout.trim().split("\n").pop() ?? "";
  try {
    const result = JSON.parse(line) as { subtype?: string; is_error?: boolean; num_turns?: number; result?: string };
    return `${result.subtype ?? "?"}${result.is_error ? " (error)" : ""}, ${result.num_turns ?? "?"} turn(s): ${String(result.result ?? "").slice(0, 500)}`;
  } catch {
    return line ? line.slice(0, 500) : undefined;
  }
}

/** The same tools from the server a launch passes with --mcp-config (named "peerpost": mcp__peerpost__<tool>). */
const LAUNCHED_TOOLS = ["read", "reply"].map((tool) => `mcp__peerpost__${tool}`);

/** `--model` and `--effort` (2.1.332's --help: low, medium, high, xhigh, max). */
export function claudeSettingFlags(settings: RunSettings | undefined): string[] {
  return [...(settings?.model ? ["--model", settings.model] : []), ...(settings?.effort ? ["--effort", settings.effort] : [])];
}

/** The `result` line of --output-format json, parsed. */
function resultLine(line: string): { session_id?: unknown; result?: unknown } | undefined {
  try {
    const parsed = JSON.parse(line) as { type?: string; session_id?: unknown; result?: unknown };
    return parsed.type === "result" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The `result` line's usage. */
function usage(stdout: string) {
  return usageInJsonLines(stdout, (event) => (event["type"] === "result" ? anthropicStyleUsage(event["usage"]) : undefined));
}

/** peerpost's server on the command line (--mcp-config), with its read and reply allowed: a launch's, and its resumes'. */
function launchedServer(server: LaunchInput["server"]): string[] {
  return ["--mcp-config", JSON.stringify({ mcpServers: { peerpost: { type: "stdio", ...server } } })];
}

export const claudeCodeWaker: Waker = {
  host: "claude-code",
  binary: "claude",
  isHostProcess: isClaudeCodeProcess,
  // Claude Code keeps a session under its project dir: `--resume` from another dir does not find it.
  settings: { model: true, effort: true, efforts: ["low", "medium", "high", "xhigh", "max"], cwdOnResume: false, cwdWhy: "Claude Code keeps each session under its project directory, so a resume from another directory does not find it" },
  // `-p` without a prompt argument reads the prompt from stdin.
  // A launched session gets its server again: the command line that gave it to the launch is not kept.
  resume: ({ sessionId, prompt, settings, server }) => ({
    command: "claude",
    args: ["-p", "--resume", sessionId, ...claudeSettingFlags(settings), "--output-format", "json", ...(server ? launchedServer(server) : []), "--allowedTools", [...CLAUDE_PEERPOST_TOOLS, ...(server ? LAUNCHED_TOOLS : [])].join(",")],
    stdin: prompt,
  }),
  // --session-id fixes the new session's id; --mcp-config gives it peerpost's server even without the plugin.
  launch: ({ sessionId, prompt, server, settings }) => ({
    command: "claude",
    args: ["-p", "--session-id", sessionId, ...claudeSettingFlags(settings), "--output-format", "json", ...launchedServer(server), "--allowedTools", [...CLAUDE_PEERPOST_TOOLS, ...LAUNCHED_TOOLS].join(",")],
    stdin: prompt,
  }),
  report,
  usage,
  archiveMissing: "Claude Code 2.1.332 has no archive command (its sessions are transcripts under CLAUDE_CONFIG_DIR/projects)",
  // `--resume <id> --fork-session` copies the history into a new session; the result line names it.
  fork: {
    choosesId: false,
    // The prompt is the fork's text as sent, on stdin: text that starts with "-" is never taken for an option.
    command: ({ sessionId, prompt, settings }) => ({ command: "claude", args: ["-p", "--resume", sessionId, "--fork-session", ...claudeSettingFlags(settings), "--output-format", "json"], stdin: prompt }),
    forkNamed: (line) => {
      const id = resultLine(line)?.session_id;
      return typeof id === "string" ? id : undefined;
    },
  },
  finalAnswer: (stdout) => {
    const result = resultLine(stdout.trim().split("\n").pop() ?? "")?.result;
    return typeof result === "string" ? result : undefined;
  },
};
