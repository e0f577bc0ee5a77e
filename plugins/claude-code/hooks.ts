// Entry of dist/claude-code/hooks.mjs: `node hooks.mjs session-start|user-prompt|stop`.
import { runHook } from "../../hooks/run.js";
import { claudeStyleDialect } from "../shared/claude-style-dialect.js";
import { claudeCodeAdapter } from "./adapter.js";

await runHook(claudeStyleDialect(claudeCodeAdapter, "claude"));
