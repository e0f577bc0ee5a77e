// Claude Code's hook dialect, shared by its two hook programs (hooks.ts, edit-hooks.ts).
import { claudeStyleDialect } from "../shared/claude-style-dialect.js";
import { isClaudeCodeProcess } from "../shared/host-processes.js";
import { claudeCodeWrites } from "./edit-tools.js";

export const claudeCodeDialect = claudeStyleDialect("claude-code", "claude", isClaudeCodeProcess, claudeCodeWrites);
