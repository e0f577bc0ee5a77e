// Every host adapter, and which one serves a process. Several hosts load Claude-format plugins and set
// CLAUDE_PLUGIN_ROOT, so the host is told by its session variable, never by the plugin dir it came from.
import type { HostName } from "../core/common/config.js";
import { genericAdapter, type HostAdapter } from "../core/server/adapter.js";
import { claudeCodeAdapter } from "./claude-code/adapter.js";
import { codexAdapter } from "./codex/adapter.js";
import { copilotAdapter } from "./copilot/adapter.js";
import { grokAdapter } from "./grok/adapter.js";

export const ADAPTERS: Record<HostName, HostAdapter> = {
  "claude-code": claudeCodeAdapter,
  codex: codexAdapter,
  copilot: copilotAdapter,
  grok: grokAdapter,
  generic: genericAdapter,
};

/** Session variables that identify the running host, most specific first. */
const HOST_VARIABLES: Array<[string, HostName]> = [
  ["GROK_SESSION_ID", "grok"],
  ["COPILOT_AGENT_SESSION_ID", "copilot"],
  ["CLAUDE_CODE_SESSION_ID", "claude-code"],
];

function present(env: NodeJS.ProcessEnv, variable: string): boolean {
  return env[variable] !== undefined && env[variable] !== "";
}

/**
 * The host that runs this process. The bundle's own host wins when its variable is set (a session
 * started from another agent's shell inherits that agent's variables too); otherwise the first host
 * whose session variable is present.
 */
export function detectHost(env: NodeJS.ProcessEnv, built?: HostName): HostName | undefined {
  const own = HOST_VARIABLES.find(([, host]) => host === built);
  if (own && present(env, own[0])) return built;
  return HOST_VARIABLES.find(([variable]) => present(env, variable))?.[1];
}

/**
 * The adapter for this process: the host its environment names, else PEERPOST_HOST (what a launch passes
 * a server bundle it starts for another host: Codex gives its servers no session variable), else the one
 * the bundle was built for.
 */
export function adapterFor(built: HostName, env: NodeJS.ProcessEnv): HostAdapter {
  const named = Object.keys(ADAPTERS).find((host) => host === env.PEERPOST_HOST) as HostName | undefined;
  return ADAPTERS[detectHost(env, built) ?? named ?? built];
}
