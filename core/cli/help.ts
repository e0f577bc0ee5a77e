// Help text generated from the command table: the overview (`peerpost help`) and one command's page
// (`peerpost help send`, `peerpost send --help`).
import { VERSION } from "../common/version.js";
import type { Command, FlagSpec } from "./command.js";

/** Flags every command takes; `json` only where the command has JSON output. */
export const HELP_FLAG: FlagSpec = { type: "boolean", short: "h", help: "Show this help." };
export const JSON_FLAG: FlagSpec = { type: "boolean", help: "Print one JSON document on stdout (errors too, as {ok:false,error})." };

export function withCommonFlags(command: Command): Command {
  return { ...command, flags: { ...command.flags, ...(command.json === false ? {} : { json: JSON_FLAG }), help: HELP_FLAG } };
}

export function overview(all: readonly Command[]): string {
  const commands = all.filter((command) => !command.hidden);
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    `peerpost ${VERSION}: messages between AI coding agent sessions on this machine`,
    "",
    "usage: peerpost COMMAND [flags]",
    "",
    "commands:",
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    "",
    "Run `peerpost help COMMAND` (or `peerpost COMMAND --help`) for its flags and examples.",
    "Addresses: claude:<id>, codex:<id>, copilot:<id>, grok:<id>, role:<name>, user:<name> (a person; PEERPOST_USER, else your login name).",
    "State dir: ~/.peerpost, or PEERPOST_HOME.",
    "Every command that reports takes --json. Exit codes: 0 ok, 1 error, 2 usage.",
    "",
  ].join("\n");
}

function flagLine(name: string, spec: FlagSpec): [string, string] {
  const left = `${spec.short ? `-${spec.short}, ` : ""}--${name}${spec.type === "string" ? ` ${spec.value ?? "VALUE"}` : ""}`;
  const choices = spec.choices ? ` One of: ${spec.choices.join(", ")}.` : "";
  const fallback = spec.default !== undefined ? ` Default: ${spec.default}.` : "";
  return [left, `${spec.help}${choices}${fallback}`];
}

export function commandHelp(command: Command): string {
  const full = withCommonFlags(command);
  const lines = Object.entries(full.flags).map(([name, spec]) => flagLine(name, spec));
  const width = Math.max(...lines.map(([left]) => left.length));
  return [
    `usage: peerpost ${command.name}${command.usage ? ` ${command.usage}` : ""}`,
    "",
    command.summary,
    ...(command.details ? ["", command.details] : []),
    "",
    "flags:",
    ...lines.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`),
    "",
    command.examples.length === 1 ? "example:" : "examples:",
    ...command.examples.map((example) => `  ${example}`),
    "",
  ].join("\n");
}
