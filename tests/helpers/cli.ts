// Runs the built `peerpost` command line as a child process.
import { spawn } from "node:child_process";
import { collect, type Collected } from "./children.js";
import { CLI } from "./mcp.js";

export function cli(env: Record<string, string>, ...args: string[]): Promise<Collected> {
  return cliIn(process.cwd(), env, ...args);
}

/** The CLI run from a working directory (a repository, for claims). */
export function cliIn(cwd: string, env: Record<string, string>, ...args: string[]): Promise<Collected> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { PATH: "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  return collect(child);
}

export function json(result: Collected): Record<string, unknown> {
  return JSON.parse(result.stdout) as Record<string, unknown>;
}
