// A fork of a session runs with that session's own captured start-up environment (its config dir and
// credentials), not the newest other session's of the same host, which a launch borrows.
// A completed Codex fork is archived in that environment too (its CODEX_HOME), where it ran.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { claudeResult, standInClaude } from "./helpers/stand-in-claude.js";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { openPeerpost } from "../core/peerpost.js";
import { captureHostEnv } from "../core/wake/host-env.js";
import { standInOnPath } from "./helpers/stand-in-bin.js";

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

test("a completed Codex fork is archived in the CODEX_HOME it ran in (the session's capture), not the requester's", { timeout: 120_000 }, async (t) => {
  const { home, work: project, env } = standInOnPath(
    t,
    "peerpost-fork-archive-env-",
    "codex",
    `const fs = require("node:fs");
fs.appendFileSync(require("node:path").join(process.env.HOME, "calls.jsonl"), JSON.stringify({ args: process.argv.slice(2), codexHome: process.env.CODEX_HOME ?? null }) + "\\n");
if (process.argv[2] === "archive") process.exit(process.env.CODEX_HOME ? 0 : 3);
const out = (event) => process.stdout.write(JSON.stringify(event) + "\\n");
out({ type: "thread.started", thread_id: "forked-thread" });
out({ type: "item.completed", item: { id: "item_1", type: "agent_message", text: "FORK ANSWER" } });
out({ type: "turn.completed", usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 5 } });
`,
  );
  const codexHome = join(home, "codex-home");
  mkdirSync(codexHome);
  const store = () => openPeerpost({ env, home, create: true });
  const address = "codex:original";
  await store().sessions.register({ host: "codex", address, sessionId: "original", cwd: project, source: "startup" });
  // The Codex session started with its own CODEX_HOME; the person asking for the fork has none set.
  captureHostEnv(env.PEERPOST_HOME, address, undefined, { PATH: env.PATH, HOME: home, CODEX_HOME: codexHome });
  const forked = await collect(spawn(process.execPath, [CLI, "fork", address, "Try the other approach", "--json"], { env, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(forked.code, 0, forked.stderr + forked.stdout);
  const runId = String((JSON.parse(forked.stdout) as { runId: string }).runId);
  const archived = () => store().receipts.query({ kind: "fork" }).receipts.find((receipt) => receipt.tags?.includes("archived"));
  await until(() => archived() !== undefined, 30_000, "the fork to be archived");
  const calls = readFileSync(join(home, "calls.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { args: string[]; codexHome: string | null });
  const fork = calls.find((call) => call.args.includes("fork"))!;
  const archive = calls.find((call) => call.args[0] === "archive")!;
  assert.equal(fork.codexHome, codexHome, "the fork ran in the session's CODEX_HOME");
  assert.deepEqual(archive.args, ["archive", "forked-thread"]);
  assert.equal(archive.codexHome, codexHome, `run ${runId}: the fork was archived in another Codex home than the one it ran in`);
  assert.equal(archived()!.delivery, "delivered");
});
