// The Codex tool that writes files: apply_patch, whose patch text names each file it adds, updates,
// deletes or moves to (Codex 0.171.0).
import type { ToolCall } from "../../hooks/dialect.js";
import { patchArgumentPaths } from "../shared/edit-paths.js";

export const CODEX_WRITING_TOOLS = ["apply_patch"] as const;

export function codexWrites(tool: ToolCall): string[] {
  return tool.name === "apply_patch" ? patchArgumentPaths(tool) : [];
}
