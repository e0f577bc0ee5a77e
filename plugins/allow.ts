// The hosts `peerpost allow` can set up, each the host's own way. Copilot CLI keeps no allow list for MCP
// tools in its configuration (checked against copilot 1.0.102's settings and `copilot help permissions`):
// there the allow is a flag on each run (`--allow-tool=peerpost`).
import type { AllowEdit } from "./shared/allow-file.js";
import { claudeAllowEdit } from "./claude-code/allow.js";
import { codexAllowEdit } from "./codex/allow.js";
import { grokAllowEdit } from "./grok/allow.js";

export const ALLOW_HOSTS = ["claude-code", "codex", "copilot", "grok"] as const;

export type AllowTarget = { edit: AllowEdit } | { unsupported: string };

export function allowTarget(host: string, env: NodeJS.ProcessEnv, tools: string[]): AllowTarget {
  if (host === "claude-code") return { edit: claudeAllowEdit(env) };
  if (host === "codex") return { edit: codexAllowEdit(env, tools) };
  if (host === "grok") return { edit: grokAllowEdit(env) };
  return { unsupported: "Copilot CLI keeps no allow list for MCP tools in its settings; start it with --allow-tool=peerpost, which allows exactly peerpost's tools" };
}
