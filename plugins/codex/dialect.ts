// Codex's hook dialect, shared by its two hook programs (hooks.ts, edit-hooks.ts).
import { claudeStyleDialect } from "../shared/claude-style-dialect.js";
import { isCodexProcess } from "../shared/host-processes.js";
import { codexWrites } from "./edit-tools.js";

export const codexDialect = claudeStyleDialect("codex", "codex", isCodexProcess, codexWrites);
