// Copilot CLI's hook dialect. Its stdin is camelCase (sessionId, cwd, source "new") with one snake_case
// field (stop_hook_active), which the shared parser reads. It shows the model only a top-level
// additionalContext (never Claude's hookSpecificOutput), and agentStop blocks the way Claude's Stop does.
import { isMailNote } from "../../core/mail/notes.js";
import type { HookDialect } from "../../hooks/dialect.js";
import { claudeStyleDialect } from "../shared/claude-style-dialect.js";
import { isCopilotProcess } from "../shared/host-processes.js";
import { copilotWrites } from "./edit-tools.js";

export function copilotContext(note: string): string {
  return JSON.stringify({ additionalContext: note });
}

const claudeStyle = claudeStyleDialect("copilot", "copilot", isCopilotProcess, copilotWrites);

export const copilotDialect: HookDialect = {
  ...claudeStyle,
  // userPromptSubmitted runs again for the reason of an agentStop block: the note is in that prompt already.
  parse: (event, input) => {
    const parsed = claudeStyle.parse(event, input);
    if (parsed && event === "user-prompt" && typeof input.prompt === "string" && isMailNote(input.prompt)) parsed.followsBlock = true;
    return parsed;
  },
  context: (_event, note) => copilotContext(note),
  // preToolUse reads a top-level permissionDecision; it has no note that lets a call run unprompted, but
  // postToolUse's additionalContext is appended to the tool's result.
  deny: (reason) => JSON.stringify({ permissionDecision: "deny", permissionDecisionReason: reason }),
  allowWithNote: () => undefined,
  noteAfter: copilotContext,
};
