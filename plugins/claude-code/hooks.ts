// The program of dist/claude-code/hook-program.cjs, which dist/claude-code/hooks.cjs runs: `node hooks.cjs session-start|user-prompt|stop`.
import { runHook } from "../../hooks/run.js";
import { claudeStyleDialect } from "../shared/claude-style-dialect.js";
import { isClaudeCodeProcess } from "../shared/host-processes.js";
import { claudeCodeWrites } from "./edit-tools.js";

void runHook(claudeStyleDialect("claude-code", "claude", isClaudeCodeProcess, claudeCodeWrites));
