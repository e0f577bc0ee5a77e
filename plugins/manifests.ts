// Every manifest the build writes: the marketplace catalogues at the repository root and each host's
// plugin files under dist/<host>/. Generated from one place so names and versions never drift.
import { VARIABLES } from "../core/common/config.js";
import { CLAUDE_CODE_WRITING_TOOLS } from "./claude-code/edit-tools.js";
import { CODEX_WRITING_TOOLS } from "./codex/edit-tools.js";
import { GROK_WRITING_TOOLS } from "./grok/edit-tools.js";

export interface PackageInfo {
  version: string;
  description: string;
  license: string;
  repository: string;
  author: string;
}

export const PLUGIN_NAME = "peerpost";
export const MARKETPLACE_NAME = "peerpost";

function json(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

/** The fields every Claude-style plugin manifest (Claude Code, Copilot, Grok) carries. */
function aboutPeerpost(info: PackageInfo): Record<string, unknown> {
  return { name: PLUGIN_NAME, version: info.version, description: info.description, author: { name: info.author }, repository: info.repository, homepage: info.repository, license: info.license };
}

/** A hook command in shell form with the plugin root quoted (paths may contain spaces). */
function hookCommand(rootVariable: string, event: string): string {
  return `node "\${${rootVariable}}/hooks.cjs" ${event}`;
}

/** `writingTools`: the host's tools that write files, whose calls the pre-tool hook checks against the claims. */
function claudeStyleHooks(rootVariable: string, timeoutSeconds: number, writingTools: readonly string[]): string {
  const entry = (event: string) => [{ hooks: [{ type: "command", command: hookCommand(rootVariable, event), timeout: timeoutSeconds }] }];
  const preTool = [{ matcher: writingTools.join("|"), hooks: [{ type: "command", command: hookCommand(rootVariable, "pre-tool"), timeout: timeoutSeconds }] }];
  return json({ hooks: { SessionStart: entry("session-start"), UserPromptSubmit: entry("user-prompt"), PreToolUse: preTool, Stop: entry("stop") } });
}

function claudeCode(info: PackageInfo): Record<string, string> {
  return {
    "dist/claude-code/.claude-plugin/plugin.json": json({
      ...aboutPeerpost(info),
      keywords: ["mcp", "agents", "messaging", "codex", "copilot", "grok"],
      // peerpost talks to nothing but local files; saying so keeps `claude plugin validate` from asking.
      network: { hosts: [] },
    }),
    "dist/claude-code/.mcp.json": json({ mcpServers: { peerpost: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/server.mjs"] } } }),
    "dist/claude-code/hooks/hooks.json": claudeStyleHooks("CLAUDE_PLUGIN_ROOT", 10, CLAUDE_CODE_WRITING_TOOLS),
  };
}

function codex(info: PackageInfo): Record<string, string> {
  return {
    "dist/codex/.codex-plugin/plugin.json": json({
      name: PLUGIN_NAME,
      version: info.version,
      description: info.description,
      mcpServers: "./.mcp.json",
      hooks: "./hooks/hooks.json",
      interface: {
        displayName: "peerpost",
        shortDescription: "Message other AI agent sessions on this machine",
        longDescription: info.description,
        developerName: info.author,
        category: "Productivity",
        capabilities: ["Interactive", "Write"],
        websiteURL: info.repository,
      },
    }),
    // Codex starts plugin servers in the session's directory with a filtered environment: `cwd: "."`
    // resolves to the plugin root, and env_vars passes peerpost's settings through.
    "dist/codex/.mcp.json": json({ mcpServers: { peerpost: { command: "node", args: ["./server.mjs"], cwd: ".", env_vars: [...Object.keys(VARIABLES), "CODEX_HOME"] } } }),
    "dist/codex/hooks/hooks.json": claudeStyleHooks("PLUGIN_ROOT", 10, CODEX_WRITING_TOOLS),
  };
}

/** A catalogue in Claude's marketplace format, which Copilot and Grok read as well. */
function claudeStyleCatalogue(info: PackageInfo, description: string, source: string): string {
  return json({
    name: MARKETPLACE_NAME,
    owner: { name: info.author },
    metadata: { description, version: info.version },
    plugins: [{ name: PLUGIN_NAME, source, description: info.description, version: info.version, author: { name: info.author }, category: "productivity" }],
  });
}

/** Copilot's own hook format: camelCase events, a `bash` command, the plugin root passed through `env`. */
function copilotHooks(timeoutSeconds: number): string {
  const entry = (event: string) => [{ type: "command", bash: `node "$PEERPOST_PLUGIN_ROOT/hooks.cjs" ${event}`, env: { PEERPOST_PLUGIN_ROOT: "${PLUGIN_ROOT}" }, timeoutSec: timeoutSeconds }];
  // preToolUse and postToolUse run for every tool (Copilot has no matcher); the hook answers at once for one
  // that writes no file. postToolUse speaks only in `warn` mode: the note Copilot cannot show before a tool.
  return json({ version: 1, hooks: { sessionStart: entry("session-start"), userPromptSubmitted: entry("user-prompt"), preToolUse: entry("pre-tool"), postToolUse: entry("post-tool"), agentStop: entry("stop") } });
}

function copilot(info: PackageInfo): Record<string, string> {
  return {
    // .plugin/ is the first manifest location Copilot reads, and the one its bundled plugin uses.
    "dist/copilot/.plugin/plugin.json": json({
      ...aboutPeerpost(info),
      keywords: ["mcp", "agents", "messaging"],
      mcpServers: ".mcp.json",
    }),
    "dist/copilot/.mcp.json": json({ mcpServers: { peerpost: { type: "stdio", command: "node", args: ["${PLUGIN_ROOT}/server.mjs"] } } }),
    "dist/copilot/hooks/hooks.json": copilotHooks(10),
  };
}

function grok(info: PackageInfo): Record<string, string> {
  return {
    "dist/grok/.grok-plugin/plugin.json": json({
      ...aboutPeerpost(info),
      keywords: ["mcp", "agents", "messaging"],
    }),
    "dist/grok/.mcp.json": json({ mcpServers: { peerpost: { command: "node", args: ["${GROK_PLUGIN_ROOT}/server.mjs"] } } }),
    // Grok 1.0.41 does not run plugin hooks (README.md); these are for versions that do. UserPromptSubmit
    // is left out: Grok shows its output to no one, and a reminder it "gave" would count as given.
    "dist/grok/hooks/hooks.json": json({
      hooks: {
        SessionStart: [{ hooks: [{ type: "command", command: hookCommand("GROK_PLUGIN_ROOT", "session-start"), timeout: 10 }] }],
        PreToolUse: [{ matcher: GROK_WRITING_TOOLS.join("|"), hooks: [{ type: "command", command: hookCommand("GROK_PLUGIN_ROOT", "pre-tool"), timeout: 10 }] }],
        PostToolUse: [{ matcher: GROK_WRITING_TOOLS.join("|"), hooks: [{ type: "command", command: hookCommand("GROK_PLUGIN_ROOT", "post-tool"), timeout: 10 }] }],
        Stop: [{ hooks: [{ type: "command", command: hookCommand("GROK_PLUGIN_ROOT", "stop"), timeout: 10 }] }],
      },
    }),
  };
}

function catalogues(info: PackageInfo): Record<string, string> {
  const description = "Messages between AI coding agents on one machine: Claude Code, Codex, Copilot CLI and Grok.";
  return {
    ".claude-plugin/marketplace.json": json({
      name: MARKETPLACE_NAME,
      owner: { name: info.author },
      metadata: { description, version: info.version },
      plugins: [{ name: PLUGIN_NAME, source: "./dist/claude-code", description: info.description, version: info.version, author: { name: info.author }, category: "productivity" }],
    }),
    ".agents/plugins/marketplace.json": json({
      name: MARKETPLACE_NAME,
      interface: { displayName: "peerpost" },
      plugins: [{ name: PLUGIN_NAME, source: { source: "local", path: "./dist/codex" }, policy: { installation: "AVAILABLE", authentication: "ON_INSTALL" }, category: "Productivity" }],
    }),
    // Copilot reads the first of marketplace.json, .plugin/, .github/plugin/, .claude-plugin/: this one,
    // as long as the repository has neither of the first two.
    ".github/plugin/marketplace.json": claudeStyleCatalogue(info, description, "./dist/copilot"),
    // Grok reads .grok-plugin/ before .claude-plugin/.
    ".grok-plugin/marketplace.json": claudeStyleCatalogue(info, description, "./dist/grok"),
  };
}

/** Path (relative to the repository root) → file content. */
export function manifestFiles(info: PackageInfo): Record<string, string> {
  return { ...catalogues(info), ...claudeCode(info), ...codex(info), ...copilot(info), ...grok(info) };
}
