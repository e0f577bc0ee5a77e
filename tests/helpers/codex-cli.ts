// Runs the pinned `codex` CLI (tests/hosts) in a throwaway HOME/CODEX_HOME that talks only to a
// loopback fake model, never to the real user's config or the network.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const CODEX_PINNED_VERSION = "0.171.0";
const BINARY_IN_REPO = join("tests", "hosts", "node_modules", ".bin", "codex");

export interface CodexEnv {
  home: string;
  codexHome: string;
  configPath: string;
  /** A complete, minimal environment for the child: nothing inherited beyond PATH and locale. */
  env: Record<string, string>;
}

export interface IsolatedCodexOptions {
  /** Extra top-level TOML lines, written before any table (a key after a table would land inside it). */
  topLevel?: string[];
  /** Extra TOML tables, appended after the generated ones. */
  tables?: string;
  /** Extra environment variables for the child (e.g. PEERPOST_HOME). */
  env?: Record<string, string>;
  model?: string;
  /** Let a `codex` TUI auto-start the background app-server daemon (off: tests must not leave one running). */
  daemon?: boolean;
}

/** The model provider id written into every isolated config. */
export const FAKE_PROVIDER_ID = "peerpost-fake";

/**
 * Creates `<baseDir>/home` and `<baseDir>/codex-home` and a config.toml whose first keys select the
 * loopback provider, with update checks, analytics, feedback and OpenTelemetry export turned off.
 */
export function isolatedCodexEnv(baseDir: string, fakeUrl: string, options: IsolatedCodexOptions = {}): CodexEnv {
  const home = join(baseDir, "home");
  const codexHome = join(baseDir, "codex-home");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  mkdirSync(codexHome, { recursive: true, mode: 0o700 });
  const configPath = join(codexHome, "config.toml");
  writeFileSync(configPath, isolatedConfigToml(fakeUrl, options), { mode: 0o600 });
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    CODEX_HOME: codexHome,
    CODEX_SQLITE_HOME: codexHome,
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    ...NETWORK_SINK,
    ...options.env,
  };
  return { home, codexHome, configPath, env };
}

/**
 * codex 0.171.0 syncs the curated plugin catalogue on every start (git ls-remote github.com, then
 * api.github.com, then chatgpt.com) with no config switch. Pointing every proxy variable at a closed
 * loopback port makes those attempts fail locally, with no DNS lookup; the fake model stays direct.
 */
const SINK = "http://127.0.0.1:9";
const NETWORK_SINK: Record<string, string> = {
  HTTPS_PROXY: SINK, HTTP_PROXY: SINK, ALL_PROXY: SINK, https_proxy: SINK, http_proxy: SINK, all_proxy: SINK,
  NO_PROXY: "127.0.0.1,localhost", no_proxy: "127.0.0.1,localhost",
};

/** The config text; exported so a test can rewrite it after `codex plugin …` appended tables. */
export function isolatedConfigToml(fakeUrl: string, options: IsolatedCodexOptions = {}): string {
  const baseUrl = fakeUrl.endsWith("/v1") ? fakeUrl : `${fakeUrl.replace(/\/$/, "")}/v1`;
  return [
    `model = ${JSON.stringify(options.model ?? "gpt-5.1")}`,
    `model_provider = "${FAKE_PROVIDER_ID}"`,
    "check_for_update_on_startup = false",
    ...(options.topLevel ?? []),
    "",
    `[model_providers.${FAKE_PROVIDER_ID}]`,
    `name = "${FAKE_PROVIDER_ID}"`,
    `base_url = ${JSON.stringify(baseUrl)}`,
    'wire_api = "responses"',
    "supports_websockets = false",
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "",
    "[analytics]",
    "enabled = false",
    "",
    "[feedback]",
    "enabled = false",
    "",
    "[otel]",
    'exporter = "none"',
    'trace_exporter = "none"',
    'metrics_exporter = "none"',
    "",
    "[features]",
    `daemon_auto_start = ${options.daemon === true}`,
    "",
    options.tables ?? "",
  ].join("\n");
}

/** A fresh directory under /var/tmp (codex refuses to create helper links under /tmp). */
export function makeScratchDir(prefix = "peerpost-codex-"): string {
  const parent = existsSync("/var/tmp") ? "/var/tmp" : undefined;
  return mkdtempSync(join(parent ?? process.cwd(), prefix));
}

export interface RunCodexOptions {
  env: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
  input?: string;
}

export interface CodexRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

/** Runs the pinned CLI; on timeout kills its whole process group (MCP servers and hooks included). */
export function runCodex(args: string[], options: RunCodexOptions): Promise<CodexRun> {
  const binary = codexBinary();
  if (binary === undefined) return Promise.reject(new Error(`codex CLI not found at ${BINARY_IN_REPO}`));
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { env: options.env, cwd: options.cwd ?? options.env["HOME"], detached: true, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (chunk: Buffer) => { stdout += chunk.toString("utf8"); });
    child.stderr.on("data", (chunk: Buffer) => { stderr += chunk.toString("utf8"); });
    const timer = setTimeout(() => { timedOut = true; killGroup(child.pid); }, options.timeoutMs ?? 60_000);
    child.on("error", (error) => { clearTimeout(timer); reject(error); });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      killGroup(child.pid); // stray grandchildren (MCP servers) must not outlive the run
      resolve({ code, signal, timedOut, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}

export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try { process.kill(-pid, "SIGKILL"); } catch { /* already gone */ }
}

/** Parses `codex exec --json` output into events, skipping non-JSON lines. */
export function jsonLines(stdout: string): Array<Record<string, unknown>> {
  return stdout.split("\n").flatMap((line) => {
    if (!line.trim().startsWith("{")) return [];
    try { return [JSON.parse(line) as Record<string, unknown>]; } catch { return []; }
  });
}

export type CodexAvailability = { ok: true; binary: string; version: string } | { ok: false; reason: string };

let availability: CodexAvailability | undefined;

/** Whether the pinned CLI is installed and runs; the reason is suitable for a test skip message. */
export function codexAvailable(): CodexAvailability {
  availability ??= probeCodex();
  return availability;
}

function probeCodex(): CodexAvailability {
  const binary = codexBinary();
  if (binary === undefined) return { ok: false, reason: `codex CLI not installed (expected ${BINARY_IN_REPO}; run npm ci in tests/hosts)` };
  const result = spawnSync(binary, ["--version"], { encoding: "utf8", timeout: 20_000, env: { PATH: process.env["PATH"] ?? "" } });
  const version = /codex-cli (\S+)/.exec(result.stdout ?? "")?.[1];
  if (result.status !== 0 || version === undefined) return { ok: false, reason: `codex --version failed: ${(result.stderr ?? "").trim() || String(result.error)}` };
  return { ok: true, binary, version };
}

/** The pinned binary, found by walking up from this module to the repository root. */
export function codexBinary(): string | undefined {
  const root = repoRoot();
  return root === undefined ? undefined : join(root, BINARY_IN_REPO);
}

export function repoRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, BINARY_IN_REPO)) && existsSync(join(dir, "package.json"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * A `codex app-server --listen unix://…` also listens on /tmp/codex-daemon-<uid>/<sha256 of the socket
 * path> (plus a .lock); both outlive it, whatever TMPDIR says. Removes a test's pair.
 */
export function removeShortSocketAlias(socketPath: string): void {
  const alias = join("/tmp", `codex-daemon-${process.getuid?.() ?? 0}`, createHash("sha256").update(socketPath).digest("hex"));
  rmSync(alias, { force: true });
  rmSync(`${alias}.lock`, { force: true });
}
