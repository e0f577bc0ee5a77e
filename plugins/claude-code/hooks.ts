// The program of dist/claude-code/hook-program.cjs, which dist/claude-code/hooks.cjs runs: `node hooks.cjs session-start|user-prompt|stop`.
import { runHook } from "../../hooks/run.js";
import { mailProgram } from "../../hooks/logic.js";
import { claudeCodeDialect } from "./dialect.js";

void runHook(claudeCodeDialect, mailProgram);
