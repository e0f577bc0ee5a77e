// The program of dist/codex/hook-program.cjs, which dist/codex/hooks.cjs runs: `node hooks.cjs session-start|user-prompt|stop`.
import { runHook } from "../../hooks/run.js";
import { mailProgram } from "../../hooks/logic.js";
import { codexDialect } from "./dialect.js";

void runHook(codexDialect, mailProgram);
