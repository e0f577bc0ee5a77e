// Per-host facts for `peerpost doctor` and `health`: is the CLI on PATH, is the peerpost plugin
// installed, are its hooks active, which push transport exists. Read-only; never writes host config.
import { accessSync, constants, readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { describeCodexHost } from "./codex/inspect.js";

export interface HostReport {
  host: string;
  cli: string | null;
  official?: boolean;
  pluginInstalled: boolean | null;
  pluginVersion?: string;
  hooks: string;
  push: string;
  fixes: string[];
}

export function which(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}

function home(env: NodeJS.ProcessEnv): string {
  return env.HOME ?? homedir();
}

function claudeReport(env: NodeJS.ProcessEnv): HostReport {
  const configDir = env.CLAUDE_CONFIG_DIR || join(home(env), ".claude");
  const installed = readJson(join(configDir, "plugins", "installed_plugins.json")) as { plugins?: Record<string, Array<{ version?: string }>> } | undefined;
  const entry = installed?.plugins?.["peerpost@peerpost"]?.[0];
  const cli = which("claude", env);
  const report: HostReport = {
    host: "claude-code",
    cli,
    pluginInstalled: cli === null && !installed ? null : entry !== undefined,
    hooks: entry ? "declared by the plugin (SessionStart, UserPromptSubmit, Stop); Claude Code runs them without a trust step" : "not installed",
    push: "channels, when Claude Code runs with --channels plugin:peerpost@peerpost (research preview, claude.ai login)",
    fixes: [],
  };
  if (entry?.version !== undefined) report.pluginVersion = entry.version;
  if (cli && !entry) report.fixes.push("claude plugin marketplace add <path or owner/repo of peerpost> && claude plugin install peerpost@peerpost");
  return report;
}

function codexReport(env: NodeJS.ProcessEnv): HostReport {
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
  };
  if (cli && !codex.pluginEnabled) report.fixes.push("codex plugin marketplace add <path or owner/repo of peerpost> && codex plugin add peerpost@peerpost");
  if (codex.pluginEnabled && !trusted) report.fixes.push(codex.hooksNote);
  return report;
}

function claudeStyleReport(host: "copilot" | "grok", env: NodeJS.ProcessEnv): HostReport {
  const cli = which(host, env);
  const report: HostReport = {
    host,
    cli,
    pluginInstalled: null,
    hooks: "see plugins/" + host + "/README.md for which hook outputs reach the model",
    push: "none: mail waits for read and the hooks",
    fixes: [],
  };
  if (host === "grok" && cli) {
    try {
      report.official = realpathSync(cli).includes("@xai-official/grok");
    } catch {
      report.official = false;
    }
    if (!report.official) report.fixes.push(`${cli} is not the official @xai-official/grok CLI; install it with npm i -g @xai-official/grok`);
  }
  return report;
}

export function inspectHosts(env: NodeJS.ProcessEnv = process.env): HostReport[] {
  return [claudeReport(env), codexReport(env), claudeStyleReport("copilot", env), claudeStyleReport("grok", env)];
}
