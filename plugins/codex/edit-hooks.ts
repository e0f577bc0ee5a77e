// The program of dist/codex/edit-program.cjs, which dist/codex/hooks.cjs runs: `node hooks.cjs pre-tool`.
import { runHook } from "../../hooks/run.js";
import { editProgram } from "../../hooks/edit-check.js";
import { codexDialect } from "./dialect.js";

void runHook(codexDialect, editProgram);
