// A stand-in `claude` for the runs peerpost starts itself (wakes, launches, forks): a node script first on
// PATH, in a temp home with a project dir, and the dormant session such a run resumes.
import type { TestContext } from "node:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./temp.js";
import { captureHostEnv } from "../../core/wake/host-env.js";
import type { Peerpost } from "../../core/peerpost.js";

export interface StandIn {
  home: string;
  stateDir: string;
  project: string;
  /** PATH with the stand-in first. */
  path: string;
}

/** A home whose `bin/claude` runs `script(home)` under node (the script may name files in the home). */
export function standInClaude(t: TestContext, prefix: string, script: (home: string) => string): StandIn {
  const home = tempDir(t, prefix);
  const project = join(home, "project");
  const bin = join(home, "bin");
  mkdirSync(project);
  mkdirSync(bin);
  writeFileSync(join(bin, "claude"), `#!${process.execPath}\n${script(home)}`, { mode: 0o755 });
  return { home, stateDir: join(home, "state"), project, path: `${bin}:${process.env.PATH ?? ""}` };
}

/** The script line that prints the result line of a `claude -p` turn. */
export function claudeResult(result: string, sessionId: string): string {
  return `process.stdout.write(JSON.stringify({ type: "result", subtype: "success", is_error: false, num_turns: 1, result: ${JSON.stringify(result)}, session_id: ${JSON.stringify(sessionId)} }) + "\\n");`;
}

/**
 * A dormant Claude Code session `address` (its host process has ended) in the project dir, with the start-up
 * environment a wake of it runs with (the stand-in on its PATH), and `codex:asker`, which writes to it.
 */
export async function dormantSession(peerpost: Peerpost, standIn: StandIn, address = "claude:dormant"): Promise<void> {
  await peerpost.sessions.register({ host: "claude-code", address, sessionId: address.split(":")[1]!, cwd: standIn.project, source: "startup", hostPid: spawnSync("true").pid! });
  await peerpost.sessions.register({ host: "codex", address: "codex:asker", sessionId: "asker", source: "startup" });
  captureHostEnv(standIn.stateDir, address, undefined, { PATH: standIn.path, HOME: standIn.home });
}
