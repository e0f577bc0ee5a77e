// The full `peerpost` program (dist/cli-program.cjs): every command, for the words the light program
// (light.ts) does not have: the MCP server, the web view, help and completion, and typos.
import { COMMANDS } from "./registry.js";
import { commandWords, runCommandLine } from "./main.js";

/** Read by the CLI's loader (core/cli/start.ts) when the process exits. */
export const COMMAND_WORDS = commandWords(COMMANDS);

runCommandLine(COMMANDS);
