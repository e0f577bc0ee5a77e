// The program of dist/grok/edit-program.cjs, which dist/grok/hooks.cjs runs: `node hooks.cjs
// pre-tool|post-tool`, for Grok's PreToolUse and PostToolUse hooks on its file-writing tools.
import { runHook } from "../../hooks/run.js";
import { editProgram } from "../../hooks/edit-check.js";
import { grokDialect } from "./dialect.js";

void runHook(grokDialect, editProgram);
