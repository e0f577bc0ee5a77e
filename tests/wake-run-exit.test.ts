// A run's outcome is its host's exit: a process the host left behind holding its stdout/stderr (an MCP
// server with inherited stderr, a backgrounded command) does not keep the run, its concurrency slot and
// the session's claim until the turn timeout, nor turn an answered turn into a `timeout`. A turn that runs
// past PEERPOST_WAKE_TIMEOUT_MS is stopped with its whole process group: a process the host started that
// ignores SIGTERM does not outlive the run. A run that fails is followed by one for the mail that arrived
// while it ran (its senders were told "that run or the next one"), not by one for its own mail alone.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudeResult, dormantSession, standInClaude } from "./helpers/stand-in-claude.js";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { openPeerpost } from "../core/peerpost.js";
import { isAlive } from "../core/sessions/process-tree.js";

/** A dormant claude:dormant with a stand-in host (`script`), woken by a request: its store, the run's home, and when the request was sent. */
async function wokenBy(t: TestContext, prefix: string, script: (home: string) => string, timeoutMs: number) {
  const standIn = standInClaude(t, prefix, script);
  const { home, stateDir } = standIn;
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_WAKE_TIMEOUT_MS: String(timeoutMs) };
  const store = () => openPeerpost({ env, home, create: true });
  const address = "claude:dormant";
  await dormantSession(store(), standIn, address);
  const cli = async (...args: string[]) => collect(spawn(process.execPath, [CLI, ...args], { env: { ...env, PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal((await cli("wake", "on", address)).code, 0);
  const sent = await cli("send", "--json", "--from", "codex:asker", "--to", address, "--anticipation", "reply", "ping?");
  assert.equal(sent.code, 0, sent.stderr);
  assert.equal((JSON.parse(sent.stdout) as { wake?: string }).wake, "started");
  return { home, store, address, sentAt: Date.now() };
}

test("a host that answers and exits is recorded ok at once, though a process it left behind still holds its output", { timeout: 60_000 }, async (t) => {
  // The stand-in host answers, leaves a background process that inherited its stdout/stderr, and exits 0.
  const { store, address, sentAt } = await wokenBy(
    t,
    "peerpost-linger-",
    () => `const { spawn } = require("node:child_process");
spawn(process.execPath, ["-e", "setTimeout(() => {}, 25000)"], { stdio: ["ignore", "inherit", "inherit"] }).unref();
${claudeResult("answered", "dormant")}
process.exit(0);
`,
    20_000,
  );
  // The host is done within a second or so; its run must end then, not at the 20 s turn timeout.
  await until(() => store().wakes.fold().runsFor({ address }).some((run) => run.ended), 30_000, "the run to end");
  const run = store().wakes.fold().runsFor({ address })[0]!;
  const tookMs = Date.now() - sentAt;
  assert.equal(run.ended?.outcome, "ok", `outcome ${run.ended?.outcome}: ${run.ended?.reason ?? ""}`);
  assert.ok(tookMs < 8_000, `the run held its claim and a concurrency slot for ${tookMs} ms after its host exited`);
});

test("a timed-out run leaves no process of its host's group behind", { timeout: 60_000 }, async (t) => {
  // The stand-in host starts a helper in its own process group that ignores SIGTERM, then hangs.
  const { home, store, address } = await wokenBy(
    t,
    "peerpost-timeout-group-",
    (home) => `const { spawn } = require("node:child_process");
const helper = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setTimeout(() => {}, 60000)"], { stdio: "ignore" });
require("node:fs").writeFileSync(${JSON.stringify(join(home, "helper.pid"))}, String(helper.pid));
setTimeout(() => {}, 60000);
`,
    2_000,
  );
  const pidFile = join(home, "helper.pid");
  t.after(() => {
    if (existsSync(pidFile))
      try {
        process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL");
      } catch {
        // gone
      }
  });
  await until(() => store().wakes.fold().runsFor({ address }).some((run) => run.ended), 30_000, "the run to end");
  const run = store().wakes.fold().runsFor({ address })[0]!;
  assert.equal(run.ended?.outcome, "timeout", `outcome ${run.ended?.outcome}: ${run.ended?.reason ?? ""}`);
  const helper = Number(readFileSync(pidFile, "utf8"));
  // Past the runner's SIGTERM→SIGKILL grace (5 s): nothing of the stopped turn may still run.
  await new Promise((resolve) => setTimeout(resolve, 7000));
  assert.equal(isAlive(helper), false, `process ${helper}, started by the timed-out host, still runs after the run was recorded "${run.ended?.reason}"`);
});

test("a request told the wake is running gets the next run when that run fails; the failed run's own request is not retried alone", { timeout: 120_000 }, async (t) => {
  // The first run waits for the test's go, then fails; a run after it answers. Each run's prompt is kept.
  const { home, store, address } = await wokenBy(
    t,
    "peerpost-after-failed-",
    (home) => `const fs = require("node:fs");
const prompts = ${JSON.stringify(join(home, "prompts.jsonl"))};
const first = !fs.existsSync(prompts);
let prompt = "";
process.stdin.on("data", (chunk) => (prompt += chunk)).on("end", () => {
  fs.appendFileSync(prompts, JSON.stringify(prompt) + "\\n");
  if (!first) {
    ${claudeResult("answered", "dormant")}
    process.exit(0);
  }
  const wait = () => (fs.existsSync(${JSON.stringify(join(home, "go"))}) ? process.exit(1) : setTimeout(wait, 50));
  wait();
});
`,
    60_000,
  );
  const prompts = () => (existsSync(join(home, "prompts.jsonl")) ? readFileSync(join(home, "prompts.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as string) : []);
  await until(() => prompts().length === 1, 30_000, "the first run to start");
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PATH: process.env.PATH ?? "" };
  const second = await collect(spawn(process.execPath, [CLI, "send", "--json", "--from", "codex:asker", "--to", address, "--anticipation", "reply", "and this?"], { env, stdio: ["ignore", "pipe", "pipe"] }));
  const sent = JSON.parse(second.stdout) as { messageId: string; wake?: string };
  assert.equal(sent.wake, "running", second.stdout);
  writeFileSync(join(home, "go"), "");
  await until(() => store().wakes.fold().runsFor({ address }).length === 2 && store().wakes.fold().runsFor({ address }).every((run) => run.ended), 60_000, "a second run after the failed one");
  const [next, failed] = store().wakes.fold().runsFor({ address });
  assert.equal(failed!.ended?.outcome, "failed");
  assert.ok(next!.claim.messageIds.includes(sent.messageId), "the next run carries the request that arrived meanwhile");
  assert.equal(next!.ended?.outcome, "ok");
  // The failed run's request alone starts nothing more: two runs, and no third.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(store().wakes.fold().runsFor({ address }).length, 2);
});

test("a failed run with nothing arrived meanwhile is not run again, though an older carried request is still unread", { timeout: 120_000 }, async (t) => {
  // Run 1 ends ok without reading its request (ping?); every later run fails.
  const { home, store, address } = await wokenBy(
    t,
    "peerpost-failed-carried-",
    (home) => `const fs = require("node:fs");
const runs = ${JSON.stringify(join(home, "runs.txt"))};
const first = !fs.existsSync(runs);
fs.appendFileSync(runs, "run\\n");
process.stdin.resume();
process.stdin.on("end", () => {
  if (first) {
    ${claudeResult("looked at it", "dormant")}
    process.exit(0);
  }
  process.exit(1);
});
`,
    60_000,
  );
  await until(() => store().wakes.fold().runsFor({ address }).some((run) => run.ended), 30_000, "the first run to end");
  assert.equal(store().wakes.fold().runsFor({ address })[0]!.ended?.outcome, "ok");
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PATH: process.env.PATH ?? "" };
  const second = await collect(spawn(process.execPath, [CLI, "send", "--json", "--from", "codex:asker", "--to", address, "--anticipation", "reply", "second?"], { env, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal((JSON.parse(second.stdout) as { wake?: string }).wake, "started", second.stdout);
  await until(() => store().wakes.fold().runsFor({ address }).length >= 2 && store().wakes.fold().runsFor({ address }).every((run) => run.ended), 30_000, "the second run to end");
  await new Promise((resolve) => setTimeout(resolve, 4000));
  const runs = store().wakes.fold().runsFor({ address });
  assert.deepEqual(runs.map((run) => run.ended?.outcome).reverse(), ["ok", "failed"], `the host was started ${readFileSync(join(home, "runs.txt"), "utf8").trim().split("\n").length} times`);
});
