// `peerpost allow claude-code`: `mcp__plugin_peerpost_peerpost` in `permissions.allow` of the user's
// settings.json, which allows every tool of the plugin's peerpost server and nothing else (verified with
// 2.1.332: the rule matches `mcp__plugin_peerpost_peerpost__<tool>`, `mcp__peerpost…` does not).
import { join } from "node:path";
import type { AllowEdit } from "../shared/allow-file.js";
import { claudeConfigDir } from "./inbox/session-record.js";

export const CLAUDE_ALLOW_RULE = "mcp__plugin_peerpost_peerpost";

type Settings = Record<string, unknown> & { permissions?: Record<string, unknown> & { allow?: unknown } };

function parse(text: string | undefined): Settings {
  if (text === undefined || text.trim() === "") return {};
  const parsed = JSON.parse(text) as unknown;
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("settings.json is not a JSON object");
  return parsed as Settings;
}

function allowList(settings: Settings): unknown[] {
  return Array.isArray(settings.permissions?.allow) ? settings.permissions.allow : [];
}

export function claudeAllowEdit(env: NodeJS.ProcessEnv): AllowEdit {
  return {
    host: "claude-code",
    file: join(claudeConfigDir(env), "settings.json"),
    rules: [CLAUDE_ALLOW_RULE],
    isSet: (text) => allowList(parse(text)).includes(CLAUDE_ALLOW_RULE),
    add(text) {
      const settings = parse(text);
      const permissions = { ...(settings.permissions ?? {}) };
      permissions.allow = [...allowList(settings), CLAUDE_ALLOW_RULE];
      return `${JSON.stringify({ ...settings, permissions }, null, 2)}\n`;
    },
    remove(text) {
      const settings = parse(text);
      const permissions = { ...(settings.permissions ?? {}) };
      permissions.allow = allowList(settings).filter((rule) => rule !== CLAUDE_ALLOW_RULE);
      return `${JSON.stringify({ ...settings, permissions }, null, 2)}\n`;
    },
  };
}
