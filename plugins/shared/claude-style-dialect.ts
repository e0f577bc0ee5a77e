// The hook dialect of hosts that follow Claude Code's hook contract (Claude Code, Codex): stdin with
// session_id/cwd/source/stop_hook_active; context via hookSpecificOutput.additionalContext; block via
// {"decision":"block","reason"}.
// A dialect takes the host's process matcher, not its adapter: the adapter brings the server's push
// transports (sockets, crypto), which a hook program would otherwise load at every prompt.
import { claudeStyleBlock, claudeStyleContext, claudeStyleDeny, parseClaudeStyle, type HookDialect, type ToolCall } from "../../hooks/dialect.js";
import type { SessionKind } from "../../core/common/address.js";
import type { SessionHost } from "../../core/records/schemas.js";
import type { ProcessInfo } from "../../core/sessions/process-tree.js";

export function claudeStyleDialect(host: SessionHost, kind: SessionKind, isHostProcess: (info: ProcessInfo) => boolean, writes: (tool: ToolCall) => string[]): HookDialect {
  return {
    host,
    kind,
    parse: (_event, input) => parseClaudeStyle(input),
    context: claudeStyleContext,
    block: claudeStyleBlock,
    deny: claudeStyleDeny,
    allowWithNote: (note) => claudeStyleContext("pre-tool", note),
    writes,
    isHostProcess,
  };
}
