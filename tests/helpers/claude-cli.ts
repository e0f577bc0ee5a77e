// Runs the pinned `claude` CLI (tests/hosts) in a throwaway home, against a loopback fake API,
// so end-to-end tests never read or write the user's configuration and never leave the machine.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface RunResult {
  /** The pid of the `claude` process itself (the binary is started directly, no shell in between). */
  pid: number | undefined;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  timeoutMs: number;
  /** Written to stdin; without it stdin is closed at once so `claude -p` never waits for input. */
  input?: string;
}

export type Availability = { ok: true; version: string } | { ok: false; reason: string };

/** The repository root: the nearest ancestor holding tests/hosts/package.json (works from .build too). */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "tests", "hosts", "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find the repository root (tests/hosts/package.json)");
    dir = parent;
  }
  return dir;
}

export function claudeBinary(): string {
  return join(repoRoot(), "tests", "hosts", "node_modules", ".bin", "claude");
}

/** The version tests/hosts pins; a different installed version is a skip, not a silent pass. */
export function pinnedClaudeVersion(): string {
  const manifest = JSON.parse(readFileSync(join(repoRoot(), "tests", "hosts", "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  return manifest.dependencies?.["@anthropic-ai/claude-code"] ?? "unknown";
}

export function claudeAvailable(): Availability {
  const binary = claudeBinary();
  if (!existsSync(binary)) return { ok: false, reason: `claude CLI not installed at ${binary} (run scripts/setup-hosts.mjs)` };
  const probe = spawnSync(binary, ["--version"], { encoding: "utf8", timeout: 30_000, env: { PATH: process.env.PATH ?? "" } });
  const version = /^(\d+\.\d+\.\d+)/.exec(probe.stdout ?? "")?.[1];
  if (probe.status !== 0 || !version) return { ok: false, reason: `claude --version failed: ${probe.stderr || probe.error?.message || "no output"}` };
  const pinned = pinnedClaudeVersion();
  if (version !== pinned) return { ok: false, reason: `claude ${version} installed, tests are pinned to ${pinned}` };
  return { ok: true, version };
}

/** For `test(name, { skip: claudeSkipReason() }, ...)`: false when the pinned CLI is usable. */
export function claudeSkipReason(): string | false {
  const availability = claudeAvailable();
  return availability.ok ? false : availability.reason;
}

/**
 * A complete environment (nothing of the parent leaks in but PATH and locale): home and config dir under
 * baseDir (temp files too), all background traffic off, the API pointed at the fake. MCP tools are listed directly
 * in the request (ENABLE_TOOL_SEARCH=false) so a script can call them; IS_SANDBOX=1 lets root use
 * --dangerously-skip-permissions.
 */
export function isolatedClaudeEnv(baseDir: string, fakeUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = join(baseDir, "home");
  const configDir = join(home, ".claude");
  // The CLI keeps per-session notes and a messaging socket under its temp dir (default /tmp).
  const tmp = join(baseDir, "tmp");
  mkdirSync(configDir, { recursive: true });
  mkdirSync(tmp, { recursive: true });
  return {
    ...locale(),
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    TMPDIR: tmp,
    CLAUDE_CODE_TMPDIR: tmp,
    ANTHROPIC_BASE_URL: fakeUrl,
    ANTHROPIC_API_KEY: "sk-ant-test-000000000000",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    ENABLE_TOOL_SEARCH: "false",
    IS_SANDBOX: "1",
    ...extra,
  };
}

function locale(): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of ["LANG", "LC_ALL"]) {
    const value = process.env[name];
    if (value !== undefined) kept[name] = value;
  }
  return kept;
}

/**
 * Answers ahead what the interactive TUI would ask first (2.1.332): onboarding, the custom API key, and
 * trust in `cwd`. Merged into `$CLAUDE_CONFIG_DIR/.claude.json`, which plugin installs also write.
 */
export function acceptTuiDialogs(env: NodeJS.ProcessEnv, cwd: string): void {
  const path = join(env["CLAUDE_CONFIG_DIR"]!, ".claude.json");
  const config = (existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : {}) as Record<string, unknown>;
  const projects = (config["projects"] ?? {}) as Record<string, Record<string, unknown>>;
  projects[cwd] = { ...projects[cwd], hasTrustDialogAccepted: true };
  const key = env["ANTHROPIC_API_KEY"] ?? "";
  writeFileSync(path, JSON.stringify({ ...config, hasCompletedOnboarding: true, customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] }, projects }));
}

export function runClaude(args: string[], options: RunOptions): Promise<RunResult> {
  const started = Date.now();
  // A process group of its own, so a timeout also ends the MCP servers and hooks it started.
  const child = spawn(claudeBinary(), args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"], detached: true });
  let stdout = "";
  let stderr = "";
  let timedOut = false;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin.on("error", () => undefined);
  child.stdin.end(options.input ?? "");
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid);
  }, options.timeoutMs);
  return new Promise((resolve, reject) => {
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ pid: child.pid, code, signal, timedOut, stdout, stderr, durationMs: Date.now() - started });
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Adds a directory marketplace and installs one plugin from it (user scope), failing loudly. */
export async function installFromDirectoryMarketplace(marketplaceDir: string, pluginId: string, options: Omit<RunOptions, "input">): Promise<void> {
  for (const args of [["plugin", "marketplace", "add", marketplaceDir], ["plugin", "install", pluginId]]) {
    const result = await runClaude(args, options);
    if (result.code !== 0) throw new Error(`claude ${args.join(" ")} exited ${result.code}: ${result.stdout}${result.stderr}`);
  }
}

/** The final JSON line of `claude -p --output-format json`. */
export interface PrintResult {
  type: string;
  subtype: string;
  is_error: boolean;
  result?: string;
  session_id: string;
  num_turns: number;
  /** Tool calls the permission rules refused (under -p a missing rule is a denial, not a prompt). */
  permission_denials?: Array<{ tool_name: string }>;
}

export function parsePrintResult(stdout: string): PrintResult {
  const line = stdout.trim().split("\n").pop() ?? "";
  return JSON.parse(line) as PrintResult;
}
