// The `peerpost` command line: finds the command in the table (registry.ts), parses its declared flags,
// runs it, and turns what it throws into an exit code: 0 ok, 1 error, 2 usage.
import { VERSION } from "../common/version.js";
import { COMMANDS } from "./registry.js";
import { commandHelp, overview, withCommonFlags } from "./help.js";
import { parseCommandLine } from "./parse.js";
import type { FlagValues, Flags } from "./command.js";
import { didYouMean } from "./suggest.js";
import { EXIT, printError, printUsageError, quietOnClosedPipe, UsageError } from "./output.js";

/** The words that name a command: the CLI's loader keeps a code cache for each (core/cli/start.ts). */
export const COMMAND_WORDS: readonly string[] = [...COMMANDS.map((command) => command.name), "version"];

async function run(argv: string[]): Promise<number | undefined> {
  const [name, ...rest] = argv;
  const json = argv.includes("--json");
  if (name === undefined) {
    process.stderr.write(overview(COMMANDS));
    return EXIT.usage;
  }
  if (name === "--help" || name === "-h") {
    process.stdout.write(overview(COMMANDS));
    return EXIT.ok;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command)
    return printUsageError(
      new UsageError(name.startsWith("-") ? `unknown flag ${name} before the command` : `unknown command ${JSON.stringify(name)}${didYouMean(name, COMMANDS.map((known) => known.name))}`),
      json,
    );
  const full = withCommonFlags(command);
  try {
    const { flags, args } = command.passThrough && rest[0] !== "--help" ? { flags: {}, args: rest } : parseCommandLine(full, rest);
    if (flags.help) {
      process.stdout.write(commandHelp(command));
      return EXIT.ok;
    }
    return await full.run({ flags: flags as FlagValues<Flags>, args, json: Boolean(flags.json), commands: COMMANDS, usageError: (message) => new UsageError(message, command.name) });
  } catch (error) {
    return printError(error, json && command.json !== false);
  }
}

quietOnClosedPipe();
// A command that keeps running (serve) returns undefined and ends when its work does.
void run(process.argv.slice(2)).then((code) => {
  if (code !== undefined) process.exitCode = code;
});
