// Runs the pinned xAI Grok Build CLI (tests/hosts) in a throwaway GROK_HOME whose config.toml
// points every xAI endpoint at a loopback fake and turns telemetry, updates and remote fetches off.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeTree } from "./temp.js";
import {
  isolatedBaseEnv, makeTempRoot, mustSucceed, pinnedPackageProblem, repoRoot, runHostProcess,
  type RunOptions, type RunResult,
} from "./copilot-cli.js";

export type { RunOptions, RunResult } from "./copilot-cli.js";

export const GROK_VERSION = "1.0.41";

export interface GrokHome {
  root: string;
  home: string;
  /** GROK_HOME: config.toml, installed-plugins/, sessions/, logs/unified.jsonl, hooks/. */
  grokHome: string;
  workDir: string;
  env: Record<string, string>;
  /** Removes the whole root, retrying while a detached process the test started (a wake runner) still writes in it. */
  cleanup(): Promise<void>;
}

export interface GrokHomeOptions {
  /** The fake's `baseUrl` (`http://127.0.0.1:<port>/v1`); every xAI endpoint is pointed at it. */
  apiBaseUrl: string;
}

export function grokBinary(): string {
  return join(repoRoot(), "tests", "hosts", "node_modules", ".bin", "grok");
}

/** Why the pinned CLI cannot run here, or undefined when it can (use with `test.skip`). */
export function grokUnavailable(): string | undefined {
  return pinnedPackageProblem(["@xai-official", "grok"], GROK_VERSION, grokBinary());
}

export function makeGrokHome(options: GrokHomeOptions): GrokHome {
  const root = makeTempRoot("peerpost-grok-");
  const home = join(root, "home");
  const grokHome = join(home, ".grok");
  const workDir = join(root, "work");
  for (const dir of [grokHome, workDir]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(grokHome, "config.toml"), quietConfig(options.apiBaseUrl));
  const env = {
    ...isolatedBaseEnv(home),
    GROK_HOME: grokHome,
    XAI_API_KEY: "test-key",
    DISABLE_TELEMETRY: "1",
    GROK_DISABLE_AUTOUPDATER: "1",
    GROK_CAMPAIGNS: "0",
    GROK_MEMORY: "0",
  };
  return { root, home, grokHome, workDir, env, cleanup: () => removeTree(root) };
}

// `plugin install` rewrites config.toml in place and keeps these tables.
function quietConfig(apiBaseUrl: string): string {
  const url = JSON.stringify(apiBaseUrl);
  return [
    "[features]", "telemetry = false", "campaigns = false", "remote_fetch = false", "",
    "[telemetry]", "trace_upload = false", "",
    "[cli]", "auto_update = false", "",
    "[endpoints]", `xai_api_base_url = ${url}`, `models_base_url = ${url}`, `cli_chat_proxy_base_url = ${url}`, "",
  ].join("\n");
}

export function runGrok(args: string[], options: RunOptions): Promise<RunResult> {
  return runHostProcess(grokBinary(), args, options);
}

/** `grok plugin marketplace add <dir>` then `grok plugin install <plugin> --trust`. */
export async function installGrokPlugin(home: GrokHome, marketplaceDir: string, plugin: string): Promise<void> {
  const options = { env: home.env, cwd: home.workDir, timeoutMs: 60_000 };
  await mustSucceed("grok plugin marketplace add", runGrok(["plugin", "marketplace", "add", marketplaceDir], options));
  await mustSucceed("grok plugin install", runGrok(["plugin", "install", plugin, "--trust"], options));
}

/**
 * Writes a user-level hook file (`$GROK_HOME/hooks/<name>.json`, Claude hook format). Grok 1.0.41
 * does not run hooks bundled in a plugin in `--single` or `agent stdio` mode; user hooks do run.
 */
export function writeGrokUserHooks(home: GrokHome, name: string, hooks: unknown): string {
  const dir = join(home.grokHome, "hooks");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(hooks, null, 2));
  return path;
}

export interface GrokSingleOptions {
  home: GrokHome;
  cwd?: string;
  /** A UUID; fixes the session id so the expected address `grok:<id>` is known up front. */
  sessionId?: string;
  extraArgs?: string[];
  timeoutMs?: number;
}

/** One headless turn: `grok --single <prompt> --output-format streaming-json --always-approve`. */
export function grokSingle(prompt: string, options: GrokSingleOptions): Promise<RunResult> {
  const args = ["--single", prompt, "--output-format", "streaming-json", "--always-approve"];
  if (options.sessionId) args.push("--session-id", options.sessionId);
  args.push(...(options.extraArgs ?? []));
  return runGrok(args, { env: options.home.env, cwd: options.cwd ?? options.home.workDir, timeoutMs: options.timeoutMs ?? 60_000 });
}

export interface GrokStreamEvent {
  type: string;
  [key: string]: unknown;
}

/** Parses `--output-format streaming-json` (one ACP-style update per line); skips non-JSON lines. */
export function parseGrokStream(stdout: string): GrokStreamEvent[] {
  return stdout.split("\n").flatMap((line) => {
    try {
      const value: unknown = JSON.parse(line);
      return typeof value === "object" && value !== null && "type" in value ? [value as GrokStreamEvent] : [];
    } catch {
      return [];
    }
  });
}

/** The session id from the final `{"type":"end", sessionId}` event. */
export function grokSessionId(stdout: string): string | undefined {
  const end = parseGrokStream(stdout).find((event) => event.type === "end");
  return typeof end?.["sessionId"] === "string" ? end["sessionId"] : undefined;
}

/** The session's log, useful when a run fails: `$GROK_HOME/logs/unified.jsonl`. */
export function readGrokLog(home: GrokHome): string {
  try { return readFileSync(join(home.grokHome, "logs", "unified.jsonl"), "utf8"); } catch { return ""; }
}
