// How each host's CLI process looks in the process table: the adapters find a hook's or server's host
// among its ancestors with these, and a wake checks that none runs in a discovered session's directory.
import { basename } from "node:path";
import type { ProcessInfo } from "../../core/sessions/process-tree.js";
import { processMatcher } from "./identity.js";

/**
 * The names the Claude Code CLI runs under. The kernel names a process after the path it was started by,
 * not the file behind a symlink: `claude` for the npm and native launchers, `claude.exe` when the npm
 * package's binary is started directly.
 */
const CLAUDE_NAMES = ["claude", "claude.exe"];
/** Older npm releases run as `node .../@anthropic-ai/claude-code/cli.js`; the native installer keeps `.../claude/versions/<version>`. */
const CLAUDE_PATH_FRAGMENTS = ["/@anthropic-ai/claude-code/", "/claude/versions/"];

/** Recognises the Claude Code CLI among a hook's or server's ancestors (both are its children). */
export function isClaudeCodeProcess(info: Pick<ProcessInfo, "name" | "command">): boolean {
  const argv0 = basename(info.command.split(" ")[0] ?? "");
  return CLAUDE_NAMES.includes(info.name) || CLAUDE_NAMES.includes(argv0) || CLAUDE_PATH_FRAGMENTS.some((fragment) => info.command.includes(fragment));
}

export const isCodexProcess = processMatcher(["codex"], ["@openai/codex/"]);
export const isCopilotProcess = processMatcher(["copilot"], ["@github/copilot/", "@github/copilot-linux"]);
export const isGrokProcess = processMatcher(["grok"], ["@xai-official/grok"]);
