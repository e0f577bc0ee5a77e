// The light `peerpost` program (dist/cli-light.cjs): the commands light-commands.ts lists, without the
// MCP server's and the web view's code, so a short command reads and loads a third of the full program.
import { LIGHT_COMMANDS } from "./light-commands.js";
import { commandWords, runCommandLine } from "./main.js";

/** Read by the CLI's loader (core/cli/start.ts) when the process exits. */
export const COMMAND_WORDS = commandWords(LIGHT_COMMANDS);

runCommandLine(LIGHT_COMMANDS);
