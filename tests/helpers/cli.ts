// Runs the built `peerpost` command line as a child process.
import { spawn } from "node:child_process";
import { collect, type Collected } from "./children.js";
import { CLI } from "./mcp.js";

export function cli(env: Record<string, string>, ...args: string[]): Promise<Collected> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  return collect(child);
}

export function json(result: Collected): Record<string, unknown> {
  return JSON.parse(result.stdout) as Record<string, unknown>;
}
