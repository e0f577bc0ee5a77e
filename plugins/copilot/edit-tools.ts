// The Copilot CLI tools that write files and how each names its paths (Copilot CLI 1.0.102, from the tools
// it offers the model: create {path, file_text}, edit {path, old_str, new_str}; to OpenAI's Codex models
// and gpt-5.5 on the responses API, apply_patch instead, whose toolArgs are the patch text itself).
import type { ToolCall } from "../../hooks/dialect.js";
import { patchArgumentPaths, stringArgument } from "../shared/edit-paths.js";

export const COPILOT_WRITING_TOOLS = ["edit", "create", "apply_patch"] as const;

export function copilotWrites(tool: ToolCall): string[] {
  if (tool.name === "apply_patch") return patchArgumentPaths(tool);
  return (COPILOT_WRITING_TOOLS as readonly string[]).includes(tool.name) ? stringArgument(tool, "path") : [];
}
