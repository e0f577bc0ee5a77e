// The Codex tool that writes files: apply_patch, whose patch text names each file it adds, updates,
// deletes or moves to (Codex 0.171.0).
import { homedir } from "node:os";
import { join } from "node:path";
import type { ToolCall } from "../../hooks/dialect.js";
import { patchArgumentPaths } from "../shared/edit-paths.js";

export const CODEX_WRITING_TOOLS = ["apply_patch"] as const;

export function codexWrites(tool: ToolCall): string[] {
  return tool.name === "apply_patch" ? patchArgumentPaths(tool).flatMap(fromHome) : [];
}

/**
 * A path written from `~`: Codex's newer builds expand it to the home directory
 * (codex-rs/utils/absolute-path), where another would read a directory named `~`; both are checked.
 */
function fromHome(path: string): string[] {
  if (path === "~") return [path, homedir()];
  return path.startsWith("~/") ? [path, join(homedir(), path.slice(2))] : [path];
}
