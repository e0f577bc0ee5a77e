// The Grok tools that write files and the argument that names the path (Grok 1.0.41, from the tools it
// offers the model: search_replace {file_path, old_string, new_string, replace_all}, write {file_path, content}).
import type { ToolCall } from "../../hooks/dialect.js";
import { stringArgument } from "../shared/edit-paths.js";

export const GROK_WRITING_TOOLS = ["search_replace", "write"] as const;

export function grokWrites(tool: ToolCall): string[] {
  return (GROK_WRITING_TOOLS as readonly string[]).includes(tool.name) ? stringArgument(tool, "file_path") : [];
}
