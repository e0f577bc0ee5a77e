// Per-host facts for `peerpost doctor` and `health`: is the CLI on PATH, is the peerpost plugin
// installed, are its hooks active, which push transport exists. Read-only; never writes host config.
import { shellWord } from "../core/common/shell-word.js";
import { join } from "node:path";
import { findOnPath } from "../core/wake/host-binary.js";
import { describeCodexHost } from "./codex/inspect.js";
import { inspectCopilot } from "./copilot/inspect.js";
import { grokUserHooksInstalled, inspectGrok, isOfficialGrok } from "./grok/inspect.js";
import { goneMarketplace, hostConfigDir, readJsonOrUndefined } from "./shared/host-files.js";

export interface HostReport {
  host: string;
  cli: string | null;
  official?: boolean;
  pluginInstalled: boolean | null;
  pluginVersion?: string;
  hooks: string;
  push: string;
  /** The command that sets peerpost up in this host, when its CLI is here but the plugin is not (information, not a problem). */
  setUp?: string;
  /** Problems with a set-up that exists, each as the fix to apply. */
  fixes: string[];
  /** Facts worth knowing that need no fix. */
  notes: string[];
}

export function which(name: string, env: NodeJS.ProcessEnv): string | null {
  return findOnPath(name, env.PATH) ?? null;
}


function claudeReport(env: NodeJS.ProcessEnv, source: string): HostReport {
  const configDir = hostConfigDir(env, "CLAUDE_CONFIG_DIR", ".claude");
  const installed = readJsonOrUndefined(join(configDir, "plugins", "installed_plugins.json")) as { plugins?: Record<string, Array<{ version?: string }>> } | undefined;
  const entry = installed?.plugins?.["peerpost@peerpost"]?.[0];
  const cli = which("claude", env);
  const report: HostReport = {
    host: "claude-code",
    cli,
    pluginInstalled: cli === null && !installed ? null : entry !== undefined,
    hooks: entry ? "declared by the plugin (SessionStart, UserPromptSubmit, PreToolUse, Stop); Claude Code runs them without a trust step" : "not installed",
    push: "channels, when Claude Code runs with --channels plugin:peerpost@peerpost (research preview, claude.ai login)",
    fixes: [],
    notes: [],
  };
  if (entry?.version !== undefined) report.pluginVersion = entry.version;
  if (cli && !entry) report.setUp = `claude plugin marketplace add ${source} && claude plugin install peerpost@peerpost`;
  if (entry) {
    // Installed is not loaded: a disabled plugin loads nothing, and one from a directory marketplace runs
    // from that directory (not the cache copy), so with the clone gone Claude Code silently loads nothing.
    const settings = readJsonOrUndefined(join(configDir, "settings.json")) as { enabledPlugins?: Record<string, unknown> } | undefined;
    if (settings?.enabledPlugins?.["peerpost@peerpost"] === false) report.fixes.push("claude plugin enable peerpost@peerpost (the plugin is disabled: Claude Code loads neither its tools nor its hooks)");
    const known = readJsonOrUndefined(join(configDir, "plugins", "known_marketplaces.json")) as Record<string, { source?: { source?: unknown; path?: unknown } }> | undefined;
    const gone = goneMarketplace(known?.["peerpost"]?.source, [".claude-plugin/marketplace.json"]);
    if (gone !== undefined) report.fixes.push(`claude plugin marketplace remove peerpost && claude plugin marketplace add ${source} && claude plugin install peerpost@peerpost (the plugin runs from ${gone}, which is gone: Claude Code loads nothing of it)`);
  }
  return report;
}

