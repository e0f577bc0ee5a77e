// Real child processes for tests: spawn a transpiled fixture and collect its output.
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readlinkSync } from "node:fs";
import { fileURLToPath } from "node:url";

export function fixturePath(name: string): string {
  return fileURLToPath(new URL(`../fixtures/${name}.js`, import.meta.url));
}

export interface Collected {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function collect(child: ChildProcess): Promise<Collected> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

export function spawnFixture(name: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, [fixturePath(name), ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
}

/** Resolves once the child printed a line containing `text`. */
export function waitForOutput(child: ChildProcess, text: string, stream: "stdout" | "stderr" = "stdout"): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = "";
    let other = "";
    const source = stream === "stdout" ? child.stdout : child.stderr;
    source?.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      if (seen.includes(text)) resolve();
    });
    (stream === "stdout" ? child.stderr : child.stdout)?.on("data", (chunk: Buffer) => (other += chunk.toString("utf8")));
    child.on("close", (code, signal) => reject(new Error(`child exited (${code ?? signal}) before printing ${JSON.stringify(text)}: ${seen.slice(-500)} ${other.slice(-1500)}`)));
  });
}

/** Whether the process has `path` open (Linux /proc). */
export function holdsOpen(pid: number, path: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}
