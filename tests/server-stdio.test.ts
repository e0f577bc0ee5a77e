// The MCP server's stdio framing against a raw client process: every bad line gets a JSON-RPC error
// reply, an oversized request is answered and logged, and the server keeps serving afterwards.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { CLI } from "./helpers/mcp.js";

interface Reply {
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

function rawServer(t: Parameters<typeof tempDir>[0], env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, "serve"], { env: { PATH: "/usr/bin:/bin", ...env }, stdio: ["pipe", "pipe", "pipe"] });
  onCleanup(t, () => child.kill("SIGKILL"));
  const replies: Reply[] = [];
  let buffered = "";
  let stderr = "";
  const waiters: Array<() => void> = [];
  child.stdout.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    let newline;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      replies.push(JSON.parse(buffered.slice(0, newline)) as Reply);
      buffered = buffered.slice(newline + 1);
      for (const wake of waiters.splice(0)) wake();
    }
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  /** The next reply; a server that never answers fails the test instead of hanging it (a guard, not a target). */
  const next = async (): Promise<Reply> => {
    const giveUp = Date.now() + 60_000;
    while (replies.length === 0) {
      const outcome = await Promise.race([
        new Promise<"data">((resolve) => waiters.push(() => resolve("data"))),
        exited.then(() => "exited" as const),
        new Promise<"silent">((resolve) => setTimeout(() => resolve("silent"), Math.max(0, giveUp - Date.now())).unref()),
      ]);
      if (outcome !== "data" && replies.length === 0) throw new Error(`server ${outcome === "exited" ? "exited" : "stayed silent"} without a reply; stderr: ${stderr}`);
    }
    return replies.shift()!;
  };
  const send = (line: string | Buffer) => child.stdin.write(typeof line === "string" ? line + "\n" : line);
  return { child, next, send, exited, stderr: () => stderr };
}

test("bad lines get JSON-RPC errors, an oversized request is answered and logged, and the server keeps serving", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const server = rawServer(t, { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "claude:alice" });
  server.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }));
  assert.ok((await server.next()).result, "initialize answered");
  server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));

  server.send("this is not json {");
  const parseError = await server.next();
  assert.equal(parseError.id, null);
  assert.equal(parseError.error?.code, -32700);
  assert.match(parseError.error!.message, /not JSON/);

  server.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "health", arguments: [1, 2] } }));
  const invalidParams = await server.next();
  assert.equal(invalidParams.id, 2);
  assert.equal(invalidParams.error?.code, -32602);
  assert.match(invalidParams.error!.message, /^Invalid params for tools\/call: params\.arguments: expected object, received array\.$/);

  server.send(JSON.stringify({ jsonrpc: "2.0", id: 3, wat: true }));
  const invalidRequest = await server.next();
  assert.equal(invalidRequest.id, 3);
  assert.equal(invalidRequest.error?.code, -32600);

  // 11 MiB: past the SDK's 10 MiB read buffer, which used to end the server without a word.
  const huge = JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "message", arguments: { to: "codex:bob", message: "x".repeat(11 * 1024 * 1024) } } });
  for (let offset = 0; offset < huge.length; offset += 1024 * 1024) server.send(Buffer.from(huge.slice(offset, offset + 1024 * 1024)));
  server.send("");
  const tooLarge = await server.next();
  assert.equal(tooLarge.id, 4);
  assert.equal(tooLarge.error?.code, -32600);
  assert.match(tooLarge.error!.message, /Request too large: \d+ bytes/);
  assert.match(server.stderr(), /Request too large/);
  assert.match(readFileSync(join(stateDir, "logs", "errors.log"), "utf8"), /"where":"mcp stdio".*Request too large/);

  server.send(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "health", arguments: {} } }));
  const health = await server.next();
  assert.equal(health.id, 5);
  assert.equal((health.result?.structuredContent as { ok?: boolean } | undefined)?.ok, true, JSON.stringify(health));

  server.child.stdin.end();
  assert.equal(await server.exited, 0);
});

test("a client that goes away mid-wait gets the wait ended as a timeout, answered before the server exits", async (t) => {
  const home = tempDir(t);
  const server = rawServer(t, { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_ADDRESS: "claude:alice" });
  server.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }));
  assert.ok((await server.next()).result, "initialize answered");
  server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  // A health call answered first: the wait after it is surely under way when stdin ends.
  server.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "health", arguments: {} } }));
  server.send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "wait", arguments: { timeoutMs: 600_000 } } }));
  assert.equal((await server.next()).id, 2);
  server.child.stdin.end();
  // Without the shutdown's abort reaching the wait, the server would exit after its grace with the wait unanswered.
  const wait = await server.next();
  assert.equal(wait.id, 3);
  assert.deepEqual(wait.result?.structuredContent, { ok: true, outcome: "timeout", warnings: [] });
  assert.equal(await server.exited, 0);
});
