// Runs the pinned GitHub Copilot CLI (tests/hosts) in a throwaway home, offline, against a
// loopback model provider (BYOK). Nothing here reads or writes the real user's ~/.copilot.
// The process helpers at the bottom are shared with grok-cli.ts.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeTree } from "./temp.js";

export const COPILOT_VERSION = "1.0.102";

export interface CopilotHome {
  /** Temp root holding everything below; removed by `cleanup()`. */
  root: string;
  home: string;
  /** COPILOT_HOME: settings.json, installed-plugins.lock, session-state/, logs/. */
  copilotHome: string;
  /** A scratch project directory to use as the session cwd. */
  workDir: string;
  /** Environment with no provider set: enough for `plugin` subcommands. */
  env: Record<string, string>;
  /** Removes the whole root, retrying while a detached process the test started (a wake runner) still writes in it. */
  cleanup(): Promise<void>;
}

export interface CopilotHomeOptions {
  /**
   * Where the CLI unpacks its bundled package (~190 MB, ~1.5 s on first run). Defaults to a dir
   * inside `root`; pass a shared path to unpack once per test run (do not share between
   * concurrently starting processes).
   */
  packageCache?: string;
}

export interface CopilotProvider {
  /** OpenAI-compatible base URL, e.g. the fake's `baseUrl` (`http://127.0.0.1:<port>/v1`). */
  baseUrl: string;
  /** Sent as the model id; must be a model the CLI knows for tool calling to be offered. */
  model?: string;
  /** "completions" (chat completions, default) or "responses". */
  wireApi?: "completions" | "responses";
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
}

export interface RunOptions {
  env: Record<string, string>;
  cwd: string;
  timeoutMs?: number;
  stdin?: string;
}

export function copilotBinary(): string {
  return join(repoRoot(), "tests", "hosts", "node_modules", ".bin", "copilot");
}

/** Why the pinned CLI cannot run here, or undefined when it can (use with `test.skip`). */
export function copilotUnavailable(): string | undefined {
  return pinnedPackageProblem(["@github", "copilot"], COPILOT_VERSION, copilotBinary());
}

export function makeCopilotHome(options: CopilotHomeOptions = {}): CopilotHome {
  const root = makeTempRoot("peerpost-copilot-");
  const home = join(root, "home");
  const copilotHome = join(home, ".copilot");
  const workDir = join(root, "work");
  for (const dir of [copilotHome, workDir]) mkdirSync(dir, { recursive: true });
  const env = {
    ...isolatedBaseEnv(home),
    COPILOT_HOME: copilotHome,
    COPILOT_CACHE_HOME: join(home, ".cache", "copilot"),
    COPILOT_PKG_CACHE_HOME: options.packageCache ?? join(root, "pkg-cache"),
    // Offline: no auth, telemetry, web tools, GitHub MCP server or update checks.
    COPILOT_OFFLINE: "true",
    COPILOT_AUTO_UPDATE: "false",
  };
  return { root, home, copilotHome, workDir, env, cleanup: () => removeTree(root) };
}

/** The home's environment plus a loopback BYOK provider; required for any model turn offline. */
export function copilotEnv(home: CopilotHome, provider: CopilotProvider): Record<string, string> {
  return {
    ...home.env,
    COPILOT_PROVIDER_BASE_URL: provider.baseUrl,
    COPILOT_PROVIDER_TYPE: "openai",
    COPILOT_PROVIDER_WIRE_API: provider.wireApi ?? "completions",
    COPILOT_PROVIDER_API_KEY: "test-key",
    COPILOT_MODEL: provider.model ?? "gpt-4.1",
  };
}

export function runCopilot(args: string[], options: RunOptions): Promise<RunResult> {
  return runHostProcess(copilotBinary(), args, options);
}

/** `copilot plugin marketplace add <dir>` then `copilot plugin install <plugin>@<marketplace>`. */
export async function installCopilotPlugin(home: CopilotHome, marketplaceDir: string, pluginAtMarketplace: string): Promise<void> {
  const options = { env: home.env, cwd: home.workDir, timeoutMs: 60_000 };
  await mustSucceed("copilot plugin marketplace add", runCopilot(["plugin", "marketplace", "add", marketplaceDir], options));
  await mustSucceed("copilot plugin install", runCopilot(["plugin", "install", pluginAtMarketplace], options));
}

