// A test "editor": speaks line JSON-RPC to a host CLI started through `peerpost shim`, as an IDE panel
// or an ACP editor would. It records everything it receives, answers the host's requests (permissions)
// with a handler, and notes any response to an id it never sent.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import type { TestContext } from "node:test";
import { CLI } from "./mcp.js";
import { onCleanup } from "./temp.js";

export interface RpcLine {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code?: number; message?: string };
}

export type ServerRequestHandler = (method: string, params: Record<string, unknown> | undefined) => unknown;

export interface Editor {
  child: ChildProcessWithoutNullStreams;
  /** Every message received, in order. */
  received: RpcLine[];
  /** Responses whose id this editor never sent. */
  foreign: RpcLine[];
  /** Requests the host sent to the editor (permissions and the like). */
  serverRequests: RpcLine[];
  /** Sends a request; resolves with its response. */
  request(method: string, params?: unknown): Promise<RpcLine>;
  notify(method: string, params?: unknown): void;
  /** Resolves with the first message (already received at index >= from, or later) that matches. */
  waitFor(match: (message: RpcLine) => boolean, from?: number, timeoutMs?: number): Promise<RpcLine>;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  close(): Promise<void>;
}

/** Starts `peerpost shim <args>` with `env` and talks to it. */
export function startEditor(t: TestContext, args: string[], env: Record<string, string>, cwd: string, onServerRequest: ServerRequestHandler = () => ({})): Editor {
  const child = spawn(process.execPath, [CLI, "shim", ...args], { env, cwd, stdio: ["pipe", "pipe", "pipe"], detached: true });
  const received: RpcLine[] = [];
  const foreign: RpcLine[] = [];
  const serverRequests: RpcLine[] = [];
  const sent = new Set<string | number>();
  const waiters: Array<{ match: (message: RpcLine) => boolean; resolve: (message: RpcLine) => void }> = [];
  let stderr = "";
  let buffer = "";
  let nextId = 1;
  const write = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (!line) continue;
      let message: RpcLine;
      try {
        message = JSON.parse(line) as RpcLine;
      } catch {
        continue;
      }
      received.push(message);
      if (message.method !== undefined && message.id !== undefined) {
        serverRequests.push(message);
        write({ jsonrpc: "2.0", id: message.id, result: onServerRequest(message.method, message.params) });
      } else if (message.method === undefined && message.id !== undefined && !sent.has(message.id)) foreign.push(message);
      for (const waiter of [...waiters]) {
        if (!waiter.match(message)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  });
  child.stdin.on("error", () => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const killGroup = () => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // gone
    }
  };
  const waitFor: Editor["waitFor"] = (match, from = 0, timeoutMs = 120_000) => {
    const have = received.slice(from).find(match);
    if (have) return Promise.resolve(have);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`editor: no matching message within ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`)), timeoutMs);
      waiters.push({ match, resolve: (message) => (clearTimeout(timer), resolve(message)) });
    });
  };
  const editor: Editor = {
    child,
    received,
    foreign,
    serverRequests,
    request(method, params) {
      // Mixed id types, as editors use both.
      const id = nextId % 2 === 0 ? nextId++ : `editor-${nextId++}`;
      sent.add(id);
      write({ jsonrpc: "2.0", id, method, params });
      return waitFor((message) => message.id === id && message.method === undefined);
    },
    notify: (method, params) => write({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) }),
    waitFor,
    stderr: () => stderr,
    exited,
    async close() {
      child.stdin.end();
      const done = await Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000))]);
      if (!done) killGroup();
      killGroup(); // MCP servers the host started go with it
    },
  };
  onCleanup(t, () => editor.close());
  return editor;
}

/** Allows once whatever the host asks (the editor's person would be asked). */
export function allowOnce(method: string, params: Record<string, unknown> | undefined): unknown {
  if (method !== "session/request_permission") return {};
  const options = (params?.["options"] as Array<{ optionId: string; kind: string }> | undefined) ?? [];
  const allow = options.find((option) => option.kind === "allow_once") ?? options.find((option) => option.kind.startsWith("allow"));
  return { outcome: { outcome: "selected", optionId: allow?.optionId ?? options[0]?.optionId } };
}
