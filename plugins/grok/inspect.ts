// Read-only look at Grok Build's state: is the peerpost plugin installed and enabled, and is the `grok`
// on PATH the official CLI? `grok plugin install` copies the plugin under
// $GROK_HOME/installed-plugins/ (listed in registry.json) and adds it to `[plugins] enabled` in
// config.toml; uninstalling removes the copy but leaves the `enabled` entry.
import { realpathSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { hostConfigDir, readTextOrEmpty } from "../shared/host-files.js";

/** What Grok 1.0.41 does with plugin hooks (see README.md), and what that means for mail. */
export const GROK_HOOKS_NOTE = "not run by Grok 1.0.41 for plugins; new mail shows when the agent calls read";

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
    hooks: GROK_HOOKS_NOTE,
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
  const answer = spawnSync(cli, ["--version"], { encoding: "utf8", timeout: 3000, stdio: ["ignore", "pipe", "ignore"] });
  return /^grok \d+\.\d+\.\d+\S* \([0-9a-f]+\)/.test(answer.stdout ?? "");
}