function codexReport(env: NodeJS.ProcessEnv, source: string): HostReport {
  const cli = which("codex", env);
  const { codex } = describeCodexHost(env) as { codex: { pluginEnabled: boolean; hooksTrusted: Record<string, boolean>; hooksNote: string } };
  const trusted = Object.values(codex.hooksTrusted).every(Boolean);
  const report: HostReport = {
    host: "codex",
    cli,
    pluginInstalled: codex.pluginEnabled,
    hooks: codex.pluginEnabled ? (trusted ? "declared and trusted" : "declared, not trusted yet") : "not installed",
    push: "codex app-server turns, for threads held by an app-server peerpost can reach",
    fixes: [],
    notes: [],
  };
  if (cli && !codex.pluginEnabled) report.setUp = `codex plugin marketplace add ${source} && codex plugin add peerpost@peerpost`;
  if (codex.pluginEnabled && !trusted) report.fixes.push(codex.hooksNote);
  return report;
}

const NO_PUSH = "none: mail waits for read and the hooks";

function copilotReport(env: NodeJS.ProcessEnv, source: string): HostReport {
  const cli = which("copilot", env);
  const copilot = inspectCopilot(env);
  const report: HostReport = { host: "copilot", cli, pluginInstalled: copilot.pluginEnabled, hooks: copilot.hooks, push: NO_PUSH, fixes: [], notes: [] };
  if (cli && !copilot.pluginEnabled) report.setUp = `copilot plugin marketplace add ${source} && copilot plugin install peerpost@peerpost`;
  if (copilot.pluginEnabled && copilot.marketplaceGone !== null)
    report.fixes.push(`copilot plugin marketplace remove peerpost && copilot plugin marketplace add ${source} && copilot plugin install peerpost@peerpost (the plugin runs from ${copilot.marketplaceGone}, which is gone: Copilot CLI loads nothing of it)`);
  if (copilot.pluginEnabled && !copilot.hooksActive) report.fixes.push(`remove "disableAllHooks": true from ${join(copilot.copilotHome, "settings.json")} so peerpost's hooks can announce new mail`);
  return report;
}

function grokReport(env: NodeJS.ProcessEnv, source: string, self: string): HostReport {
  const cli = which("grok", env);
  const grok = inspectGrok(env);
  const installed = grok.pluginInstalled && grok.pluginEnabled;
  const report: HostReport = {
    host: "grok",
    cli,
    pluginInstalled: installed,
    hooks: installed ? grok.hooks : "not installed",
    push: "none: mail waits for read",
    fixes: [],
    notes: [],
  };
  if (grok.pluginVersion !== null) report.pluginVersion = grok.pluginVersion;
  if (cli) {
    report.official = isOfficialGrok(cli);
    // Another program may be called grok: that is not peerpost's business, only worth a word.
    if (!report.official) report.notes.push(`${cli} is not the official @xai-official/grok CLI; peerpost's Grok plugin needs that one (npm i -g @xai-official/grok)`);
  }
  if (cli && report.official && !grok.pluginInstalled) report.setUp = `grok plugin marketplace add ${source} && grok plugin install peerpost --trust && ${self} hooks install grok`;
  else if (grok.pluginInstalled && !grok.pluginEnabled) report.fixes.push("grok plugin enable peerpost");
  // Grok runs user-level hooks only: without them a session is registered at its first peerpost call, with no turn-end note.
  if (installed && !grokUserHooksInstalled(env)) report.fixes.push(`${self} hooks install grok (part of setting peerpost up in Grok: Grok runs no plugin hooks; user-level ones register sessions with their directory and tell of mail at a turn end)`);
  return report;
}

/** `source` is what a host's `plugin marketplace add` takes for this peerpost: a clone's path or owner/repo;
 * `self` is how a shell runs this peerpost (`peerpost`, or `node …/dist/cli.cjs` when it is not on PATH). */
export function inspectHosts(source: string, env: NodeJS.ProcessEnv = process.env, self = "peerpost"): HostReport[] {
  // The set-up commands are pasted into a shell, and a clone's path may hold a space.
  const word = shellWord(source);
  return [claudeReport(env, word), codexReport(env, word), copilotReport(env, word), grokReport(env, word, self)];
}
