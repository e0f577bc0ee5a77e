// A run's outcome is its host's exit: a process the host left behind holding its stdout/stderr (an MCP
// server with inherited stderr, a backgrounded command) does not keep the run, its concurrency slot and
// the session's claim until the turn timeout, nor turn an answered turn into a `timeout`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { claudeResult, dormantSession, standInClaude } from "./helpers/stand-in-claude.js";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { openPeerpost } from "../core/peerpost.js";

test("a host that answers and exits is recorded ok at once, though a process it left behind still holds its output", { timeout: 60_000 }, async (t) => {
  // The stand-in host answers, leaves a background process that inherited its stdout/stderr, and exits 0.
  const standIn = standInClaude(
    t,
    "peerpost-linger-",
    () => `const { spawn } = require("node:child_process");
spawn(process.execPath, ["-e", "setTimeout(() => {}, 25000)"], { stdio: ["ignore", "inherit", "inherit"] }).unref();
${claudeResult("answered", "dormant")}
process.exit(0);
`,
  );
  const { home, stateDir } = standIn;
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_WAKE_TIMEOUT_MS: "20000" };
  const store = () => openPeerpost({ env, home, create: true });
  const address = "claude:dormant";
  await dormantSession(store(), standIn, address);
  const cli = async (...args: string[]) => collect(spawn(process.execPath, [CLI, ...args], { env: { ...env, PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal((await cli("wake", "on", address)).code, 0);
  const sent = await cli("send", "--json", "--from", "codex:asker", "--to", address, "--anticipation", "reply", "ping?");
  assert.equal(sent.code, 0, sent.stderr);
  assert.equal((JSON.parse(sent.stdout) as { wake?: string }).wake, "started");
  const started = Date.now();
  // The host is done within a second or so; its run must end then, not at the 20 s turn timeout.
  await until(() => store().wakes.fold().runsFor({ address }).some((run) => run.ended), 30_000, "the run to end");
  const run = store().wakes.fold().runsFor({ address })[0]!;
  const tookMs = Date.now() - started;
  assert.equal(run.ended?.outcome, "ok", `outcome ${run.ended?.outcome}: ${run.ended?.reason ?? ""}`);
  assert.ok(tookMs < 8_000, `the run held its claim and a concurrency slot for ${tookMs} ms after its host exited`);
});
