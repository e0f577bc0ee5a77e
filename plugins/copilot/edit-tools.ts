// The Copilot CLI tools that write files and the argument that names the path (Copilot CLI 1.0.102, from
// the tools it offers the model: create {path, file_text}, edit {path, old_str, new_str}).
import type { ToolCall } from "../../hooks/dialect.js";
import { stringArgument } from "../shared/edit-paths.js";

export const COPILOT_WRITING_TOOLS = ["edit", "create"] as const;

export function copilotWrites(tool: ToolCall): string[] {
  return (COPILOT_WRITING_TOOLS as readonly string[]).includes(tool.name) ? stringArgument(tool, "path") : [];
}
