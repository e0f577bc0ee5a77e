// The Grok tools that write files and the argument that names the path (Grok 1.0.41, from the tools it
// offers the model: search_replace {file_path, old_string, new_string, replace_all}, write {file_path, content}).
import type { ToolCall } from "../../hooks/dialect.js";
import { fromHome, stringArgument, truncatedStringField } from "../shared/edit-paths.js";

export const GROK_WRITING_TOOLS = ["search_replace", "write"] as const;

export function grokWrites(tool: ToolCall): string[] {
  if (!(GROK_WRITING_TOOLS as readonly string[]).includes(tool.name)) return [];
  // Grok expands a leading `~` itself (verified with 1.0.41), and passes arguments past 128 KiB as their
  // JSON text cut short, which the dialect keeps as `input`: the path is read from what was kept.
  const text = tool.input.input;
  const cut = typeof text === "string" && tool.input.file_path === undefined ? safely(() => truncatedStringField(text, "file_path")) : undefined;
  return (cut !== undefined && cut.length > 0 ? [cut] : stringArgument(tool, "file_path")).flatMap(fromHome);
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
