// Live delivery through Claude Code's own inbox, offline: a running, idle `claude` (stream-json, stdin held
// open) with the peerpost plugin installed, against the loopback fake of the Messages API.
import type { TestContext } from "node:test";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir, onCleanup } from "./temp.js";
import assert from "node:assert/strict";
import { CLI, connect } from "./mcp.js";
import { collect } from "./children.js";
import { until } from "./poll.js";
import { startFakeAnthropic, type ModelRequest, type Script } from "./fake-anthropic.js";
import { claudeBinary, installFromDirectoryMarketplace, isolatedClaudeEnv, repoRoot } from "./claude-cli.js";
import { openPeerpost } from "../../core/peerpost.js";

/** Installing the plugin, and each wait on the real CLI. */
export const TIMEOUT_MS = 90_000;
export const tool = (name: string) => `mcp__plugin_peerpost_peerpost__${name}`;
export const NOTE = /peerpost: codex:peer sent you a request \(message ([0-9A-HJKMNP-TV-Z]{26})\)/;

/** The text of the user messages since the model last spoke. */
export function lastText(request: ModelRequest): string {
  const lastAssistant = request.messages.map((message) => message.role).lastIndexOf("assistant");
  return request.messages
    .slice(lastAssistant + 1)
    .filter((message) => message.role === "user")
    .map((message) => (typeof message.content === "string" ? message.content : message.content.map((block) => block.text ?? (typeof block.content === "string" ? block.content : "")).join("\n")))
    .join("\n");
}

/** What each model call was shown last, for a failed assertion. */
export function calls(fake: { modelRequests: ModelRequest[] }): string {
  return JSON.stringify(fake.modelRequests.map((request) => ({ last: lastText(request).slice(0, 400), tool: request.lastToolResult && { name: request.lastToolResult.toolName, text: request.lastToolResult.text.slice(0, 300) } })), null, 1);
}

/** `claude -p` in stream-json mode with stdin held open: a running session that waits, idle, for input. */
export function startIdleClaude(t: TestContext, env: NodeJS.ProcessEnv, cwd: string, extra: string[] = []): ChildProcess & { output: () => string } {
  const child = spawn(claudeBinary(), ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", ...extra], { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stdin!.on("error", () => undefined);
  onCleanup(t, () => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // gone
    }
  });
  return Object.assign(child, { output: () => output });
}

export function typePrompt(child: ChildProcess, text: string): void {
  child.stdin!.write(`${JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text }] }, parent_tool_use_id: null, session_id: "" })}\n`);
}

/** A state dir, a project, the fake model running `script`, and Claude Code with the plugin installed; `peerEnv` is codex:peer's. */
export async function liveWorld(t: TestContext, prefix: string, script: Script, extraEnv: Record<string, string> = {}) {
  const base = tempDir(t, prefix);
  const stateDir = join(base, "peerpost");
  const cwd = join(base, "project");
  mkdirSync(cwd);
  const fake = await startFakeAnthropic(script);
  onCleanup(t, () => fake.close());
  const env = isolatedClaudeEnv(base, fake.url, { PEERPOST_HOME: stateDir, ...extraEnv });
  await installFromDirectoryMarketplace(repoRoot(), "peerpost@peerpost", { env, cwd, timeoutMs: TIMEOUT_MS });
  const peerEnv = { HOME: env.HOME!, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "codex:peer", PEERPOST_PUSH_CONFIRM_MS: "20000" };
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: env.HOME! })!;
  const cli = (args: string[], extra: Record<string, string> = {}) => collect(spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? "", ...env, ...extra }, stdio: ["ignore", "pipe", "pipe"] }));
  return { base, stateDir, cwd, fake, env, peerEnv, store, cli };
}

/** The address of the running Claude session, once its server reported a transport (`push` in the registry). */
export async function runningSession(store: () => ReturnType<typeof openPeerpost>, child: { output: () => string }, seen = new Set<string>()): Promise<{ address: string; push: string }> {
  let found: { address: string; push: string } | undefined;
  await until(
    () => {
      const entry = store()!.sessions.list({ host: "claude-code" }).find((session) => session.alive && session.push === "claude-inbox" && !seen.has(session.address));
      if (entry) found = { address: entry.address, push: entry.push! };
      return found !== undefined;
    },
    60_000,
    "the Claude session's server to report its inbox as its transport",
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}\n${child.output().slice(-3000)}`);
  });
  seen.add(found!.address);
  return found!;
}

/** Resolves once the model has had no call for a while: the turn under way has ended. */
export async function quiet(fake: { modelRequests: ModelRequest[] }, ms = 2000): Promise<void> {
  let count = -1;
  while (count !== fake.modelRequests.length) {
    count = fake.modelRequests.length;
    await new Promise((resolve) => setTimeout(resolve, ms));
  }
}

/** A model that, on a pushed note, holds its answer until `release()`, then sends `message(id)` with SendMessage to the note's `from`. */
export function heldSendMessage(message: (id: string) => string): { script: Script; release: () => void; noteSeen: () => boolean } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let seen = false;
  const script: Script = async (request) => {
    const text = lastText(request);
    const note = NOTE.exec(text);
    if (!note) return { text: "TURN_DONE" };
    seen = true;
    const from = /from="(uds:[^"]+)"/.exec(text)?.[1];
    await gate;
    return { toolUse: { name: "SendMessage", input: { to: from ?? "missing", summary: "answer", message: message(note[1]!) } } };
  };
  return { script, release, noteSeen: () => seen };
}

/** An idle session of a new world (`script` as its model), and a request codex:peer sent it, pushed through its inbox. */
export async function pushedRequest(t: TestContext, prefix: string, script: Script, message: string) {
  const world = await liveWorld(t, prefix, script);
  const claude = startIdleClaude(t, world.env, world.cwd);
  const session = await runningSession(world.store, claude);
  const peer = await connect(t, world.peerEnv);
  const sent = await peer.call("message", { to: session.address, message, anticipation: "reply" });
  assert.equal(sent.deliveredVia, "claude-inbox", JSON.stringify(sent));
  return { world, claude, session, peer, sent };
}