export interface CopilotPromptOptions {
  home: CopilotHome;
  provider: CopilotProvider;
  cwd?: string;
  /** Fixes the session id, so the expected address `copilot:<id>` is known up front. */
  sessionId?: string;
  extraArgs?: string[];
  timeoutMs?: number;
}

/** One non-interactive turn: `copilot -p <prompt> --allow-all`, telemetry and updates off. */
export function copilotPrompt(prompt: string, options: CopilotPromptOptions): Promise<RunResult> {
  const args = ["-p", prompt, "--allow-all", "--disable-client-telemetry", "--no-auto-update"];
  if (options.sessionId) args.push(`--session-id=${options.sessionId}`);
  args.push(...(options.extraArgs ?? []));
  return runCopilot(args, {
    env: copilotEnv(options.home, options.provider),
    cwd: options.cwd ?? options.home.workDir,
    timeoutMs: options.timeoutMs ?? 60_000,
  });
}

// ---- shared process helpers (also used by grok-cli.ts) -------------------------------------

/** The repository root: the nearest ancestor holding tests/hosts/package.json (works from .build too). */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "tests", "hosts", "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("peerpost repository root not found above " + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

export function pinnedPackageProblem(packagePath: string[], version: string, binary: string): string | undefined {
  const manifest = join(repoRoot(), "tests", "hosts", "node_modules", ...packagePath, "package.json");
  if (!existsSync(binary) || !existsSync(manifest)) return `${packagePath.join("/")} is not installed under tests/hosts`;
  const found = (JSON.parse(readFileSync(manifest, "utf8")) as { version?: string }).version;
  return found === version ? undefined : `${packagePath.join("/")} is ${found ?? "unknown"}, tests need ${version}`;
}

/** A fresh directory under /var/tmp (large and not a tmpfs on most hosts; the CLIs unpack there). */
export function makeTempRoot(prefix: string): string {
  const base = existsSync("/var/tmp") ? "/var/tmp" : dirname(fileURLToPath(import.meta.url));
  return mkdtempSync(join(base, prefix));
}

/** A clean environment: only PATH from the parent, so no real tokens, config or proxies leak in. */
export function isolatedBaseEnv(home: string): Record<string, string> {
  return {
    PATH: process.env["PATH"] ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    TERM: "dumb",
    NO_COLOR: "1",
    LANG: "C.UTF-8",
  };
}

/**
 * Runs a host CLI in its own process group under coreutils `timeout`, and on timeout kills the
 * whole group, so MCP servers and hook processes it started cannot outlive the test.
 */
export function runHostProcess(binary: string, args: string[], options: RunOptions): Promise<RunResult> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const started = Date.now();
  const seconds = String(Math.ceil(timeoutMs / 1000));
  const child = spawn("timeout", ["--kill-after=5", seconds, binary, ...args], {
    cwd: options.cwd, env: options.env, detached: true, stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => { stdout += chunk.toString("utf8"); });
  child.stderr.on("data", (chunk: Buffer) => { stderr += chunk.toString("utf8"); });
  child.stdin.end(options.stdin ?? "");
  let timedOut = false;
  const guard = setTimeout(() => { timedOut = true; killGroup(child.pid); }, timeoutMs + 10_000);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(guard);
      killGroup(child.pid); // leftovers (e.g. a hook still running) go with the CLI
      resolve({ code, signal, stdout, stderr, durationMs: Date.now() - started, timedOut: timedOut || code === 124 });
    });
  });
}

export async function mustSucceed(what: string, run: Promise<RunResult>): Promise<RunResult> {
  const result = await run;
  if (result.code !== 0) throw new Error(`${what} exited ${result.code}: ${result.stderr || result.stdout}`);
  return result;
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try { process.kill(-pid, "SIGKILL"); } catch { /* already gone */ }
}
