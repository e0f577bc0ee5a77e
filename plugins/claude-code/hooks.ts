// Entry of dist/claude-code/hooks.cjs: `node hooks.cjs session-start|user-prompt|stop`.
import { runHook } from "../../hooks/run.js";
import { claudeStyleDialect } from "../shared/claude-style-dialect.js";
import { claudeCodeAdapter } from "./adapter.js";

void runHook(claudeStyleDialect(claudeCodeAdapter, "claude"));
