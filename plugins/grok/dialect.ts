// Grok Build's hook dialect, for when its hooks run: Grok 1.0.41 runs user-level hooks
// ($GROK_HOME/hooks/*.json) but never the hooks a plugin ships. Claude's format; stdin carries camelCase
// and snake_case names. What Grok shows the model:
// - SessionStart and UserPromptSubmit: nothing (stdout and additionalContext are dropped), so the
//   dialect prints nothing for them; SessionStart still registers the session.
// - Stop: {"decision":"block","reason"} runs another turn. Stop also fires once more at shutdown
//   (reason "shutdown"), when a block could not continue anything: only "end_turn" may block.
import { claudeStyleContext, type HookDialect } from "../../hooks/dialect.js";
import { claudeStyleDialect } from "../shared/claude-style-dialect.js";
import { isGrokProcess } from "../shared/host-processes.js";
import { grokWrites } from "./edit-tools.js";

const claudeStyle = claudeStyleDialect("grok", "grok", isGrokProcess, grokWrites);

export const grokDialect: HookDialect = {
  ...claudeStyle,
  parse: (event, input) => {
    const parsed = claudeStyle.parse(event, input);
    if (parsed && event === "stop" && input.reason !== "end_turn") parsed.stopHookActive = true;
    return parsed;
  },
  context: () => undefined,
  // PreToolUse: {"decision":"deny","reason"}; no context reaches the model before a tool runs, but
  // PostToolUse's hookSpecificOutput.additionalContext comes after its result as a system reminder.
  deny: (reason) => JSON.stringify({ decision: "deny", reason }),
  allowWithNote: () => undefined,
  noteAfter: (note) => claudeStyleContext("post-tool", note),
};
