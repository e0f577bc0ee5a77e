// Read-only look at Codex's configuration: is the peerpost plugin enabled, and are its hooks trusted?
// Codex runs plugin hooks only after the user trusts them; trust is recorded in config.toml under
// [hooks.state."<plugin>:hooks/hooks.json:<event>:<group>:<hook>"] with a trusted hash.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const CODEX_PLUGIN_ID = "peerpost@peerpost";
const HOOK_EVENTS = ["session_start", "user_prompt_submit", "stop"];

export function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME && env.CODEX_HOME.length > 0 ? env.CODEX_HOME : join(env.HOME ?? homedir(), ".codex");
}

export interface CodexHostReport {
  codexHome: string;
  configFound: boolean;
  pluginEnabled: boolean;
  hooksTrusted: Record<string, boolean>;
  hooksNote: string;
}

export function describeCodexHost(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const home = codexHome(env);
  let config = "";
  try {
    config = readFileSync(join(home, "config.toml"), "utf8");
  } catch {
    // No config: nothing installed.
  }
  const pluginTable = new RegExp(`^\\[plugins\\."${CODEX_PLUGIN_ID.replace(/[.@]/g, "\\$&")}"\\]\\s*$([^\\[]*)`, "m").exec(config);
  const pluginEnabled = pluginTable !== null && !/^\s*enabled\s*=\s*false/m.test(pluginTable[1] ?? "");
  const hooksTrusted: Record<string, boolean> = {};
  for (const event of HOOK_EVENTS) {
    const key = `${CODEX_PLUGIN_ID}:hooks/hooks.json:${event}:`;
    const at = config.indexOf(`[hooks.state."${key}`);
    hooksTrusted[event] = at >= 0 && /trusted_hash\s*=/.test(config.slice(at, config.indexOf("\n[", at + 1) >>> 0 || undefined));
  }
  const report: CodexHostReport = {
    codexHome: home,
    configFound: config.length > 0,
    pluginEnabled,
    hooksTrusted,
    hooksNote: Object.values(hooksTrusted).every(Boolean)
      ? "trust entries exist for peerpost's hooks (an update of the plugin asks for trust again)"
      : "Codex runs plugin hooks only after you trust them: open /hooks in the Codex TUI and trust peerpost's hooks; until then new mail shows only when the agent calls read",
  };
  return { codex: report };
}
