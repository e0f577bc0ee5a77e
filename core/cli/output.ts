// CLI output: human text by default, JSON with --json; errors print code, message and hint.
import { toErrorValue } from "../errors.js";

export const EXIT = { ok: 0, error: 1, usage: 2 } as const;

export class UsageError extends Error {}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + "\n");
}

export function printError(error: unknown, json: boolean): number {
  if (error instanceof UsageError) {
    process.stderr.write(`peerpost: ${error.message}\nRun \`peerpost help\` for usage.\n`);
    return EXIT.usage;
  }
  const value = toErrorValue(error);
  if (json) printJson({ ok: false, error: value });
  else process.stderr.write(`peerpost: ${value.code}: ${value.message}${value.hint ? `\nhint: ${value.hint}` : ""}\n`);
  return EXIT.error;
}

/** One line per row, columns padded. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return "";
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  ")).join("\n") + "\n";
}
