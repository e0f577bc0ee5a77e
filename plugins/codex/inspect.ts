// Read-only look at Codex's configuration: is the peerpost plugin enabled, which hooks does the
// installed copy declare, and are they trusted? Codex runs plugin hooks only after the user trusts
// them; trust is recorded in config.toml as
//   [hooks.state."peerpost@peerpost:hooks/hooks.json:<event>:<group>:<handler>"]
//   trusted_hash = "sha256:…"            (the hook entry)
//   trusted_content_hash = "sha256:…"    (every file of the installed plugin)
// Whether those hashes still match the installed files only Codex can say (app-server `hooks/list`
// reports trustStatus), so this reports "trust recorded", not "trust valid".
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { hostConfigDir, readTextOrEmpty } from "../shared/host-files.js";
import { readTomlTables, type Tables } from "../shared/toml-tables.js";

export const CODEX_PLUGIN_ID = "peerpost@peerpost";
const HOOKS_FILE = "hooks/hooks.json";
const DEFAULT_EVENTS = ["session_start", "user_prompt_submit", "pre_tool_use", "stop"];

export function codexHome(env: NodeJS.ProcessEnv): string {
  return hostConfigDir(env, "CODEX_HOME", ".codex");
}

export interface CodexHostReport {
  codexHome: string;
  configFound: boolean;
  pluginEnabled: boolean;
  /** Versions present in Codex's plugin cache. */
  installedVersions: string[];
  /** Hook trust keys the installed copy declares (event:group:handler). */
  hooksDeclared: string[];
  /** Per declared event (snake_case): is trust recorded for every handler of it? */
  hooksTrusted: Record<string, boolean>;
  hooksNote: string;
  /** The daemon's control socket, where live push reaches TUI threads. */
  controlSocket: { path: string; exists: boolean };
}

function table(tables: Tables, ...path: string[]): Map<string, string> | undefined {
  return tables.get(path.join("\u0000"));
}

// ---------------------------------------------------------------------------------------------


function installedVersions(home: string): string[] {
  try {
    return readdirSync(join(home, "plugins", "cache", "peerpost", "peerpost")).sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  } catch {
    return [];
  }
}

/** `SessionStart` → `session_start`, as Codex spells events in trust keys. */
function snakeEvent(event: string): string {
  return event.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

/** The trust keys (without the plugin/file prefix) a hooks.json declares: event:group:handler. */
export function declaredHookKeys(hooksJson: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(hooksJson);
  } catch {
    return [];
  }
  const events = (parsed as { hooks?: Record<string, unknown> } | undefined)?.hooks ?? {};
  const keys: string[] = [];
  for (const [event, groups] of Object.entries(events)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group, groupIndex) => {
      const handlers = (group as { hooks?: unknown[] } | undefined)?.hooks;
      if (Array.isArray(handlers)) handlers.forEach((_handler, handlerIndex) => keys.push(`${snakeEvent(event)}:${groupIndex}:${handlerIndex}`));
    });
  }
  return keys;
}

function trustRecorded(tables: Tables, key: string): boolean {
  const entry = table(tables, "hooks", "state", `${CODEX_PLUGIN_ID}:${HOOKS_FILE}:${key}`);
  return entry !== undefined && /^sha256:/.test(entry.get("trusted_hash") ?? "");
}

export function inspectCodex(env: NodeJS.ProcessEnv): CodexHostReport {
  const home = codexHome(env);
  const config = readTextOrEmpty(join(home, "config.toml"));
  const tables = readTomlTables(config);
  const plugin = table(tables, "plugins", CODEX_PLUGIN_ID);
  const pluginEnabled = plugin !== undefined && plugin.get("enabled") !== "false";
  const versions = installedVersions(home);
  const newest = versions[versions.length - 1];
  const declared = newest === undefined ? [] : declaredHookKeys(readTextOrEmpty(join(home, "plugins", "cache", "peerpost", "peerpost", newest, HOOKS_FILE)));
  const keys = declared.length > 0 ? declared : DEFAULT_EVENTS.map((event) => `${event}:0:0`);
  const hooksTrusted: Record<string, boolean> = {};
  for (const key of keys) {
    const event = key.split(":")[0]!;
    hooksTrusted[event] = (hooksTrusted[event] ?? true) && trustRecorded(tables, key);
  }
  const socket = join(home, "app-server-control", "app-server-control.sock");
  return {
    codexHome: home,
    configFound: config.length > 0,
    pluginEnabled,
    installedVersions: versions,
    hooksDeclared: declared,
    hooksTrusted,
    hooksNote: Object.values(hooksTrusted).every(Boolean)
      ? "trust is recorded for peerpost's hooks; after a plugin update Codex asks again (its content hash covers every file of the plugin)"
      : "Codex runs plugin hooks only after you trust them: in the Codex TUI open /hooks and trust peerpost's four hooks (again after each update); until then new mail shows only when the agent calls read",
    controlSocket: { path: socket, exists: existsSync(socket) },
  };
}

export function describeCodexHost(env: NodeJS.ProcessEnv): Record<string, unknown> {
  return { codex: inspectCodex(env) };
}
