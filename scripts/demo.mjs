// npm run demo: two real peerpost MCP servers as two sessions (claude:demo-a and codex:demo-b) in a
// temporary state dir, driven by the SDK's stdio client. A asks B with waitForReply, B reads the
// envelope and replies, A's wait returns the reply. Prints the transcript, then removes the temp dir.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const cli = fileURLToPath(new URL("../dist/cli.mjs", import.meta.url));
const stateDir = mkdtempSync(join(tmpdir(), "peerpost-demo-"));
const say = (who, text) => console.log(`\n[${who}] ${text}`);

async function session(address) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, "serve"], env: { ...process.env, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: address } });
  const client = new Client({ name: `demo ${address}`, version: "1.0.0" });
  await client.connect(transport);
  const call = async (name, args = {}) => (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })).structuredContent;
  await call("health"); // registers the session
  return { client, call };
}

try {
  say("demo", `state dir ${stateDir}`);
  const a = await session("claude:demo-a");
  const b = await session("codex:demo-b");
  say("claude:demo-a", "agents →");
  console.log((await a.call("agents")).sessions.map((s) => `  ${s.address}${s.self ? " (me)" : ""}`).join("\n"));
  say("claude:demo-a", 'message {to: "codex:demo-b", waitForReply: true} "Which port does the dev server use?"');
  const asking = a.call("message", { to: "codex:demo-b", message: "Which port does the dev server use?", waitForReply: true, timeoutMs: 60_000 });
  const incoming = await b.call("wait", { timeoutMs: 30_000 });
  say("codex:demo-b", "wait → a new message, rendered for the model:");
  console.log(incoming.message.envelope);
  say("codex:demo-b", 'reply {resolution: "reply"} "5173 (vite default)"');
  const replied = await b.call("reply", { messageId: incoming.message.id, resolution: "reply", message: "5173 (vite default)" });
  console.log(`  status: ${replied.status}`);
  const answer = await asking;
  say("claude:demo-a", `message returned: outcome ${answer.wait.outcome}; the reply, rendered for the model:`);
  console.log(answer.wait.reply.envelope);
  await a.client.close();
  await b.client.close();
  say("demo", "done");
} finally {
  rmSync(stateDir, { recursive: true, force: true });
}
