// What a `peerpost` command declares: its flags (with defaults and value names), arguments, examples and
// the function that runs it. Help, usage errors and shell completion are all generated from this.
import type { UsageError } from "./output.js";

export interface FlagSpec {
  type: "string" | "boolean";
  help: string;
  /** Placeholder shown in usage, e.g. ADDR. */
  value?: string;
  /** The default, as help states it (the command applies it). */
  default?: string;
  /** The only values accepted; completion offers them. */
  choices?: readonly string[];
  /** What completion offers for the value. */
  complete?: "address" | "file";
  short?: string;
  /** The actions (first arguments) that read this flag: given with another, it is a usage mistake, never dropped. */
  actions?: readonly string[];
}

export type Flags = Record<string, FlagSpec>;

export type FlagValues<F extends Flags> = { [K in keyof F]?: F[K] extends { type: "boolean" } ? boolean : string };

export interface CommandInput<F extends Flags> {
  flags: FlagValues<F>;
  args: string[];
  /** --json: one JSON document on stdout, errors included. */
  json: boolean;
  /** Every registered command (for help and completion). */
  commands: readonly Command[];
  usageError(message: string): UsageError;
}

export interface Command<F extends Flags = Flags> {
  name: string;
  /** One line for `peerpost help`. */
  summary: string;
  /** Everything after `peerpost NAME` in the usage line, e.g. "--from ADDR --to ADDR [flags] TEXT". */
  usage: string;
  /** More text for `peerpost help NAME`. */
  details?: string;
  flags: F;
  /** How many positional arguments it takes; a count outside is a usage error naming `args.name`. */
  args: { min: number; max: number; name: string; complete?: "address" | "command" | readonly string[] };
  examples: string[];
  /** Internal commands peerpost starts itself: not listed in help or completion. */
  hidden?: boolean;
  /** Everything after `peerpost NAME` is its arguments, untouched, flags included (a stand-in for another program). */
  passThrough?: boolean;
  /** Set false for commands whose output is never JSON (serve, completion). */
  json?: boolean;
  /** Exit code, or undefined for a command that keeps the process running (serve). */
  run(input: CommandInput<F>): Promise<number | undefined> | number | undefined;
}

/** Declares a command with its flag types checked against its flag table. */
export function defineCommand<F extends Flags>(command: Command<F>): Command {
  return command as unknown as Command;
}
