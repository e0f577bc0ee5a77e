// The program of dist/grok/hook-program.cjs, which dist/grok/hooks.cjs runs: `node hooks.cjs
// session-start|stop`. Shipped for Grok versions that run plugin hooks, and usable as a user-level
// hook today (see README.md).
import { runHook } from "../../hooks/run.js";
import { mailProgram } from "../../hooks/logic.js";
import { grokDialect } from "./dialect.js";

void runHook(grokDialect, mailProgram);
