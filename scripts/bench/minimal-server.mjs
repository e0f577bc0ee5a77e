// The baseline for server start-up: the smallest MCP server the SDK makes, one tool, stdio.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "minimal", version: "1.0.0" });
server.registerTool("echo", { description: "echo", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text }] }));
await server.connect(new StdioServerTransport());
