// Entry of dist/grok/hooks.cjs: `node hooks.cjs session-start|stop`. Shipped for Grok versions that run
// plugin hooks, and usable as a user-level hook today (see README.md).
import { runHook } from "../../hooks/run.js";
import { grokDialect } from "./dialect.js";

void runHook(grokDialect);
