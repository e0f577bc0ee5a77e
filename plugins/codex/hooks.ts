// Entry of dist/codex/hooks.mjs: `node hooks.mjs session-start|user-prompt|stop`.
import { runHook } from "../../hooks/run.js";
import { claudeStyleDialect } from "../shared/claude-style-dialect.js";
import { codexAdapter } from "./adapter.js";

await runHook(claudeStyleDialect(codexAdapter, "codex"));
