// Parses one command's arguments against its declared flags: --name value, --name=value, -h, `--` to end
// flags, `-` as an argument (stdin). Every mistake is a short UsageError, with "did you mean" when close;
// a flag given twice is one too.
import type { Command } from "./command.js";
import { UsageError } from "./output.js";
import { didYouMean } from "./suggest.js";

export interface Parsed {
  flags: Record<string, string | boolean>;
  args: string[];
}

/** For a word that starts with `-` but reads as text (`-1 from me`, `--- notes ---`): how to pass it. */
function textHint(token: string): string {
  return /\s/.test(token) || /^-\d/.test(token) || /^---/.test(token) ? `; to pass text that starts with '-', put it after --: peerpost … -- ${JSON.stringify(token)}` : "";
}

/** Whether the command line asks for JSON: `--json` among its flags, not in the text after `--`. */
export function asksForJson(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end < 0 ? argv : argv.slice(0, end)).includes("--json");
}

export function parseCommandLine(command: Command, argv: string[]): Parsed {
  const flags: Record<string, string | boolean> = {};
  const args: string[] = [];
  const names = Object.keys(command.flags);
  const byShort = new Map(Object.entries(command.flags).flatMap(([name, spec]) => (spec.short ? [[spec.short, name] as const] : [])));
  const fail = (message: string) => new UsageError(message, command.name);
  // A stand-in for another program takes the rest of the line as it is, flags included (unless it starts with help).
  if (command.passThrough && argv[0] !== "--help" && argv[0] !== "-h") {
    if (argv.length < command.args.min) throw fail(`needs ${command.args.name}`);
    return { flags: {}, args: [...argv] };
  }
  for (let index = 0; index < argv.length; index++) {
    const token = argv[index]!;
    if (token === "--") {
      args.push(...argv.slice(index + 1));
      break;
    }
    if (token === "-" || !token.startsWith("-")) {
      args.push(token);
      continue;
    }
    const long = token.startsWith("--");
    const equals = token.indexOf("=");
    const written = long ? token.slice(2, equals === -1 ? undefined : equals) : token.slice(1);
    const name = long ? written : byShort.get(written);
    const spec = name === undefined ? undefined : command.flags[name];
    if (name === undefined || spec === undefined)
      throw fail(`unknown flag ${long ? `--${written}` : token}${didYouMean(written, names, "--")}${textHint(token)}`);
    const inline = long && equals !== -1 ? token.slice(equals + 1) : undefined;
    if (spec.type === "boolean") {
      if (inline !== undefined) throw fail(`--${name} takes no value`);
      flags[name] = true;
      continue;
    }
    const next = argv[index + 1];
    const value = inline ?? (next !== undefined && !(next.startsWith("--") && names.includes(next.slice(2).split("=")[0]!)) ? next : undefined);
    if (value === undefined) throw fail(`--${name} needs a value (${spec.value ?? "VALUE"})`);
    if (inline === undefined) index++;
    if (spec.choices && !spec.choices.includes(value)) throw fail(`--${name} must be one of ${spec.choices.join(", ")}, not ${JSON.stringify(value)}${didYouMean(value, spec.choices)}`);
    // Never the last one silently: `send --to a --to b` would write to b alone.
    if (name in flags) throw fail(`--${name} is given twice (${JSON.stringify(flags[name])} and ${JSON.stringify(value)}); give it once`);
    flags[name] = value;
  }
  // Asking for help is never a usage mistake, whatever else the line lacks.
  if (flags.help) return { flags, args };
  // A flag the action does not read is a mistake to say, not to drop: `task done ID --after X` would finish the task regardless.
  for (const name of Object.keys(flags)) {
    const actions = command.flags[name]?.actions;
    if (actions && args[0] !== undefined && !actions.includes(args[0])) throw fail(`--${name} is for ${actions.join(" and ")}, not ${args[0]}`);
  }
  if (args.length < command.args.min) throw fail(`needs ${command.args.name}`);
  if (args.length > command.args.max)
    throw fail(command.args.max === 0 ? `takes no arguments (got ${JSON.stringify(args[0])})` : `takes at most ${command.args.max} argument${command.args.max === 1 ? "" : "s"} (${command.args.name}), got ${args.length}`);
  return { flags, args };
}
