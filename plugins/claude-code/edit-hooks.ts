// The program of dist/claude-code/edit-program.cjs, which dist/claude-code/hooks.cjs runs: `node hooks.cjs pre-tool`.
import { runHook } from "../../hooks/run.js";
import { editProgram } from "../../hooks/edit-check.js";
import { claudeCodeDialect } from "./dialect.js";

void runHook(claudeCodeDialect, editProgram);
