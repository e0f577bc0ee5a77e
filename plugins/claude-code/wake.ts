// Claude Code run headless for peerpost (verified with 2.1.332, see README.md): resume a session with
// `claude -p <prompt> --resume <id>`; --allowedTools names exactly peerpost's read and reply, so the
// woken turn answers without a permission prompt while every other tool keeps the user's own rules.
import type { Waker } from "../../core/wake/waker.js";
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

export const claudeCodeWaker: Waker = {
  host: "claude-code",
  binary: "claude",
  isHostProcess: isClaudeCodeProcess,
  resume: ({ sessionId, prompt }) => ({ command: "claude", args: ["-p", prompt, "--resume", sessionId, "--output-format", "json", "--allowedTools", CLAUDE_PEERPOST_TOOLS.join(",")] }),
  // --session-id fixes the new session's id; --mcp-config gives it peerpost's server even without the plugin.
  launch: ({ sessionId, prompt, server }) => ({
    command: "claude",
    args: ["-p", prompt, "--session-id", sessionId, "--output-format", "json", "--mcp-config", JSON.stringify({ mcpServers: { peerpost: { type: "stdio", ...server } } }), "--allowedTools", [...CLAUDE_PEERPOST_TOOLS, ...LAUNCHED_TOOLS].join(",")],
  }),
  report,
};
