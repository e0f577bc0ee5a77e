// The hook dialect of hosts that follow Claude Code's hook contract (Claude Code, Codex): stdin with
// session_id/cwd/source/stop_hook_active; context via hookSpecificOutput.additionalContext; block via
// {"decision":"block","reason"}.
import { claudeStyleBlock, claudeStyleContext, claudeStyleDeny, parseClaudeStyle, type HookDialect, type ToolCall } from "../../hooks/dialect.js";
import type { HostAdapter } from "../../core/server/adapter.js";
import type { SessionKind } from "../../core/common/address.js";

export function claudeStyleDialect(adapter: HostAdapter, kind: SessionKind, writes: (tool: ToolCall) => string[]): HookDialect {
  return {
    host: adapter.sessionHost!,
    kind,
    parse: (_event, input) => parseClaudeStyle(input),
    context: claudeStyleContext,
    block: claudeStyleBlock,
    deny: claudeStyleDeny,
    allowWithNote: (note) => claudeStyleContext("pre-tool", note),
    writes,
    isHostProcess: (info) => adapter.isHostProcess(info),
  };
}
