// The Claude Code tools that write files, and the argument that names the path (Claude Code 2.1.332,
// sdk-tools.d.ts: FileEditInput, FileWriteInput and MultiEdit take file_path, NotebookEditInput notebook_path).
import type { ToolCall } from "../../hooks/dialect.js";
import { stringArgument } from "../shared/edit-paths.js";

export const CLAUDE_CODE_WRITING_TOOLS = ["Edit", "Write", "MultiEdit", "NotebookEdit"] as const;

export function claudeCodeWrites(tool: ToolCall): string[] {
  if (tool.name === "NotebookEdit") return stringArgument(tool, "notebook_path");
  return (CLAUDE_CODE_WRITING_TOOLS as readonly string[]).includes(tool.name) ? stringArgument(tool, "file_path") : [];
}
