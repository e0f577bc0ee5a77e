// A real MCP SDK client over stdio against a built peerpost server (dist/), one per session.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fileURLToPath } from "node:url";
import type { TestContext } from "node:test";
import { onCleanup } from "./temp.js";

export const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));
export const CLI = `${REPO_ROOT}dist/cli.mjs`;

export interface Session {
  client: Client;
  call(name: string, args?: Record<string, unknown>, meta?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** The raw tool result (content, structuredContent, isError). */
  raw(name: string, args?: unknown, meta?: Record<string, unknown>): Promise<{ content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown>; isError?: boolean }>;
  stderr(): string;
}

/** Starts `node <entry> [args]` as an MCP server with the given environment (in `cwd`, when given) and connects a client. */
export async function connect(t: TestContext, env: Record<string, string>, entry = CLI, args: string[] = ["serve"], cwd?: string): Promise<Session> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [entry, ...args], env: { PATH: process.env.PATH ?? "", HOME: env.HOME ?? process.env.HOME ?? "", ...env }, stderr: "pipe", ...(cwd !== undefined ? { cwd } : {}) });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "peerpost-test", version: "1.0.0" });
  await client.connect(transport);
  onCleanup(t, () => client.close());
  const raw: Session["raw"] = async (name, args, meta) =>
    (await client.callTool({ name, arguments: args as Record<string, unknown>, ...(meta ? { _meta: meta } : {}) }, undefined, { timeout: 700_000 })) as Awaited<ReturnType<Session["raw"]>>;
  return {
    client,
    raw,
    call: async (name, args = {}, meta) => {
      const result = await raw(name, args, meta);
      return result.structuredContent ?? {};
    },
    stderr: () => stderr,
  };
}
