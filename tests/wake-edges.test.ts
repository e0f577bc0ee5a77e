// Runs and settings at their edges: a claimed identity neither forks its "own" session past the wake
// switch nor opens its override policy; a replayed send reports no settings it did not apply; a fork of a
// host whose CLI is missing is refused at once, as a launch is; a wake whose session dir is gone says so;
// a compaction does not reset the hour's wake budget.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { onCleanup, tempDir } from "./helpers/temp.js";
import { CLI, connect } from "./helpers/mcp.js";
import { cli } from "./helpers/cli.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { claudeResult, dormantSession, standInClaude } from "./helpers/stand-in-claude.js";
import { openPeerpost } from "../core/peerpost.js";
import { hostStartField } from "../core/sessions/process-tree.js";
import { readOverrides, sessionOverrides } from "../core/wake/overrides.js";

test("a server serving a claimed identity may neither set that session's override policy nor fork it past the wake switch", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_USER: "pat" };
  const victimHost = spawn("sleep", ["300"], { stdio: "ignore" });
  onCleanup(t, () => victimHost.kill());
  const victim = "victim-session-1";
  await openPeerpost({ env, home }).sessions.register({ host: "copilot", address: `copilot:${victim}`, sessionId: victim, cwd: home, source: "startup", hostPid: victimHost.pid!, ...hostStartField(victimHost.pid!) });
  // An agent's shell naming the victim's session in the host's variable: served on a claim.
  const spoof = await connect(t, { ...env, COPILOT_AGENT_SESSION_ID: victim }, CLI, ["serve", "--host", "copilot"]);
  assert.equal(((await spoof.call("health")) as { identity: { verified: boolean } }).identity.verified, false);
  const opened = (await spoof.call("set_agent_override_policy", { target: `copilot:${victim}`, model: ["*"] })) as { error?: { details?: { reason?: string } } };
  assert.equal(opened.error?.details?.reason, "claimed_identity");
  assert.equal(readOverrides(stateDir).policies[`copilot:${victim}`], undefined);
  const forked = (await spoof.call("fork", { address: `copilot:${victim}`, message: "try another way" })) as { error?: { details?: { reason?: string } } };
  assert.equal(forked.error?.details?.reason, "claimed_identity");
});

test("a replayed send (same idempotencyKey) with other settings reports none applied: the first send's stand", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_USER: "pat" };
  const [alice, bob] = await Promise.all([connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" }), connect(t, { ...env, PEERPOST_ADDRESS: "codex:bob" })]);
  for (const session of [alice, bob]) await session.call("health");
  assert.equal((await cli(env, "override-policy", "codex:bob", "--model", "*")).code, 0);
  const first = await alice.call("message", { to: "codex:bob", message: "use gpt-a", idempotencyKey: "k1", settings: { model: "gpt-a" } });
  assert.equal((first.settings as { applied: { model: string } }).applied.model, "gpt-a");
  const replay = await alice.call("message", { to: "codex:bob", message: "use gpt-a", idempotencyKey: "k1", settings: { model: "gpt-b" } });
  assert.deepEqual([replay.created, replay.settings, sessionOverrides(stateDir, "codex:bob")?.model], [false, undefined, "gpt-a"]);
});

test("a fork of a session whose host CLI is not on PATH is refused host_not_found at once, and claims no run", async (t) => {
  const home = tempDir(t);
  const project = join(home, "project");
  mkdirSync(project);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PATH: "/usr/bin:/bin", PEERPOST_USER: "pat" };
  await openPeerpost({ env, home }).sessions.register({ host: "claude-code", address: "claude:victim", sessionId: "victim", cwd: project, source: "startup", hostPid: spawnSync("true").pid! });
  const fork = await collect(spawn(process.execPath, [CLI, "fork", "claude:victim", "try the other approach", "--json"], { env, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(fork.code, 1, fork.stdout);
  assert.equal((JSON.parse(fork.stdout) as { error: { code: string } }).error.code, "host_not_found");
  assert.equal(openPeerpost({ env, home }).wakes.fold().runsFor({}).length, 0);
});

test("a wake whose session dir is gone says so, not host_not_found; and a compaction does not reset the hour's wake budget", async (t) => {
  const s = standInClaude(t, "peerpost-wake-edges-", () => claudeResult("answered", "dormant"));
  const env = { HOME: s.home, PEERPOST_HOME: s.stateDir, PATH: s.path, PEERPOST_WAKE_PER_HOUR: "1", PEERPOST_LOG_RETENTION_DAYS: "0" };
  const store = () => openPeerpost({ env, home: s.home });
  await dormantSession(store(), s);
  const run = (...args: string[]) => collect(spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] }));
  const send = async (body: string) => {
    const sent = await run("send", "--json", "--from", "codex:asker", "--to", "claude:dormant", "--anticipation", "reply", body);
    assert.equal(sent.code, 0, sent.stderr);
    return (JSON.parse(sent.stdout) as { wake?: string }).wake;
  };
  assert.equal((await run("wake", "on", "all")).code, 0);
  rmSync(s.project, { recursive: true, force: true });
  assert.equal(await send("one?"), "started");
  await until(() => store().wakes.fold().runsFor({}).some((entry) => entry.ended), 20_000, "the run to end");
  const ended = store().wakes.fold().runsFor({})[0]!.ended!;
  assert.equal(ended.outcome, "failed");
  assert.match(ended.reason ?? "", new RegExp(`the working directory ${s.project.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} does not exist`));
  assert.equal(await send("two?"), "over_budget", "one wake an hour");
  const compacted = await run("compact");
  assert.equal(compacted.code, 0, compacted.stderr + compacted.stdout);
  assert.equal(await send("three?"), "over_budget", "the hour's run still counts after a compaction");
});
