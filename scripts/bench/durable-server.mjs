// The floor under a durable send through MCP: the SDK's own server with one tool, `message`, whose strict
// schema takes the same arguments as peerpost's and refuses the same extra one, and which does nothing but
// append a line to $DURABLE_LOG and fsync it. Whatever peerpost's send costs above this is its own work.
import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const input = z.strictObject({ to: z.string(), message: z.string() });
const server = new McpServer({ name: "durable", version: "1.0.0" });
server.registerTool("message", { description: "append a message and fsync it", inputSchema: input }, async ({ to, message }) => {
  const fd = openSync(process.env.DURABLE_LOG, "a", 0o600);
  try {
    writeSync(fd, JSON.stringify({ v: 1, type: "msg", to, body: message, sentAt: new Date().toISOString() }) + "\n");
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { content: [{ type: "text", text: "sent" }] };
});
await server.connect(new StdioServerTransport());
