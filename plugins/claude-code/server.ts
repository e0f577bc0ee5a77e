// Entry of dist/claude-code/server.mjs (see plugins/shared/server-entry.ts).
import { runServerEntry } from "../shared/server-entry.js";

await runServerEntry("claude-code");
