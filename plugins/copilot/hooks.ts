// Entry of dist/copilot/hooks.cjs: `node hooks.cjs session-start|user-prompt|stop`, run by the plugin's
// sessionStart, userPromptSubmitted and agentStop hooks.
import { runHook } from "../../hooks/run.js";
import { copilotDialect } from "./dialect.js";

void runHook(copilotDialect);
