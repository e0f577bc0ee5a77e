// What the recipient session accepts from peerpost, decided as Claude Code 2.1.332 decides it for a sender
// that is not one of its own descendants (checked against its bundle): an explicit `crossSessionInbound`
// wins (managed policy, then --settings, then user settings; project and local settings may only tighten
// it; an unreadable settings file holds). Otherwise the sender's permission-mode class must match the
// recipient's, and peerpost asserts none (it is not a Claude session), so a session that bypasses
// permission prompts holds the message. peerpost pushes from the session's own MCP server, which Claude
// would accept unconditionally as self-sent: so peerpost applies this policy itself, before the push.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

export type InboundPolicy = "accept" | "hold" | "refuse";
export interface PolicyDecision {
  policy: InboundPolicy;
  reason: string;
}

const RANK: Record<InboundPolicy, number> = { accept: 0, hold: 1, refuse: 2 };
const MANAGED_DIR = "/etc/claude-code";

type Settings = { crossSessionInbound?: unknown; permissions?: { defaultMode?: unknown } };
/** A settings source: missing (undefined), unreadable ("invalid"), or its contents. */
type Source = Settings | "invalid" | undefined;

function readSettings(path: string): Source {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? undefined : "invalid";
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Settings) : "invalid";
  } catch {
    return "invalid";
  }
}

function managedSettings(): Source[] {
  let dropIns: string[] = [];
  try {
    dropIns = readdirSync(join(MANAGED_DIR, "managed-settings.d")).filter((name) => name.endsWith(".json")).sort().map((name) => join(MANAGED_DIR, "managed-settings.d", name));
  } catch {
    // none
  }
  return [join(MANAGED_DIR, "managed-settings.json"), ...dropIns].map(readSettings);
}

/** The value of a flag in argv (`--flag value` or `--flag=value`). */
function flagValue(argv: string[], flag: string): string | undefined {
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === flag) return argv[index + 1];
    if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
  }
  return undefined;
}

function flagSettings(argv: string[], cwd: string): Source {
  const value = flagValue(argv, "--settings");
  if (value === undefined) return undefined;
  if (value.trimStart().startsWith("{")) {
    try {
      return JSON.parse(value) as Settings;
    } catch {
      return "invalid";
    }
  }
  // An absolute path (the usual `--settings ~/x.json`) is itself; a relative one is from the session's cwd.
  return readSettings(resolve(cwd, value)) ?? "invalid";
}

function inboundValue(source: Source): InboundPolicy | "invalid" | undefined {
  if (source === "invalid") return "invalid";
  const value = source?.crossSessionInbound;
  if (value === undefined) return undefined;
  return value === "accept" || value === "hold" || value === "refuse" ? value : "invalid";
}

export interface PolicyInput {
  configDir: string;
  /** The session's project dir (its settings may tighten the policy). */
  cwd: string;
  /** The `claude` process's argv. */
  argv: string[];
}

/** The session's own setting, if one is set: the first of policy, flag and user settings, tightened by the project's. */
function explicitSetting(input: PolicyInput): PolicyDecision | undefined {
  const ordered: Array<[string, Source]> = [
    ...managedSettings().map((source): [string, Source] => ["managed settings", source]),
    ["--settings", flagSettings(input.argv, input.cwd)],
    ["user settings", readSettings(join(input.configDir, "settings.json"))],
  ];
  let decided: PolicyDecision | undefined;
  for (const [where, source] of ordered) {
    const value = inboundValue(source);
    if (value === "invalid") return { policy: "hold", reason: `the ${where} file cannot be read or has an invalid crossSessionInbound, and Claude Code holds messages then` };
    if (value !== undefined) {
      decided = { policy: value, reason: `crossSessionInbound is "${value}" in the session's ${where}` };
      break;
    }
  }
  for (const name of ["settings.local.json", "settings.json"]) {
    const value = inboundValue(readSettings(join(input.cwd, ".claude", name)));
    if (value === "invalid") return { policy: "hold", reason: `.claude/${name} cannot be read or has an invalid crossSessionInbound, and Claude Code holds messages then` };
    if (value !== undefined && RANK[value] > RANK[decided?.policy ?? "accept"]) decided = { policy: value, reason: `crossSessionInbound is "${value}" in the project's .claude/${name}` };
  }
  return decided;
}

const BYPASS_FLAGS = ["--dangerously-skip-permissions", "--allow-dangerously-skip-permissions"];

/** Whether the session may run in the bypass class (bypassPermissions, or plan mode where bypass is available). */
function mayBypass(input: PolicyInput): string | undefined {
  const flag = input.argv.find((arg) => BYPASS_FLAGS.includes(arg));
  if (flag) return `it was started with ${flag}`;
  if (flagValue(input.argv, "--permission-mode") === "bypassPermissions") return "it was started with --permission-mode bypassPermissions";
  // Every source Claude takes permissions.defaultMode from, the --settings flag and managed policy included.
  const sources: Array<[string, Source]> = [
    ...managedSettings().map((source): [string, Source] => ["managed settings", source]),
    ["--settings", flagSettings(input.argv, input.cwd)],
    ...[join(input.configDir, "settings.json"), join(input.cwd, ".claude", "settings.json"), join(input.cwd, ".claude", "settings.local.json")].map((path): [string, Source] => [path, readSettings(path)]),
  ];
  for (const [where, source] of sources) {
    if (source !== "invalid" && source?.permissions?.defaultMode === "bypassPermissions") return `${where} sets permissions.defaultMode bypassPermissions`;
  }
  return undefined;
}

export function inboundPolicy(input: PolicyInput): PolicyDecision {
  const explicit = explicitSetting(input);
  if (explicit) return explicit;
  const bypass = mayBypass(input);
  if (bypass)
    return { policy: "hold", reason: `the session may bypass permission prompts (${bypass}) and peerpost, not being a Claude session, asserts no permission mode, so Claude Code's parity rule holds the message` };
  return { policy: "accept", reason: "no crossSessionInbound setting, and the session asks before tools run" };
}
