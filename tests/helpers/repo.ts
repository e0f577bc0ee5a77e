// A real git repository in a temp dir, removed when the test ends.
import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { TestContext } from "node:test";
import { tempDir } from "./temp.js";

export function git(repo: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: repo, encoding: "utf8", env: { PATH: "/usr/bin:/bin", HOME: repo, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.invalid", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.invalid" } });
}

/** A repository with the given files committed; returns its real path. */
export function tempRepo(t: TestContext, files: Record<string, string> = { "src/a.ts": "a\n", "src/b.ts": "b\n", "docs/guide.md": "guide\n" }): string {
  const repo = realpathSync(tempDir(t, "peerpost-repo-"));
  git(repo, "init", "-q", "-b", "main");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "start");
  return repo;
}
