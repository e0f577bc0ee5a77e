// The program of dist/codex/hook-program.cjs, which dist/codex/hooks.cjs runs: `node hooks.cjs session-start|user-prompt|stop`.
import { runHook } from "../../hooks/run.js";
import { claudeStyleDialect } from "../shared/claude-style-dialect.js";
import { isCodexProcess } from "../shared/host-processes.js";
import { codexWrites } from "./edit-tools.js";

void runHook(claudeStyleDialect("codex", "codex", isCodexProcess, codexWrites));
