// Git as the guard runs it: a child process with its output read whole, and the paths a change touches
// read NUL-separated, so names with spaces or newlines come through as they are.
import { isAbsolute, join } from "node:path";
import { nodeChildProcess } from "../common/child-process.js";
import { PeerpostError } from "../common/errors.js";

export function git(cwd: string, args: string[], input?: string): string {
  try {
    return nodeChildProcess().execFileSync("git", args, { cwd, encoding: "utf8", input, stdio: ["pipe", "pipe", "pipe"], maxBuffer: 256 * 1024 * 1024 });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new PeerpostError("invalid_arguments", `git ${args[0]} failed in ${cwd}: ${stderr || (error as Error).message}`, {
      details: { cwd, args: args.slice(0, 4) },
      hint: "Run it inside a git repository (or give --repo DIR), with git on PATH.",
    });
  }
}

/** The repository's top level. */
export function topLevel(cwd: string): string {
  return git(cwd, ["rev-parse", "--show-toplevel"]).replace(/\n$/, "");
}

/** Where git keeps `name` for the repository at `cwd` (`rev-parse --git-path`: worktrees and core.hooksPath respected), absolute. */
export function gitPath(cwd: string, name: string): string {
  const path = git(cwd, ["rev-parse", "--git-path", name]).replace(/\n$/, "");
  return isAbsolute(path) ? path : join(cwd, path);
}

/** Paths in `git … --name-status -z` output: both sides of a rename or copy, each once. */
export function namesFromStatus(output: string): string[] {
  const fields = output.split("\0");
  const paths = new Set<string>();
  for (let i = 0; i < fields.length; ) {
    const status = fields[i++]!.replace(/^\n+/, "");
    if (status === "") continue;
    const count = /^[RC]/.test(status) ? 2 : 1;
    for (let n = 0; n < count && i < fields.length; n++) paths.add(fields[i++]!);
  }
  return [...paths];
}
