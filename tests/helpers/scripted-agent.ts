// Scripted stand-ins for a host's protocol mode (an ACP agent, Codex's app-server), put on PATH under the
// host's name, for orders of messages a real host seldom shows on demand (an error answer after a state
// update, a slow replay of a loaded session, a turn that ends before its start is answered), and a small
// editor that runs the built `peerpost shim` on them. Each logs every line it reads and writes.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "node:child_process";
import type { TestContext } from "node:test";
import { CLI } from "./mcp.js";
import { onCleanup, tempDir } from "./temp.js";

/** The part every script shares: line JSON-RPC in, `out` and the log, `SCRIPT_MODE` from the environment. */
const PROLOGUE = String.raw`
const fs = require("fs");
const log = (dir, line) => fs.appendFileSync(process.env.SCRIPT_LOG, JSON.stringify({ dir, line }) + "\n");
const out = (msg) => { const line = JSON.stringify({ jsonrpc: "2.0", ...msg }); log("out", line); process.stdout.write(line + "\n"); };
const mode = process.env.SCRIPT_MODE || "";
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
    const line = buffer.slice(0, i); buffer = buffer.slice(i + 1);
    log("in", line);
    handle(JSON.parse(line));
  }
});
process.stdin.on("end", () => process.exit(0));
`;

/** An ACP agent with one session, sess-1. Modes: `update-then-error` (the shim's prompt gets a state update, then an error). */
export const SCRIPTED_ACP = PROLOGUE + String.raw`
function handle(m) {
  if (m.method === "initialize") return out({ id: m.id, result: { protocolVersion: 1, agentCapabilities: { loadSession: true } } });
  if (m.method === "session/new") return out({ id: m.id, result: { sessionId: "sess-1" } });
  if (m.method === "session/load") {
    // The history replayed slowly, then the answer.
    let n = 0;
    const timer = setInterval(() => {
      out({ method: "session/update", params: { sessionId: m.params.sessionId, update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "old " + n } } } });
      if (++n === 10) { clearInterval(timer); out({ id: m.id, result: null }); }
    }, 300);
    return;
  }
  if (m.method === "session/prompt") {
    const sessionId = m.params.sessionId;
    if (String(m.id).startsWith("peerpost-") && mode.includes("update-then-error")) {
      out({ method: "session/update", params: { sessionId, update: { sessionUpdate: "available_commands_update", availableCommands: [] } } });
      setTimeout(() => out({ id: m.id, error: { code: -32603, message: "Internal error: model unavailable" } }), 50);
      return;
    }
    out({ method: "session/update", params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "working" } } } });
    setTimeout(() => out({ id: m.id, result: { stopReason: "end_turn" } }), 300);
    return;
  }
  if (m.id !== undefined && m.method !== undefined) out({ id: m.id, error: { code: -32601, message: "unknown " + m.method } });
}
`;

/** Codex's app-server with one thread, thr-1. Modes: `fast-fail` (turn/started and turn/completed come before turn/start's answer), `slow-turns` (a turn lasts 3 s, not 0.3), `slow-review` (review/start is answered after 2 s). */
export const SCRIPTED_CODEX = PROLOGUE + String.raw`
let turns = 0;
function handle(m) {
  if (m.method === "initialize") return out({ id: m.id, result: { userAgent: "scripted" } });
  if (m.method === "thread/start" || m.method === "thread/resume") return out({ id: m.id, result: { thread: { id: "thr-1", cwd: process.cwd(), status: { type: "idle" } } } });
  if (m.method === "turn/start") {
    const turn = { id: "turn-" + ++turns, status: "inProgress", items: [] };
    const threadId = m.params.threadId;
    if (mode.includes("fast-fail")) {
      out({ method: "turn/started", params: { threadId, turn } });
      out({ method: "turn/completed", params: { threadId, turn: { ...turn, status: "failed" } } });
      out({ id: m.id, result: { turn } });
      return;
    }
    out({ id: m.id, result: { turn } });
    out({ method: "turn/started", params: { threadId, turn } });
    setTimeout(() => out({ method: "turn/completed", params: { threadId, turn: { ...turn, status: "completed" } } }), mode.includes("slow-turns") ? 3000 : 300);
    return;
  }
  if (m.method === "review/start") {
    // Answered late (mode slow-review), then its turn runs in the same thread.
    const turn = { id: "turn-" + ++turns, status: "inProgress", items: [] };
    const threadId = m.params.threadId;
    setTimeout(() => {
      out({ id: m.id, result: { turn, reviewThreadId: threadId } });
      out({ method: "turn/started", params: { threadId, turn } });
      setTimeout(() => out({ method: "turn/completed", params: { threadId, turn: { ...turn, status: "completed" } } }), 300);
    }, mode.includes("slow-review") ? 2000 : 0);
    return;
  }
  if (m.id !== undefined && m.method !== undefined) out({ id: m.id, result: {} });
}
`;

