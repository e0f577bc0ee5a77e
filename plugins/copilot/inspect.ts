// Read-only look at Copilot CLI's settings: is the peerpost plugin enabled, and may its hooks run?
// `copilot plugin install` records `enabledPlugins["peerpost@peerpost"] = true` in
// $COPILOT_HOME/settings.json; uninstalling a plugin from a local marketplace only sets it to false.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { goneMarketplace, hostConfigDir } from "../shared/host-files.js";

export const COPILOT_PLUGIN_ID = "peerpost@peerpost";
/** The catalogues `copilot plugin marketplace add <dir>` reads, the first found. */
const COPILOT_CATALOGUES = ["marketplace.json", ".plugin/marketplace.json", ".github/plugin/marketplace.json", ".claude-plugin/marketplace.json"];
export const COPILOT_HOOK_EVENTS = ["sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "agentStop"];

export interface CopilotHostReport {
  copilotHome: string;
  settingsFound: boolean;
  pluginEnabled: boolean;
  /** Where the peerpost marketplace points (a directory or a repository), when it is known. */
  marketplace: string | null;
  /** The directory marketplace the plugin is loaded live from, when it no longer holds a catalogue. */
  marketplaceGone: string | null;
  hooksActive: boolean;
  hooks: string;
}

interface CopilotSettings {
  enabledPlugins?: Record<string, unknown>;
  extraKnownMarketplaces?: Record<string, { source?: { source?: unknown; path?: unknown; repo?: unknown; url?: unknown } }>;
  disableAllHooks?: unknown;
}

export function copilotHome(env: NodeJS.ProcessEnv): string {
  return hostConfigDir(env, "COPILOT_HOME", ".copilot");
}

function readSettings(path: string): CopilotSettings | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    return typeof parsed === "object" && parsed !== null ? (parsed as CopilotSettings) : undefined;
  } catch {
    return undefined;
  }
}

export function inspectCopilot(env: NodeJS.ProcessEnv): CopilotHostReport {
  const home = copilotHome(env);
  const settings = readSettings(join(home, "settings.json"));
  const pluginEnabled = settings?.enabledPlugins?.[COPILOT_PLUGIN_ID] === true;
  const source = settings?.extraKnownMarketplaces?.["peerpost"]?.source;
  const marketplace = [source?.path, source?.repo, source?.url].find((value): value is string => typeof value === "string") ?? null;
  const hooksActive = pluginEnabled && settings?.disableAllHooks !== true;
  // A local marketplace is loaded live from its directory (nothing is copied): without it nothing loads.
  const marketplaceGone = goneMarketplace(source, COPILOT_CATALOGUES) ?? null;
  return {
    copilotHome: home,
    settingsFound: settings !== undefined,
    pluginEnabled,
    marketplace,
    marketplaceGone,
    hooksActive,
    hooks: !pluginEnabled
      ? "not installed"
      : hooksActive
        ? `declared by the plugin (${COPILOT_HOOK_EVENTS.join(", ")}); Copilot runs them without a trust step`
        : "declared by the plugin, but disableAllHooks in settings.json turns every hook off; new mail shows only when the agent calls read",
  };
}
