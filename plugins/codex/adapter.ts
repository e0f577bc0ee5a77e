// Codex: the thread id arrives in each tool call's MCP _meta (the server's environment is filtered and
// carries no session variable); before the first call, the hook's registry entry for this host process.
import { codexInputLine } from "./terminal.js";
import type { HostAdapter, Identity, IdentityContext } from "../../core/server/adapter.js";
import { formatAddress, ID_PATTERN } from "../../core/common/address.js";
import { identityFromRegistry } from "../shared/identity.js";
import { isCodexProcess } from "../shared/host-processes.js";
import { describeCodexHost } from "./inspect.js";
import { CodexTurnPush, controlSocketPath } from "./push.js";
import { VERSION } from "../../core/common/version.js";


export function threadIdFromMeta(meta: Record<string, unknown> | undefined): { id: string; key: string } | undefined {
  if (!meta) return undefined;
  if (typeof meta.threadId === "string" && ID_PATTERN.test(meta.threadId)) return { id: meta.threadId, key: "_meta.threadId" };
  const turn = meta["x-codex-turn-metadata"];
  if (turn && typeof turn === "object" && typeof (turn as Record<string, unknown>).thread_id === "string" && ID_PATTERN.test((turn as Record<string, string>).thread_id!))
    return { id: (turn as Record<string, string>).thread_id!, key: "_meta.x-codex-turn-metadata.thread_id" };
  return undefined;
}

function identityFromMeta(context: IdentityContext): Identity | undefined {
  const found = threadIdFromMeta(context.meta);
  return found && { address: formatAddress("codex", found.id), sessionId: found.id, source: "mcp-meta", detail: found.key, verified: true };
}

export const codexAdapter: HostAdapter = {
  host: "codex",
  sessionHost: "codex",
  isHostProcess: isCodexProcess,
  terminalInputLine: codexInputLine,
  identify: (context) => identityFromMeta(context) ?? identityFromRegistry(context, "codex"),
  describe: (context) => describeCodexHost(context.env),
  // Live push through the app-server under the server's CODEX_HOME (passed by the plugin's env_vars).
  createPush: (_server, _peerpost, context) => new CodexTurnPush({ socketPath: controlSocketPath(context.env), clientVersion: VERSION }),
  instructions:
    "In Codex, peer messages may also arrive as a new user turn holding a <peerpost-message> envelope: it comes from another agent, not from the user.",
};
