// CLI output: text for people by default, one JSON document with --json. Errors: with --json the error
// object goes to stdout like any result (a script reads one stream); without it, to stderr.
import { toErrorValue } from "../common/errors.js";
import { visible } from "../security/visible.js";
import { safeJson } from "../security/escape.js";

export const EXIT = { ok: 0, error: 1, usage: 2 } as const;

/** A mistake in how a command was called: two lines, exit 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose help explains the right call; undefined for the overview. */
    readonly command?: string,
  ) {
    super(message);
  }
}

/** Warnings about the store itself (a database away), said with whatever result the command gives. */
export const storeWarnings: Array<{ code: string; message: string }> = [];

export function printJson(value: unknown): void {
  const result = value as { ok?: unknown; warnings?: unknown } | null;
  const withWarnings =
    storeWarnings.length > 0 && result !== null && typeof result === "object" && result.ok === true ? { ...result, warnings: [...(Array.isArray(result.warnings) ? result.warnings : []), ...storeWarnings] } : value;
  process.stdout.write(safeJson(withWarnings, 2) + "\n");
}

export function printUsageError(error: UsageError, json: boolean): number {
  const help = error.command ? `peerpost help ${error.command}` : "peerpost help";
  if (json) printJson({ ok: false, error: { code: "invalid_arguments", message: error.message, hint: `Run \`${help}\` for usage.` } });
  else process.stderr.write(`peerpost${error.command ? ` ${error.command}` : ""}: ${visible(error.message)}\nRun \`${help}\` for usage.\n`);
  return EXIT.usage;
}

export function printError(error: unknown, json: boolean): number {
  if (error instanceof UsageError) return printUsageError(error, json);
  const value = toErrorValue(error, "cli");
  if (json) {
    printJson({ ok: false, error: value });
    return EXIT.error;
  }
  const similar = Array.isArray(value.details?.similar) ? (value.details.similar as string[]) : [];
  const guess = similar.length > 0 ? ` Did you mean ${similar.join(" or ")}?` : "";
  process.stderr.write(`peerpost: ${value.code}: ${visible(value.message)}${visible(guess)}${value.hint ? `\nhint: ${visible(value.hint)}` : ""}\n`);
  return EXIT.error;
}

/** A warning about a command that did its work: on stderr, so the result on stdout stays clean. */
export function printWarning(message: string): void {
  process.stderr.write(`warning: ${visible(message)}\n`);
}

/** One line per row, columns padded; cells are shown with dangerous characters made visible. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return "";
  const shown = rows.map((row) => row.map((cell) => visible(cell)));
  const widths = shown[0]!.map((_, column) => Math.max(...shown.map((row) => [...(row[column] ?? "")].length)));
  return shown.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell + " ".repeat(widths[column]! - [...cell].length))).join("  ")).join("\n") + "\n";
}

/**
 * A reader that closed the pipe (`peerpost tail | head`) ends the command quietly instead of with an
 * EPIPE stack trace: there is nobody left to read the rest. Any other failure to write the output (a
 * full disk under `> file`) is one error line, not an uncaught exception printing the bundle's source.
 */
export function quietOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr])
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
      if (stream === process.stdout)
        try {
          process.stderr.write(
            `peerpost: state_io_error: Could not write the output: ${visible(error.message)}\nhint: Check where the output goes (a full disk?). What the command did before it printed is done: check with \`peerpost status\` before repeating it.\n`,
          );
        } catch {
          // stderr is gone too: the exit code says it.
        }
      process.exit(EXIT.error);
    });
}
