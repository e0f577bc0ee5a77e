// The paths a host's file-writing tool call names, read from its arguments. Each host's table of tools
// (which tools write, which argument names the path) is in its plugin's dialect and README.
import { homedir } from "node:os";
import { join } from "node:path";
import type { ToolCall } from "../../hooks/dialect.js";

/** The files an apply_patch call writes: its patch is `command` (Codex), or `input` or `patch` (a freeform call's whole text). */
export function patchArgumentPaths(tool: ToolCall): string[] {
  const patch = tool.input.command ?? tool.input.input ?? tool.input.patch;
  return typeof patch === "string" ? applyPatchPaths(patch) : Array.isArray(patch) ? applyPatchPaths(patch.filter((part) => typeof part === "string").join("\n")) : [];
}

/** A string argument, when present. */
export function stringArgument(tool: ToolCall, ...names: string[]): string[] {
  for (const name of names) {
    const value = tool.input[name];
    if (typeof value === "string" && value.length > 0) return [value];
  }
  return [];
}

/**
 * A path written from `~`: Codex's newer builds and Grok expand it to the home directory, where another
 * would read a directory named `~`; both are checked.
 */
export function fromHome(path: string): string[] {
  if (path === "~") return [path, homedir()];
  return path.startsWith("~/") ? [path, join(homedir(), path.slice(2))] : [path];
}

/**
 * A string field of a tool's arguments whose JSON text the host cut short (Grok 1.0.41 passes arguments
 * past 128 KiB as their first 131072 characters and " [truncated]"): read from the top level of what is
 * there, undefined when the cut came first.
 */
export function truncatedStringField(text: string, name: string): string | undefined {
  let depth = 0;
  let key: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === "{" || char === "[") depth++;
    else if (char === "}" || char === "]") depth--;
    else if (char === '"') {
      // The whole string literal, by hand: a value of megabytes (the content written) is skipped in one pass.
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      if (end >= text.length) return undefined;
      const literal = JSON.parse(text.slice(i, end + 1)) as string;
      const isKey = /^\s*:/.test(text.slice(end + 1, end + 64));
      if (depth === 1 && !isKey && key === name) return literal;
      key = depth === 1 && isKey ? literal : undefined;
      i = end;
    }
  }
  return undefined;
}

const ADD_FILE = "*** Add File: ";
const DELETE_FILE = "*** Delete File: ";
const UPDATE_FILE = "*** Update File: ";
const MOVE_TO = "*** Move to: ";
const END_OF_FILE = "*** End of File";

/**
 * A line trimmed as Codex's parser trims it (Rust's str::trim: Unicode White_Space, which takes U+0085
 * NEXT LINE too, where JavaScript's trim does not). JavaScript's other spaces go as well: the hook then
 * reads at worst a header Codex would refuse.
 */
function codexTrim(text: string): string {
  // By hand, not /\s+$/: that pattern backtracks over a long run of spaces inside a line.
  const space = (char: string) => char === "\u0085" || /\s/.test(char);
  let start = 0;
  let end = text.length;
  while (start < end && space(text[start]!)) start++;
  while (end > start && space(text[end - 1]!)) end--;
  return text.slice(start, end);
}

/**
 * The files an apply_patch text adds, updates, deletes or moves to, read as Codex reads it
 * (codex-rs/apply-patch/src/parser.rs): a hunk's header trimmed, an Add hunk's `+` lines, an Update
 * hunk's `*** Move to:` line and its change lines, so a context line that quotes a header names nothing.
 * A text Codex would refuse is read line by line instead, every header-like line a path: the hook then
 * refuses at worst what Codex would not apply.
 */
export function applyPatchPaths(patch: string): string[] {
  return hunkPaths(patch) ?? patch.split("\n").flatMap((line) => headerPath(codexTrim(line)) ?? []);
}

function headerPath(header: string): string | undefined {
  for (const marker of [ADD_FILE, DELETE_FILE, UPDATE_FILE, MOVE_TO]) if (header.startsWith(marker)) return header.slice(marker.length);
  return undefined;
}

/** Between `*** Begin Patch` and `*** End Patch` (also inside a quoted heredoc, as Codex allows). */
function patchBody(lines: string[]): string[] | undefined {
  const bounded = (inner: string[]) => (inner.length >= 2 && codexTrim(inner[0]!) === "*** Begin Patch" && codexTrim(inner.at(-1)!) === "*** End Patch" ? inner.slice(1, -1) : undefined);
  const heredoc = lines.length >= 4 && ["<<EOF", "<<'EOF'", '<<"EOF"'].includes(lines[0]!) && lines.at(-1)!.endsWith("EOF");
  return bounded(lines) ?? (heredoc ? bounded(lines.slice(1, -1)) : undefined);
}

function hunkPaths(patch: string): string[] | undefined {
  const body = patchBody(codexTrim(patch).split("\n").map((line) => line.replace(/\r$/, "")));
  if (!body) return undefined;
  const paths: string[] = [];
  for (let i = 0; i < body.length; ) {
    const header = codexTrim(body[i++]!);
    if (header.startsWith(ADD_FILE)) {
      paths.push(header.slice(ADD_FILE.length));
      while (i < body.length && body[i]!.startsWith("+")) i++;
    } else if (header.startsWith(DELETE_FILE)) paths.push(header.slice(DELETE_FILE.length));
    else if (header.startsWith(UPDATE_FILE)) {
      paths.push(header.slice(UPDATE_FILE.length));
      if (i < body.length && body[i]!.startsWith(MOVE_TO)) paths.push(body[i++]!.slice(MOVE_TO.length));
      // Its chunks: change lines (" ", "+", "-"), "@@" context lines, blank lines, up to the next header.
      while (i < body.length && (body[i] === END_OF_FILE || codexTrim(body[i]!) === "" || /^[ +\-]|^@@/.test(body[i]!))) i++;
    } else return undefined;
  }
  return paths;
}
