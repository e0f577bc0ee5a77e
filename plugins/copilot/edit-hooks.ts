// The program of dist/copilot/edit-program.cjs, which dist/copilot/hooks.cjs runs: `node hooks.cjs
// pre-tool|post-tool`, run by the plugin's preToolUse and postToolUse hooks (every tool call).
import { runHook } from "../../hooks/run.js";
import { editProgram } from "../../hooks/edit-check.js";
import { copilotDialect } from "./dialect.js";

void runHook(copilotDialect, editProgram);
