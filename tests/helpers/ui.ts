// `peerpost ui` as a real child process over a temp state dir, and raw HTTP requests to it with any
// headers (fetch cannot set Host), for the web view's tests.
import { spawn, type ChildProcess } from "node:child_process";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { onCleanup, tempDir } from "./temp.js";
import { collect, type Collected } from "./children.js";
import { CLI } from "./mcp.js";
import { openPeerpost, type Peerpost } from "../../core/peerpost.js";
import type { Page } from "playwright-core";
import { openUiPage } from "./browser.js";

export interface RunningUi {
  url: string;
  port: number;
  token: string;
  child: ChildProcess;
  env: Record<string, string>;
  store: Peerpost;
  stderr: () => string;
}

export function uiEnv(t: TestContext): Record<string, string> {
  const home = tempDir(t);
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, PEERPOST_HOME: join(home, "state") };
}

/** Starts `peerpost ui --no-open` (unless args say otherwise) and resolves once it printed its URL. */
export async function startUi(t: TestContext, options: { env?: Record<string, string>; args?: string[] } = {}): Promise<RunningUi> {
  const env = options.env ?? uiEnv(t);
  const store = openPeerpost({ env, home: env.HOME! });
  const child = spawn(process.execPath, [CLI, "ui", ...(options.args ?? ["--no-open"])], { env, stdio: ["ignore", "pipe", "pipe"] });
  const closed = collect(child);
  onCleanup(t, async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await closed;
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const line = out.split("\n").find((candidate) => candidate.startsWith("http://"));
      if (line) resolve(line.trim());
    });
    child.on("close", (code) => reject(new Error(`peerpost ui exited (${code}) before printing its URL: ${stderr}`)));
  });
  const parsed = new URL(url);
  return { url, port: Number(parsed.port), token: parsed.searchParams.get("token")!, child, env, store, stderr: () => stderr };
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One HTTP request to 127.0.0.1:port, with exactly the headers given (Host defaults to the right one). */
export function request(port: number, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, method: options.method ?? "GET", headers: { host: `127.0.0.1:${port}`, ...options.headers } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/** A write as the page makes it: token header, JSON body, the page's own Origin. */
export function write(ui: RunningUi, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return request(ui.port, path, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json", "x-peerpost-token": ui.token, origin: `http://127.0.0.1:${ui.port}`, "sec-fetch-site": "same-origin", ...headers } });
}

export function cli(env: Record<string, string>, ...args: string[]): Promise<Collected> {
  return collect(spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] }));
}

/** The CLI run in a directory (claims are of the repository a command runs in). */
export function cliIn(env: Record<string, string>, cwd: string, ...args: string[]): Promise<Collected> {
  return collect(spawn(process.execPath, [CLI, ...args], { env, cwd, stdio: ["ignore", "pipe", "pipe"] }));
}

/** Registers sessions so the CLI and the page can address them. */
export async function registerSessions(store: Peerpost, ...addresses: string[]): Promise<void> {
  const hosts = { claude: "claude-code", codex: "codex", copilot: "copilot", grok: "grok" } as const;
  for (const address of addresses) {
    const [kind, id] = address.split(":") as [keyof typeof hosts, string];
    await store.sessions.register({ host: hosts[kind], address, sessionId: id, source: "startup", cwd: `/work/${id}`, title: `${id} session` });
  }
}

/** The web view of a person (user:person) with claude:alice registered, open in a browser page. */
export async function pageAsPerson(t: TestContext): Promise<{ ui: RunningUi; env: Record<string, string>; page: Page }> {
  const env = { ...uiEnv(t), PEERPOST_USER: "person" };
  const ui = await startUi(t, { env });
  await registerSessions(ui.store, "claude:alice");
  const page = await openUiPage(t, ui.url);
  return { ui, env, page };
}
