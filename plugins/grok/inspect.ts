// Read-only look at Grok Build's state: is the peerpost plugin installed and enabled, and is the `grok`
// on PATH the official CLI? `grok plugin install` copies the plugin under
// $GROK_HOME/installed-plugins/ (listed in registry.json) and adds it to `[plugins] enabled` in
// config.toml; uninstalling removes the copy but leaves the `enabled` entry.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { nodeChildProcess } from "../../core/common/child-process.js";
import { join } from "node:path";
import { hostConfigDir, readTextOrEmpty } from "../shared/host-files.js";

/**
 * Grok 1.0.41 runs no hook a plugin ships, only user-level ones ($GROK_HOME/hooks/*.json, see README.md):
 * `peerpost hooks install grok` is the third step of setting peerpost up in Grok.
 */
export const GROK_HOOKS = {
  installed: "user-level (peerpost hooks install grok): SessionStart registers the session, PreToolUse (and PostToolUse, in warn mode) checks claims around an edit, Stop tells of mail at a turn end",
  missing: "not installed: Grok runs no plugin hooks, so run `peerpost hooks install grok`; until then mail shows when the agent calls read",
} as const;

export const GROK_HOOK_FILE = "peerpost.json";

export function grokUserHookPath(env: NodeJS.ProcessEnv): string {
  return join(grokHome(env), "hooks", GROK_HOOK_FILE);
}

export interface GrokHostReport {
  grokHome: string;
  pluginInstalled: boolean;
  pluginEnabled: boolean;
  pluginVersion: string | null;
  /** The directory the installed copy was made from. */
  installedFrom: string | null;
  hooks: string;
}

interface Registry {
  repos?: Record<string, { kind?: { source_path?: unknown }; plugins?: Record<string, { version?: unknown }> }>;
}

export function grokHome(env: NodeJS.ProcessEnv): string {
  return hostConfigDir(env, "GROK_HOME", ".grok");
}


/** The names in config.toml's `[plugins] enabled = [...]` (the array Grok writes, possibly over several lines). */
export function enabledPlugins(configToml: string): string[] {
  const table = /^\[plugins\][^\S\n]*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(configToml)?.[1] ?? "";
  const array = /^\s*enabled\s*=\s*\[([\s\S]*?)\]/m.exec(table)?.[1] ?? "";
  return [...array.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g)].map((match) => match[1] ?? match[2] ?? "");
}

function installedCopy(home: string): { version: string | null; from: string | null } | undefined {
  let registry: Registry;
  try {
    registry = JSON.parse(readTextOrEmpty(join(home, "installed-plugins", "registry.json"))) as Registry;
  } catch {
    return undefined;
  }
  for (const repo of Object.values(registry.repos ?? {})) {
    const plugin = repo.plugins?.["peerpost"];
    if (plugin === undefined) continue;
    const from = repo.kind?.source_path;
    return { version: typeof plugin.version === "string" ? plugin.version : null, from: typeof from === "string" ? from : null };
  }
  return undefined;
}

export function inspectGrok(env: NodeJS.ProcessEnv): GrokHostReport {
  const home = grokHome(env);
  const copy = installedCopy(home);
  return {
    grokHome: home,
    pluginInstalled: copy !== undefined,
    pluginEnabled: enabledPlugins(readTextOrEmpty(join(home, "config.toml"))).includes("peerpost"),
    pluginVersion: copy?.version ?? null,
    installedFrom: copy?.from ?? null,
    hooks: grokUserHooksInstalled(env) ? GROK_HOOKS.installed : GROK_HOOKS.missing,
  };
}

/**
 * Whether a `grok` executable is xAI's Grok Build CLI, not the community `@vibe-kit/grok-cli` that
 * installs a command of the same name. The npm package resolves into @xai-official/grok; other installs
 * are asked for their version, which only the official CLI prints as `grok <version> (<commit>)`.
 */
export function isOfficialGrok(cli: string): boolean {
  try {
    if (realpathSync(cli).includes("@xai-official/grok")) return true;
  } catch {
    return false;
  }
  const answer = nodeChildProcess().spawnSync(cli, ["--version"], { encoding: "utf8", timeout: 3000, stdio: ["ignore", "pipe", "ignore"] });
  return /^grok \d+\.\d+\.\d+\S* \([0-9a-f]+\)/.test(answer.stdout ?? "");
}

/**
 * The hooks.cjs a hook command runs: in single-quoted pieces as `hooks install grok` writes it, or
 * double-quoted as earlier versions did, where a path holding `$`, a backquote or a backslash was read
 * otherwise (so such a file reads as not installed, and doctor asks to install it again).
 */
function hookScript(command: string): string | undefined {
  const quoted = /^node ((?:'[^']*'|\\')+) /.exec(command)?.[1];
  const script = quoted !== undefined ? quoted.replace(/'([^']*)'|\\'/g, (_, piece?: string) => piece ?? "'") : /^node "([^"$`\\]+)" /.exec(command)?.[1];
  return script?.endsWith("hooks.cjs") ? script : undefined;
}

/** Whether peerpost's user-level hook file is installed, and the hooks.cjs it runs exists. */
export function grokUserHooksInstalled(env: NodeJS.ProcessEnv): boolean {
  try {
    const file = JSON.parse(readFileSync(grokUserHookPath(env), "utf8")) as { hooks?: { SessionStart?: Array<{ hooks?: Array<{ command?: string }> }> } };
    const command = file.hooks?.SessionStart?.[0]?.hooks?.[0]?.command ?? "";
    const script = hookScript(command);
    return script !== undefined && existsSync(script);
  } catch {
    return false;
  }
}
