// Every `peerpost` command, in the order `peerpost help` lists them.
//
// To add a command: write core/cli/commands/NAME.ts exporting `defineCommand({ name, summary, usage,
// flags, args, examples, run })` (see commands/inbox.ts for a small one), then add one import and one
// entry below, or in light-commands.ts (and its word in light-words.ts) when it needs neither the MCP
// server nor the web view. Help, `NAME --help`, usage errors with "did you mean", and bash/zsh
// completion come from the declaration; nothing else needs changing.
import type { Command } from "./command.js";
import { LIGHT_COMMANDS } from "./light-commands.js";
import { serveCommand } from "./commands/serve.js";
import { doctorCommand } from "./commands/doctor.js";
import { uiCommand } from "./commands/ui.js";
import { completionCommand } from "./commands/completion.js";
import { helpCommand } from "./commands/help.js";
import { allowCommand } from "./commands/allow.js";

export const COMMANDS: readonly Command[] = [serveCommand, ...LIGHT_COMMANDS, allowCommand, uiCommand, doctorCommand, completionCommand, helpCommand];
