// A fork of a session runs with that session's own captured start-up environment (its config dir and
// credentials), not the newest other session's of the same host, which a launch borrows.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { claudeResult, standInClaude } from "./helpers/stand-in-claude.js";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { openPeerpost } from "../core/peerpost.js";
import { captureHostEnv } from "../core/wake/host-env.js";

test("a fork of a session runs with that session's own captured environment, not the newest other session's", { timeout: 60_000 }, async (t) => {
  const { home, stateDir, project, path } = standInClaude(
    t,
    "peerpost-forkenv-",
    (home) => `const fs = require("node:fs");
fs.appendFileSync(${JSON.stringify(join(home, "env.jsonl"))}, JSON.stringify({ args: process.argv.slice(2), config: process.env.CLAUDE_CONFIG_DIR ?? null, key: process.env.ANTHROPIC_API_KEY ?? null }) + "\\n");
${claudeResult("fork answer", "forked-1")}
`,
  );
  const record = join(home, "env.jsonl");
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  const store = () => openPeerpost({ env, home, create: true });
  // Two sessions of two Claude Code accounts; beta's capture is the newer one.
  await store().sessions.register({ host: "claude-code", address: "claude:alpha", sessionId: "alpha", cwd: project, source: "startup", hostPid: spawnSync("true").pid! });
  await store().sessions.register({ host: "claude-code", address: "claude:beta", sessionId: "beta", cwd: project, source: "startup", hostPid: spawnSync("true").pid! });
  captureHostEnv(stateDir, "claude:alpha", undefined, { PATH: path, HOME: home, CLAUDE_CONFIG_DIR: join(home, "alpha-config"), ANTHROPIC_API_KEY: "sk-alpha" });
  captureHostEnv(stateDir, "claude:beta", undefined, { PATH: path, HOME: home, CLAUDE_CONFIG_DIR: join(home, "beta-config"), ANTHROPIC_API_KEY: "sk-beta" });
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(stateDir, "wake-env", "claude_beta.json"), later, later);

  const forked = await collect(spawn(process.execPath, [CLI, "fork", "claude:alpha", "what did we decide?", "--json"], { env: { ...env, PATH: path }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(forked.code, 0, forked.stderr + forked.stdout);
  await until(() => existsSync(record), 20_000, "the fork's host to start");
  const seen = JSON.parse(readFileSync(record, "utf8").split("\n")[0]!) as { args: string[]; config: string | null; key: string | null };
  assert.ok(seen.args.includes("alpha"), "it resumes alpha");
  assert.equal(seen.config, join(home, "alpha-config"), "the fork of alpha ran with beta's CLAUDE_CONFIG_DIR");
  assert.equal(seen.key, "sk-alpha", "the fork of alpha ran with beta's API key");
});
