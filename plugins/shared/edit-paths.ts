// The paths a host's file-writing tool call names, read from its arguments. Each host's table of tools
// (which tools write, which argument names the path) is in its plugin's dialect and README.
import type { ToolCall } from "../../hooks/dialect.js";

/** A string argument, when present. */
export function stringArgument(tool: ToolCall, ...names: string[]): string[] {
  for (const name of names) {
    const value = tool.input[name];
    if (typeof value === "string" && value.length > 0) return [value];
  }
  return [];
}

/** The files an apply_patch text adds, updates, deletes or moves to (`*** Add File: path`, …; Codex trims each line first, so indented too). */
export function applyPatchPaths(patch: string): string[] {
  const paths: string[] = [];
  for (const match of patch.matchAll(/^[ \t]*\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm)) paths.push(match[1]!.trim());
  return paths;
}
