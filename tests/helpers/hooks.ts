// Runs a built hook program as the host would: a child process with the host's stdin JSON.
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./mcp.js";
import { collect, type Collected } from "./children.js";

export type HookHost = "claude-code" | "codex" | "copilot" | "grok";

export function hookBundle(host: HookHost): string {
  return join(REPO_ROOT, "dist", host, "hooks.cjs");
}

export function runHook(host: HookHost, event: string, stdin: string | object, env: Record<string, string>): Promise<Collected> {
  return runHookFile(hookBundle(host), event, stdin, env);
}

/** The same for a hook program at another path (a copy of a plugin dir, say). */
export async function runHookFile(hooks: string, event: string, stdin: string | object, env: Record<string, string>): Promise<Collected> {
  const child = spawn(process.execPath, [hooks, event], { env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["pipe", "pipe", "pipe"] });
  const done = collect(child);
  child.stdin.end(typeof stdin === "string" ? stdin : JSON.stringify(stdin));
  return done;
}

/** Every file under a dir with its size and mtime: to prove a hook wrote nothing. */
export function snapshotTree(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (current: string) => {
    let names: string[];
    try {
      names = readdirSync(current);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(current, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else files[path] = `${stat.size}:${stat.mtimeMs}`;
    }
  };
  walk(dir);
  return files;
}
