// peerpost help [COMMAND]: the overview, or one command's flags, defaults and examples.
import { defineCommand } from "../command.js";
import { commandHelp, overview } from "../help.js";
import { didYouMean } from "../suggest.js";

export const helpCommand = defineCommand({
  name: "help",
  summary: "show this overview, or one command's flags and examples",
  usage: "[COMMAND]",
  flags: {},
  args: { min: 0, max: 1, name: "a command name", complete: "command" },
  examples: ["peerpost help send"],
  json: false,
  run({ args, commands, usageError }) {
    const name = args[0];
    if (name === undefined) {
      process.stdout.write(overview(commands));
      return 0;
    }
    const command = commands.find((candidate) => candidate.name === name);
    if (!command) throw usageError(`no command ${JSON.stringify(name)}${didYouMean(name, commands.map((known) => known.name))}`);
    process.stdout.write(commandHelp(command));
    return 0;
  },
});
