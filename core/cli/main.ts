// The `peerpost` command line: finds the command in a program's table (registry.ts for the full
// program, light-commands.ts for the light one), parses its declared flags, runs it, and turns what it
// throws into an exit code: 0 ok, 1 error, 2 usage.
import { VERSION } from "../common/version.js";
import { commandHelp, overview, withCommonFlags } from "./help.js";
import { asksForJson, parseCommandLine } from "./parse.js";
import type { Command, FlagValues, Flags } from "./command.js";
import { didYouMean } from "./suggest.js";
import { EXIT, printError, printUsageError, printWarning, quietOnClosedPipe, storeWarnings, UsageError } from "./output.js";

/** The words that name a command of a program: the CLI's loader keeps a code cache for each (core/cli/start.ts). */
export function commandWords(commands: readonly Command[]): readonly string[] {
  return [...commands.map((command) => command.name), "version"];
}

async function run(commands: readonly Command[], argv: string[]): Promise<number | undefined> {
  const [name, ...rest] = argv;
  let json = asksForJson(argv);
  if (name === undefined) {
    process.stderr.write(overview(commands));
    return EXIT.usage;
  }
  if (name === "--help" || name === "-h") {
    process.stdout.write(overview(commands));
    return EXIT.ok;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    process.stdout.write(json ? `${JSON.stringify({ ok: true, version: VERSION })}\n` : `${VERSION}\n`);
    return EXIT.ok;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (!command)
    return printUsageError(
      new UsageError(name.startsWith("-") ? `unknown flag ${name} before the command` : `unknown command ${JSON.stringify(name)}${didYouMean(name, commands.map((known) => known.name))}`),
      json,
    );
  const full = withCommonFlags(command);
  try {
    const { flags, args } = command.passThrough && rest[0] !== "--help" ? { flags: {}, args: rest } : parseCommandLine(full, rest);
    json = Boolean(flags.json);
    if (flags.help) {
      process.stdout.write(commandHelp(command));
      return EXIT.ok;
    }
    return await full.run({ flags: flags as FlagValues<Flags>, args, json: Boolean(flags.json), commands, usageError: (message) => new UsageError(message, command.name) });
  } catch (error) {
    return printError(error, json && command.json !== false);
  } finally {
    // With --json they are in the result (printJson); as text, on stderr after it.
    if (!json) for (const warning of storeWarnings) printWarning(warning.message);
  }
}

/** Runs the command process.argv names from `commands`. */
export function runCommandLine(commands: readonly Command[]): void {
  quietOnClosedPipe();
  // A command that keeps running (serve) returns undefined and ends when its work does.
  void run(commands, process.argv.slice(2)).then((code) => {
    if (code !== undefined) process.exitCode = code;
  });
}
