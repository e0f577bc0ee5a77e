// Entry of dist/codex/hooks.cjs: `node hooks.cjs session-start|user-prompt|stop`.
import { runHook } from "../../hooks/run.js";
import { claudeStyleDialect } from "../shared/claude-style-dialect.js";
import { codexAdapter } from "./adapter.js";

void runHook(claudeStyleDialect(codexAdapter, "codex"));
