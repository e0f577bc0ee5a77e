// The Codex tool that writes files: apply_patch, whose patch text names each file it adds, updates,
// deletes or moves to (Codex 0.171.0).
import type { ToolCall } from "../../hooks/dialect.js";
import { applyPatchPaths } from "../shared/edit-paths.js";

export const CODEX_WRITING_TOOLS = ["apply_patch"] as const;

export function codexWrites(tool: ToolCall): string[] {
  if (tool.name !== "apply_patch") return [];
  const patch = tool.input.command ?? tool.input.input ?? tool.input.patch;
  return typeof patch === "string" ? applyPatchPaths(patch) : Array.isArray(patch) ? applyPatchPaths(patch.filter((part) => typeof part === "string").join("\n")) : [];
}
