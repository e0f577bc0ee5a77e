// The program of dist/copilot/hook-program.cjs, which dist/copilot/hooks.cjs runs:
// `node hooks.cjs session-start|user-prompt|stop`, run by the plugin's sessionStart,
// userPromptSubmitted and agentStop hooks.
import { runHook } from "../../hooks/run.js";
import { mailProgram } from "../../hooks/logic.js";
import { copilotDialect } from "./dialect.js";

void runHook(copilotDialect, mailProgram);
