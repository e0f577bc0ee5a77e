// Entry of dist/codex/server.mjs (see plugins/shared/server-entry.ts).
import { runServerEntry } from "../shared/server-entry.js";

await runServerEntry("codex");