export interface Rig {
  root: string;
  home: string;
  stateDir: string;
  env: Record<string, string>;
  /** The lines the scripted host read (`in`) and wrote (`out`), in order. */
  hostLines(): Array<{ dir: "in" | "out"; line: string }>;
}

/** Whether a line the scripted host read is a request of the shim's own (its ids are `peerpost-<nonce>-N`). */
export function isShimRequest(entry: { dir: "in" | "out"; line: string }): boolean {
  return entry.dir === "in" && /"id":"peerpost-[0-9a-f]+-\d+"/.test(entry.line);
}

/** The requests the shim itself sent the scripted host, in order. */
export function shimRequests(rig: Rig): Array<{ dir: "in" | "out"; line: string }> {
  return rig.hostLines().filter(isShimRequest);
}

/** A temp root with the script on PATH as `hostName`. */
export function scriptedHost(t: TestContext, hostName: string, script: string, mode = ""): Rig {
  const root = tempDir(t, "peerpost-shim-");
  const home = join(root, "home");
  const stateDir = join(root, "state");
  const bin = join(root, "bin");
  mkdirSync(home);
  mkdirSync(bin);
  const log = join(root, "host.jsonl");
  writeFileSync(join(bin, hostName), `#!${process.execPath}\n${script}`);
  chmodSync(join(bin, hostName), 0o755);
  return {
    root,
    home,
    stateDir,
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: home, PEERPOST_HOME: stateDir, SCRIPT_LOG: log, SCRIPT_MODE: mode },
    hostLines: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as { dir: "in" | "out"; line: string }) : []),
  };
}

export interface RpcAnswer {
  id?: string | number;
  result?: Record<string, unknown> | null;
  error?: { message: string };
}

export interface RpcNotification {
  method: string;
  params?: Record<string, unknown>;
}

/** An editor: `peerpost shim <args>` in `cwd`, sending requests and waiting for their answers; the notifications it got, in order. */
export function editorOnShim(t: TestContext, args: string[], rig: Rig): { request(method: string, params?: unknown): Promise<RpcAnswer>; notifications: RpcNotification[] } {
  const child = spawn(process.execPath, [CLI, "shim", ...args], { env: rig.env, cwd: rig.root, stdio: ["pipe", "pipe", "pipe"], detached: true });
  onCleanup(t, () => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // Gone already.
    }
  });
  const waiting = new Map<number, (answer: RpcAnswer) => void>();
  const notifications: RpcNotification[] = [];
  let buffer = "";
  let nextId = 1;
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
      const answer = JSON.parse(buffer.slice(0, i)) as RpcAnswer & { method?: string };
      buffer = buffer.slice(i + 1);
      if (answer.method === undefined && typeof answer.id === "number") waiting.get(answer.id)?.(answer);
      else if (answer.method !== undefined && answer.id === undefined) notifications.push(answer as RpcNotification);
    }
  });
  return {
    notifications,
    request(method, params) {
      const id = nextId++;
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      return new Promise((resolve) => waiting.set(id, resolve));
    },
  };
}
