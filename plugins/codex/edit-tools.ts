// The Codex tools that write files: apply_patch, whose patch text names each file it adds, updates,
// deletes or moves to, and the shell tool (PreToolUse names it Bash) when its command is such a patch
// (Codex 0.171.0).
import { isAbsolute, join } from "node:path";
import type { ToolCall } from "../../hooks/dialect.js";
import { applyPatchPaths, fromHome, patchArgumentPaths } from "../shared/edit-paths.js";

export const CODEX_WRITING_TOOLS = ["apply_patch", "Bash"] as const;

export function codexWrites(tool: ToolCall): string[] {
  if (tool.name === "apply_patch") return patchArgumentPaths(tool).flatMap(fromHome);
  return tool.name === "Bash" ? shellPatchPaths(tool.input.command).flatMap(fromHome) : [];
}

const BEGIN_PATCH = "*** Begin Patch";
const END_PATCH = "*** End Patch";

/**
 * `apply_patch <<'EOF' … EOF` through the shell tool, after `cd DIR &&` or not: how a model Codex gives no
 * apply_patch tool edits (gpt-5.1, any model outside its catalogue), and Codex recognises the command and
 * applies the patch itself. Its paths, from DIR. Any other command writes nothing the hook can tell.
 */
function shellPatchPaths(command: unknown): string[] {
  if (typeof command !== "string" || !/\bapply_?patch\b/.test(command)) return [];
  const begin = command.indexOf(BEGIN_PATCH);
  if (begin < 0) return [];
  const end = command.indexOf(END_PATCH, begin);
  const patch = command.slice(begin, end < 0 ? undefined : end + END_PATCH.length);
  const dir = /^\s*cd\s+('[^']*'|"[^"]*"|[^\s&;|]+)\s*&&/.exec(command)?.[1]?.replace(/^(['"])(.*)\1$/, "$2");
  return applyPatchPaths(patch).map((path) => (dir === undefined || isAbsolute(path) ? path : join(dir, path)));
}
