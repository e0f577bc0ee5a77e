// Claude Code: the session id comes from the SessionStart hook's registry entry for this host process
// (it follows /clear and resume), else from CLAUDE_CODE_SESSION_ID in the server's environment.
import { basename } from "node:path";
import type { HostAdapter } from "../../core/server/adapter.js";
import type { ProcessInfo } from "../../core/process-tree.js";
import { identityFromEnv, identityFromRegistry } from "../shared/identity.js";
import { createChannelPush, CHANNEL_CAPABILITY } from "./channel.js";

/**
 * The names the CLI runs under. The kernel names a process after the path it was started by, not the
 * file behind a symlink: `claude` for the npm and native launchers, `claude.exe` when the npm package's
 * binary is started directly.
 */
const CLAUDE_NAMES = ["claude", "claude.exe"];
/** Older npm releases run as `node .../@anthropic-ai/claude-code/cli.js`; the native installer keeps `.../claude/versions/<version>`. */
const CLAUDE_PATH_FRAGMENTS = ["/@anthropic-ai/claude-code/", "/claude/versions/"];

/** Recognises the Claude Code CLI among a hook's or server's ancestors (both are its children). */
export function isClaudeCodeProcess(info: Pick<ProcessInfo, "name" | "command">): boolean {
  const argv0 = basename(info.command.split(" ")[0] ?? "");
  return CLAUDE_NAMES.includes(info.name) || CLAUDE_NAMES.includes(argv0) || CLAUDE_PATH_FRAGMENTS.some((fragment) => info.command.includes(fragment));
}

export const claudeCodeAdapter: HostAdapter = {
  host: "claude-code",
  sessionHost: "claude-code",
  isHostProcess: isClaudeCodeProcess,
  identify: (context) => identityFromRegistry(context, "claude-code") ?? identityFromEnv(context, "claude", "CLAUDE_CODE_SESSION_ID"),
  experimentalCapabilities: { [CHANNEL_CAPABILITY]: {} },
  createPush: createChannelPush,
};
