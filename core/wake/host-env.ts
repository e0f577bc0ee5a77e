// The environment a woken host needs (HOME, PATH, provider credentials and endpoints, its config dir),
// captured when its session starts. Hosts filter what their hooks and MCP servers see (Codex passes its
// servers a dozen variables; Copilot drops COPILOT_PROVIDER_*), so the capture reads the host process's
// own start-up environment where the system shows it (/proc/<pid>/environ), else this process's. Kept in
// a 0600 file under the state dir: it may hold API keys, exactly as the host's own environment did.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir, readStateFile, writeStateFile } from "../security/trust.js";

/** Names kept exactly, and prefixes kept whole: what a headless host run reads, nothing session-bound. */
const KEEP_NAMES = ["HOME", "PATH", "USER", "LOGNAME", "SHELL", "LANG", "TERM", "TMPDIR", "TZ", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy", "ENABLE_TOOL_SEARCH", "IS_SANDBOX", "GH_TOKEN", "GITHUB_TOKEN"];
const KEEP_PREFIXES = ["LC_", "XDG_", "PEERPOST_", "ANTHROPIC_", "CLAUDE_", "DISABLE_", "CODEX_", "OPENAI_", "AZURE_OPENAI_", "COPILOT_", "GITHUB_COPILOT_", "GROK_", "XAI_", "AWS_", "GOOGLE_", "VERTEX_"];
/** Variables that name the session or process that set them: a woken run gets its own. */
const DROP_NAMES = ["CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_LAUNCHED_BY_SESSION_IDS", "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_PID", "CLAUDE_ENV_FILE", "CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA", "COPILOT_AGENT_SESSION_ID", "COPILOT_PLUGIN_ROOT", "COPILOT_CLI", "GROK_SESSION_ID", "GROK_HOOK_EVENT", "GROK_HOOK_NAME", "GROK_WORKSPACE_ROOT", "GROK_PLUGIN_ROOT", "GROK_PLUGIN_DATA", "PEERPOST_ADDRESS", "PEERPOST_LAUNCH_RUN", "PEERPOST_RUN", "PEERPOST_NOW", "PEERPOST_FAULT"];

export function keptVariables(env: Record<string, string | undefined>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || DROP_NAMES.includes(name)) continue;
    if (KEEP_NAMES.includes(name) || KEEP_PREFIXES.some((prefix) => name.startsWith(prefix))) kept[name] = value;
  }
  return kept;
}

export function processEnvironment(pid: number): Record<string, string> | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/environ`, "utf8");
    const env: Record<string, string> = {};
    for (const entry of raw.split("\0")) {
      const equals = entry.indexOf("=");
      if (equals > 0) env[entry.slice(0, equals)] = entry.slice(equals + 1);
    }
    return env;
  } catch {
    return undefined;
  }
}

function envFile(stateDir: string, address: string): string {
  return join(stateDir, "wake-env", `${address.replace(":", "_")}.json`);
}

/** Records the environment a wake of `address` will run with; best effort (a wake without it uses the waker's). */
export function captureHostEnv(stateDir: string, address: string, hostPid: number | undefined, fallback: NodeJS.ProcessEnv = process.env): void {
  const source = (hostPid !== undefined ? processEnvironment(hostPid) : undefined) ?? fallback;
  const path = envFile(stateDir, address);
  try {
    // Credentials among them: never into a dir that is a link or another user's.
    ensurePrivateDir(join(stateDir, "wake-env"));
    writeStateFile(path, JSON.stringify({ v: 1, env: keptVariables(source) }));
  } catch {
    // No capture: the wake falls back to the environment of the process that starts it.
  }
}

export function loadHostEnv(stateDir: string, address: string): Record<string, string> | undefined {
  try {
    // Never through a link nor from a FIFO (trust.ts): refused, it is as if none was captured.
    const parsed = JSON.parse(readStateFile(envFile(stateDir, address))) as { v?: number; env?: Record<string, unknown> };
    if (parsed.v !== 1 || typeof parsed.env !== "object" || parsed.env === null) return undefined;
    return Object.fromEntries(Object.entries(parsed.env).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  } catch {
    return undefined;
  }
}

/**
 * The environment a run starts with: the session's own capture, else the newest capture of its host
 * (a launch, or a session known only from its host's files), else this process's kept variables.
 */
export function runEnvironment(stateDir: string, kind: string, address?: string): Record<string, string> {
  return (address !== undefined ? loadHostEnv(stateDir, address) : undefined) ?? latestHostEnv(stateDir, kind) ?? keptVariables(process.env);
}

/**
 * For a launch (a session not started yet): the environment the most recent session of that kind
 * started with, e.g. the newest `claude_*` capture. Undefined when no session of that host was seen.
 */
export function latestHostEnv(stateDir: string, kind: string): Record<string, string> | undefined {
  const dir = join(stateDir, "wake-env");
  let newest: { address: string; mtime: number } | undefined;
  try {
    for (const name of readdirSync(dir)) {
      if (!name.startsWith(`${kind}_`) || !name.endsWith(".json")) continue;
      const mtime = statSync(join(dir, name)).mtimeMs;
      if (!newest || mtime > newest.mtime) newest = { address: name.slice(0, -".json".length).replace("_", ":"), mtime };
    }
  } catch {
    return undefined;
  }
  return newest ? loadHostEnv(stateDir, newest.address) : undefined;
}
