// Waking a dormant session, with a stand-in host binary on the session's PATH (the real hosts run in
// wake-<host>.test.ts): the switch, exactly one run per session, budget, a detached runner that
// outlives `peerpost send`, the capped output log, receipts, failures, live sessions and stale mail.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { standInClaude } from "./helpers/stand-in-claude.js";
import { CLI, connect } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { openPeerpost, type Peerpost } from "../core/peerpost.js";
import { captureHostEnv } from "../core/wake/host-env.js";
import { isAlive } from "../core/sessions/process-tree.js";
import { CLAIM_GRACE_MS, requestWake } from "../core/wake/request.js";
import { WAKERS } from "../plugins/wakers.js";

interface Invocation {
  pid: number;
  argv: string[];
  prompt: string;
  cwd: string;
  startedAt: number;
  endedAt?: number;
  peerpostHome?: string;
  dropped: string | null;
}

/**
 * A dormant Claude Code session `claude:dormant` whose PATH holds a stand-in `claude`: it records each
 * start (argv, the prompt on its stdin, cwd, times), may sleep, print a lot or fail, as its fake.json says.
 */
function machine(t: TestContext, fake: Record<string, string> = {}, settings: Record<string, string> = {}) {
  const { home, stateDir, project, path } = standInClaude(
    t,
    "peerpost-wake-",
    (home) => `const fs = require("node:fs");
const fake = JSON.parse(fs.readFileSync(${JSON.stringify(join(home, "fake.json"))}, "utf8"));
const entry = { pid: process.pid, argv: process.argv.slice(2), prompt: fs.readFileSync(0, "utf8"), cwd: process.cwd(), startedAt: Date.now(), peerpostHome: process.env.PEERPOST_HOME, dropped: process.env.FAKE_DROPPED ?? null };
fs.appendFileSync(${JSON.stringify(join(home, "invocations.jsonl"))}, JSON.stringify({ ...entry, phase: "start" }) + "\\n");
const finish = () => {
  if (fake.FAKE_OUTPUT_BYTES) fs.writeSync(1, "x".repeat(Number(fake.FAKE_OUTPUT_BYTES)) + "\\n");
  fs.appendFileSync(${JSON.stringify(join(home, "invocations.jsonl"))}, JSON.stringify({ ...entry, phase: "end", endedAt: Date.now() }) + "\\n");
  if (fake.FAKE_FAIL) { process.stderr.write(fake.FAKE_FAIL + "\\n"); process.exit(3); }
  process.stdout.write(JSON.stringify({ type: "result", subtype: "success", is_error: false, num_turns: 2, result: "answered", session_id: "dormant" }) + "\\n");
};
// With FAKE_GATE the turn also waits for the test to release it (m.release()).
const gated = () => (fake.FAKE_GATE && !fs.existsSync(${JSON.stringify(join(home, "release"))}) ? setTimeout(gated, 20) : finish());
setTimeout(gated, Number(fake.FAKE_SLEEP_MS || 0));
`,
  );
  const record = join(home, "invocations.jsonl");
  writeFileSync(join(home, "fake.json"), JSON.stringify(fake));
  const env = { HOME: home, PEERPOST_HOME: stateDir, ...settings };
  const store = (): Peerpost => openPeerpost({ env, home });
  const address = "claude:dormant";
  const register = async (hostPid?: number) => {
    const peerpost = store();
    // The session's host process has ended (a pid that no longer runs), unless the test says otherwise.
    await peerpost.sessions.register({ host: "claude-code", address, sessionId: "dormant", cwd: project, source: "startup", hostPid: hostPid ?? spawnSync("true").pid });
    await peerpost.sessions.register({ host: "codex", address: "codex:asker", sessionId: "asker", source: "startup" });
    captureHostEnv(stateDir, address, undefined, { PATH: path, HOME: home, FAKE_DROPPED: "x" });
  };
  const cli = async (args: string[], extra: Record<string, string> = {}) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? "", ...env, ...extra }, stdio: ["ignore", "pipe", "pipe"] });
    return collect(child);
  };
  const send = async (body: string, anticipation = "reply") => {
    const result = await cli(["send", "--json", "--from", "codex:asker", "--to", address, "--anticipation", anticipation, body]);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    return JSON.parse(result.stdout) as { messageId: string; wake?: string; warnings: Array<{ code: string; message: string }> };
  };
  const invocations = (): Invocation[] => {
    if (!existsSync(record)) return [];
    // Whole lines only: the fake host may be between creating the file and writing its line.
    const text = readFileSync(record, "utf8");
    const lines = text.slice(0, text.lastIndexOf("\n") + 1).split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Invocation & { phase: string });
    return lines.filter((line) => line.phase === "start").map((start) => ({ ...start, ...lines.find((line) => line.phase === "end" && line.pid === start.pid) }));
  };
  const runsEnded = (count: number) => until(() => store().wakes.fold().runsFor({}).filter((run) => run.ended).length >= count, 20_000, `${count} wake run(s) to end`);
  const release = () => writeFileSync(join(home, "release"), "");
  /** The launcher's PATH: the stand-in host first, as `peerpost doctor` would report it. */
  const launcherPath = { PATH: path };
  return { home, stateDir, project, env, store, address, register, cli, send, invocations, runsEnded, release, launcherPath };
}

test("waking is off by default; `peerpost wake on ADDR` turns it on, and agents and health show it", async (t) => {
  const m = machine(t);
  await m.register();
  const quiet = await m.send("are you there?");
  assert.equal(quiet.wake, "off");
  assert.equal(m.invocations().length, 0);
  const on = await m.cli(["wake", "on", m.address, "--json"]);
  assert.equal(on.code, 0, on.stderr);
  assert.deepEqual((JSON.parse(on.stdout) as { switches: unknown }).switches, { [m.address]: true });
  const agents = JSON.parse((await m.cli(["agents", "--all", "--json"])).stdout) as { sessions: Array<{ address: string; wake: boolean }> };
  assert.equal(agents.sessions.find((session) => session.address === m.address)?.wake, true);
  assert.equal(agents.sessions.find((session) => session.address === "codex:asker")?.wake, false);
  const listed = (await m.cli(["wake"])).stdout;
  assert.match(listed, /claude:dormant\s+on\s+claude:dormant/);
  const session = await connect(t, { HOME: m.home, PEERPOST_HOME: m.stateDir, PEERPOST_ADDRESS: m.address });
  const health = await session.call("health");
  assert.deepEqual((health.wake as { self: unknown }).self, { on: true, rule: m.address });
  // A host-wide off turns off what it covers, the address's own on rule included, and says so.
  const off = await m.cli(["wake", "off", "claude-code"]);
  assert.match(off.stdout, new RegExp(`cleared the narrower rules that were on: ${m.address}`));
  const after = JSON.parse((await m.cli(["wake", "--json"])).stdout) as { sessions: Array<{ address: string; wake: boolean; rule: string }> };
  assert.deepEqual(after.sessions.find((entry) => entry.address === m.address), { address: m.address, wake: false, rule: "claude-code" });
  // The most specific rule that is set wins: the address turned on again under the host's off.
  assert.equal((await m.cli(["wake", "on", m.address])).code, 0);
  const again = JSON.parse((await m.cli(["wake", "--json"])).stdout) as { sessions: Array<{ address: string; wake: boolean; rule: string }> };
  assert.deepEqual(again.sessions.find((entry) => entry.address === m.address), { address: m.address, wake: true, rule: m.address });
  assert.equal((await m.cli(["wake", "on", "nonsense"])).code, 1);
});

test("a request wakes the dormant session once, detached from `peerpost send`, in its dir with the host's captured environment; status shows the receipt", async (t) => {
  const m = machine(t, { FAKE_GATE: "1" });
  await m.register();
  assert.equal((await m.cli(["wake", "on", "all"])).code, 0);
  const fyi = await m.send("fyi only", "fyi");
  assert.equal(fyi.wake, undefined, "fyi never wakes");
  const sent = await m.send("What is 6 times 7?");
  const sendExitedAt = Date.now();
  m.release();
  assert.equal(sent.wake, "started");
  // The sender hears that a wake started, not that the message just waits.
  assert.deepEqual(sent.warnings.map((warning) => warning.code), ["recipient_waking"]);
  assert.match(sent.warnings[0]!.message, /started a headless turn/);
  // `send` has exited; the runner it started still runs the host and records its end.
  await m.runsEnded(1);
  const [run] = m.invocations();
  assert.ok(run, "the host was started");
  assert.equal(m.invocations().length, 1);
  assert.ok(run.endedAt! > sendExitedAt, "the host ran on after `peerpost send` had exited");
  assert.equal(run.cwd, m.project);
  assert.equal(run.peerpostHome, m.stateDir);
  assert.equal(run.dropped, null, "only what a host run needs is kept from the captured environment");
  const flags = run.argv.filter((arg) => arg.startsWith("-"));
  assert.deepEqual(flags, ["-p", "--resume", "--output-format", "--allowedTools"]);
  assert.equal(run.argv[run.argv.indexOf("--resume") + 1], "dormant");
  assert.equal(run.argv[run.argv.indexOf("--allowedTools") + 1], "mcp__plugin_peerpost_peerpost__read,mcp__plugin_peerpost_peerpost__reply");
  const prompt = run.prompt;
  assert.ok(!run.argv.some((arg) => arg.includes("6 times 7")), "mail stays off the command line, which every user can read");
  assert.match(prompt, /reply tool/);
  assert.match(prompt, new RegExp(`<peerpost-message id="${sent.messageId}"`));
  assert.match(prompt, /What is 6 times 7\?/);
  assert.ok(!prompt.includes("fyi only"), "only the request is carried");
  assert.deepEqual(readdirSync(join(m.stateDir, "wakes")).filter((name) => name.endsWith(".prompt")), [], "the prompt's file is gone once the host has it open");
  const status = JSON.parse((await m.cli(["status", sent.messageId, "--json"])).stdout) as { message: { wakes: Array<Record<string, unknown>> } };
  const [wake] = status.message.wakes;
  assert.equal(wake?.state, "ok");
  assert.equal(wake?.exitCode, 0);
  assert.match(String(wake?.report), /success, 2 turn\(s\): answered/);
  assert.ok(typeof wake?.durationMs === "number");
  const logPath = String(wake?.logPath);
  assert.ok(logPath.startsWith(join(m.stateDir, "wakes")));
  assert.equal((readFileSync(logPath).length > 0), true);
  const receipts = m.store().receipts.query({ kind: "wake" }).receipts;
  assert.equal(receipts.length, 1);
  assert.equal(receipts[0]!.delivery, "delivered");
  assert.equal(receipts[0]!.messageId, sent.messageId);
  const summary = (await m.cli(["status"])).stdout;
  assert.match(summary, /claude:dormant.*ok/);
});

test("a second sender during a wake starts no second process: it hears running, and its message is carried by that run or the next", async (t) => {
  // The first run's turn lasts until both sends are done, however slowly they start.
  const m = machine(t, { FAKE_GATE: "1" });
  await m.register();
  assert.equal((await m.cli(["wake", "on", "claude-code"])).code, 0);
  const [first, second] = await Promise.all([m.send("first question?"), m.send("second question?")]);
  m.release();
  const outcomes = [first!.wake, second!.wake].sort();
  assert.deepEqual(outcomes, ["running", "started"]);
  const loser = first!.wake === "running" ? first! : second!;
  assert.ok(loser.warnings.some((warning) => warning.code === "wake_running"), JSON.stringify(loser));
  // The loser's message is carried by the winner's run when it was stored before the claim, else by a
  // follow-up run; either way once, and host processes never overlap.
  const carriedIds = () => m.store().wakes.fold().runsFor({}).flatMap((run) => run.claim.messageIds);
  const allEnded = () => m.store().wakes.fold().runsFor({}).every((run) => run.ended !== undefined);
  await until(() => carriedIds().length === 2 && allEnded() && m.invocations().every((run) => run.endedAt !== undefined), 20_000, "both messages carried and every run ended");
  const runs = m.invocations();
  assert.equal(runs.length, m.store().wakes.fold().runsFor({}).length, "one host process per run");
  if (runs.length === 2) assert.ok(runs[1]!.startedAt >= runs[0]!.endedAt!, "runs never overlap");
  const carried = m.store().wakes.fold().runsFor({}).map((run) => run.claim.messageIds);
  assert.equal(carried.flat().length, 2, "each message carried once");
  assert.equal(new Set(carried.flat()).size, 2);
});

test("over budget (per session per hour, and at once on the machine) the send says why with a warning code", async (t) => {
  const m = machine(t, {}, { PEERPOST_WAKE_PER_HOUR: "1" });
  await m.register();
  assert.equal((await m.cli(["wake", "on", m.address])).code, 0);
  assert.equal((await m.send("one?")).wake, "started");
  await m.runsEnded(1);
  const over = await m.send("two?");
  assert.equal(over.wake, "over_budget");
  const warning = over.warnings.find((entry) => entry.code === "wake_over_budget");
  assert.match(warning?.message ?? "", /PEERPOST_WAKE_PER_HOUR=1/);
  assert.equal(m.invocations().length, 1);
  // The MCP tool says the same in its result.
  const session = await connect(t, { ...m.env, PEERPOST_ADDRESS: "codex:asker" });
  const sent = await session.call("message", { to: m.address, message: "three?", anticipation: "reply" });
  assert.equal(sent.wake, "over_budget");
  assert.ok((sent.warnings as Array<{ code: string }>).some((entry) => entry.code === "wake_over_budget"));
  const zero = machine(t, {}, { PEERPOST_WAKE_CONCURRENCY: "0" });
  await zero.register();
  await zero.cli(["wake", "on", "all"]);
  const busy = await zero.send("q?");
  assert.equal(busy.wake, "over_budget");
  assert.match(busy.warnings.find((entry) => entry.code === "wake_over_budget")?.message ?? "", /PEERPOST_WAKE_CONCURRENCY=0/);
});

test("a host binary that fails leaves the message open, with a receipt that says why; output past the cap is dropped", async (t) => {
  const m = machine(t, { FAKE_FAIL: "error: model not available", FAKE_OUTPUT_BYTES: String(300 * 1024) });
  await m.register();
  await m.cli(["wake", "on", "all"]);
  const sent = await m.send("q?");
  await m.runsEnded(1);
  const status = JSON.parse((await m.cli(["status", sent.messageId, "--json"])).stdout) as { message: { status: string; read: unknown; wakes: Array<Record<string, unknown>> } };
  assert.equal(status.message.status, "queued");
  assert.equal(status.message.read, null);
  assert.equal(status.message.wakes[0]?.state, "failed");
  assert.equal(status.message.wakes[0]?.exitCode, 3);
  assert.match(String(status.message.wakes[0]?.reason), /claude exited 3: error: model not available/);
  const receipt = m.store().receipts.query({ kind: "wake" }).receipts[0]!;
  assert.equal(receipt.delivery, "failed");
  assert.match(receipt.warnings[0]!, /model not available/);
  const log = readFileSync(String(status.message.wakes[0]?.logPath), "utf8");
  assert.ok(log.length < 300 * 1024, `log is capped (${log.length})`);
  assert.ok(log.includes("output capped at 262144 bytes"), "the log says it was capped");
  // A host that is not there at all is a failure with a reason too.
  const missing = machine(t);
  await missing.register();
  captureHostEnv(missing.stateDir, missing.address, undefined, { PATH: "/nonexistent", HOME: missing.home });
  await missing.cli(["wake", "on", "all"]);
  const lost = await missing.send("q?");
  await missing.runsEnded(1);
  const run = missing.store().wakes.fold().runsFor({ messageId: lost.messageId })[0]!;
  assert.equal(run.ended?.outcome, "failed");
  assert.match(run.ended?.reason ?? "", /host_not_found: claude is not on the run's PATH \(\/nonexistent\)/);
});

test("never a second writer or stale mail: a live session is not woken, nor mail past replyBy or the staleness limit; a dead runner's claim is released", async (t) => {
  const m = machine(t);
  await m.register(process.pid);
  await m.cli(["wake", "on", "all"]);
  assert.equal((await m.send("q?")).wake, undefined, "a live session gets push or its hooks");
  assert.equal(m.invocations().length, 0);
  // In-process decisions with a moving clock.
  const clock = { now: Date.parse("2026-05-01T10:00:00Z") };
  const stale = machine(t);
  await stale.register();
  await stale.cli(["wake", "on", "all"]);
  const store = () => openPeerpost({ env: stale.env, home: stale.home, now: () => clock.now });
  const started: string[] = [];
  const deps = { wakers: WAKERS, runnerEntry: CLI };
  const { message } = await store().mailbox.send({ from: "codex:asker", fromVerified: true, to: stale.address, body: "old?", anticipation: "reply" });
  clock.now += 3_600_001;
  assert.equal((await requestWake(store(), stale.address, deps, (id) => void started.push(id))).outcome, "nothing", "older than PEERPOST_STALE_MS");
  const session = await connect(t, { HOME: stale.home, PEERPOST_HOME: stale.stateDir, PEERPOST_ADDRESS: "codex:asker", PEERPOST_NOW: String(clock.now) });
  const status = await session.raw("status", { messageId: message.id });
  assert.equal(status.structuredContent?.message && (status.structuredContent.message as { stale: boolean }).stale, true);
  assert.ok((status.structuredContent?.warnings as Array<{ code: string }>).some((warning) => warning.code === "stale"));
  const waited = await session.call("wait", { messageId: message.id, timeoutMs: 0 });
  assert.ok((waited.warnings as Array<{ code: string }>).some((warning) => warning.code === "stale"));
  await store().mailbox.send({ from: "codex:asker", fromVerified: true, to: stale.address, body: "soon?", anticipation: "reply", replyBy: new Date(clock.now + 1000).toISOString() });
  clock.now += 2000;
  assert.equal((await requestWake(store(), stale.address, deps, (id) => void started.push(id))).outcome, "nothing", "past replyBy");
  // A fresh request is claimed; its runner never starts (as if it died); past the deadline the claim is released.
  await store().mailbox.send({ from: "codex:asker", fromVerified: true, to: stale.address, body: "now?", anticipation: "reply" });
  assert.equal((await requestWake(store(), stale.address, deps, (id) => void started.push(id))).outcome, "started");
  assert.equal((await requestWake(store(), stale.address, deps, (id) => void started.push(id))).outcome, "running");
  clock.now += 600_000 + 30_001;
  await store().mailbox.send({ from: "codex:asker", fromVerified: true, to: stale.address, body: "again?", anticipation: "reply" });
  assert.equal((await requestWake(store(), stale.address, deps, (id) => void started.push(id))).outcome, "started");
  const runs = store().wakes.fold().runsFor({});
  assert.equal(runs.length, 2);
  assert.equal(runs[1]!.ended?.outcome, "abandoned");
  assert.equal(runs[0]!.claim.messageIds.length, 2, "the dead run's message is carried again with the new one");
  assert.equal(started.length, 2);
});

test("peerpost launch without --from launches as the person (user:<name>), like send", async (t) => {
  const m = machine(t, {}, { PEERPOST_USER: "ana" });
  await m.register();
  assert.equal((await m.cli(["launch", "on"])).code, 0);
  const launched = await m.cli(["launch", "--json", "--host", "claude-code", "--cwd", m.project, "Count the files here."], m.launcherPath);
  assert.equal(launched.code, 0, launched.stderr + launched.stdout);
  const { address, messageId } = JSON.parse(launched.stdout) as { address: string; messageId: string };
  const message = m.store().mailbox.view(address).state.messages[messageId];
  assert.equal(message?.from, "user:ana");
  await m.runsEnded(1);
  const runnerPid = m.store().wakes.fold().runsFor({})[0]!.started!.runnerPid;
  await until(() => !isAlive(runnerPid), 20_000, "the runner to exit");
  assert.equal(m.invocations()[0]!.argv[m.invocations()[0]!.argv.indexOf("--session-id") + 1], address.slice("claude:".length));
});

test("peerpost launch --cwd \"\" (an unset $DIR) is a usage error that starts nothing", async (t) => {
  const m = machine(t);
  await m.register();
  assert.equal((await m.cli(["launch", "on"])).code, 0);
  for (const cwd of ["", "   "]) {
    const launched = await m.cli(["launch", "--json", "--host", "claude-code", "--cwd", cwd, "Count the files here."]);
    assert.equal(launched.code, 2, launched.stderr + launched.stdout);
    assert.match(launched.stdout, /"code": "invalid_arguments"[\s\S]*--cwd/);
  }
  assert.equal(m.store().wakes.fold().runsFor({}).length, 0);
  assert.equal(m.invocations().length, 0);
});

test("launches refused over the wake budget leave nothing behind: no session, no stored request (8 concurrent launches, 3 rounds)", async (t) => {
  const m = machine(t, { FAKE_GATE: "1" }, { PEERPOST_WAKE_CONCURRENCY: "2" });
  await m.register();
  assert.equal((await m.cli(["launch", "on"])).code, 0);
  const launched: string[] = [];
  for (let round = 0; round < 3; round++) {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => m.cli(["launch", "--json", "--host", "claude-code", "--cwd", m.project, `Task ${round}.${i}`], m.launcherPath)));
    const refused = results.filter((result) => result.code !== 0).map((result) => JSON.parse(result.stdout) as { error: { code: string; details: Record<string, unknown> } });
    assert.equal(refused.length, 6, results.map((result) => result.stdout).join("\n"));
    for (const error of refused) {
      assert.equal(error.error.details.reason, "wake_over_budget");
      assert.equal(error.error.details.messageId, undefined, "nothing was stored");
    }
    for (const result of results.filter((entry) => entry.code === 0)) launched.push((JSON.parse(result.stdout) as { address: string }).address);
    m.release();
    await m.runsEnded(launched.length);
    rmSync(join(m.home, "release"));
  }
  const peerpost = m.store();
  const sessions = peerpost.sessions.list({ includeDead: true }).map((session) => session.address).filter((address) => address !== m.address && address !== "codex:asker");
  assert.deepEqual(sessions.sort(), [...launched].sort(), "a session for each launch that ran, and none for a refused one");
  const stored: string[] = [];
  peerpost.mailbox.log.scan(0, ({ record }) => void (record.type === "msg" && stored.push(record.to)));
  assert.deepEqual(stored.sort(), [...launched].sort(), "a request for each launch that ran, and none for a refused one");
  const runs = peerpost.wakes.fold().runsFor({});
  assert.equal(runs.length, 6);
  for (const run of runs) assert.equal(run.ended?.outcome, "ok", JSON.stringify(run));
});

test("only a verified host process's environment is captured, and a launch runs the host binary on the launcher's PATH, not one a capture lends", async (t) => {
  const m = machine(t);
  await m.register();
  // A server that names its session in PEERPOST_ADDRESS (unverified, no host process) captures nothing.
  const named = await connect(t, { ...m.env, PEERPOST_ADDRESS: "claude:named" });
  assert.equal((await named.call("health")).ok, true);
  assert.equal(existsSync(join(m.stateDir, "wake-env", "claude_named.json")), false);
  // The newest claude capture, written by anything that can write in the state dir, puts another `claude` first on its PATH.
  const planted = join(m.home, "planted");
  mkdirSync(planted);
  writeFileSync(join(planted, "claude"), `#!/bin/sh\necho ran > ${JSON.stringify(join(m.home, "planted-ran"))}\n`);
  chmodSync(join(planted, "claude"), 0o755);
  writeFileSync(join(m.stateDir, "wake-env", "claude_planted.json"), JSON.stringify({ v: 1, env: { HOME: m.home, PATH: `${planted}:${process.env.PATH ?? ""}` } }));
  assert.equal((await m.cli(["launch", "on"])).code, 0);
  const launched = await m.cli(["launch", "--json", "--host", "claude-code", "--cwd", m.project, "Count the files here."], m.launcherPath);
  assert.equal(launched.code, 0, launched.stderr + launched.stdout);
  await m.runsEnded(1);
  const run = m.store().wakes.fold().runsFor({})[0]!;
  assert.equal(run.ended?.outcome, "ok", JSON.stringify(run.ended));
  assert.equal(existsSync(join(m.home, "planted-ran")), false, "the planted binary never ran");
  assert.equal(m.invocations().length, 1, "the launcher's claude ran");
});

test("a runner killed with SIGKILL mid-run: its claim is released at its deadline, its orphaned host is stopped, and the message is woken again", async (t) => {
  // A turn limit no slow start reaches: the runner's own timer must not end the host before the kill.
  const m = machine(t, { FAKE_SLEEP_MS: "120000" }, { PEERPOST_WAKE_TIMEOUT_MS: "60000" });
  await m.register();
  await m.cli(["wake", "on", "all"]);
  const first = await m.send("first?");
  assert.equal(first.wake, "started");
  const hosted = () => m.store().wakes.fold().runsFor({})[0];
  await until(() => hosted()?.host !== undefined && m.invocations().length === 1, 20_000, "the runner to start its host");
  const run = hosted()!;
  const runnerPid = run.started!.runnerPid;
  const orphan = m.invocations()[0]!.pid;
  assert.equal(run.host!.pid, orphan);
  t.after(() => {
    for (const pid of [runnerPid, orphan]) try { process.kill(pid, "SIGKILL"); } catch { /* gone */ }
  });
  process.kill(runnerPid, "SIGKILL");
  await until(() => !isAlive(runnerPid), 10_000, "the runner to die");
  assert.ok(isAlive(orphan), "the host outlives its killed runner");
  // Before the deadline the claim still holds: a new request joins it.
  const joined = await m.send("second?");
  assert.equal(joined.wake, "running");
  // Past the deadline (turn timeout + grace), the next send releases the claim and wakes again.
  writeFileSync(join(m.home, "fake.json"), JSON.stringify({}));
  const later = await m.cli(["send", "--json", "--from", "codex:asker", "--to", m.address, "--anticipation", "reply", "third?"], { PEERPOST_NOW: String(Date.now() + 60_000 + CLAIM_GRACE_MS + 1) });
  assert.equal((JSON.parse(later.stdout) as { wake: string }).wake, "started", later.stdout + later.stderr);
  await until(() => !isAlive(orphan), 10_000, "the orphaned host to be stopped");
  const runs = m.store().wakes.fold().runsFor({});
  assert.equal(runs.length, 2);
  assert.equal(runs[1]!.ended?.outcome, "abandoned");
  assert.match(runs[1]!.ended?.reason ?? "", new RegExp(`host process ${orphan} was still running and was stopped`));
  assert.equal(runs[0]!.claim.messageIds.length, 3, "the dead run's messages are carried again with the new one");
  await until(() => m.store().wakes.fold().runsFor({})[0]?.ended !== undefined, 20_000, "the new run to end");
  assert.equal(m.store().wakes.fold().runsFor({})[0]!.ended!.outcome, "ok");
  assert.equal(m.invocations().length, 2);
  assert.ok(m.invocations()[1]!.startedAt > m.invocations()[0]!.startedAt);
});

test("a Codex launch whose host ends before naming its thread fails with the host's reason, and nothing is sent", async (t) => {
  const m = machine(t);
  const bin = join(m.home, "codex-bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "codex"), `#!${process.execPath}\nprocess.stderr.write("error: no model provider\\n");\nprocess.exit(3);\n`);
  chmodSync(join(bin, "codex"), 0o755);
  assert.equal((await m.cli(["launch", "on"])).code, 0);
  const failed = await m.cli(["launch", "--json", "--host", "codex", "--cwd", m.project, "Count the files here."], { PATH: `${bin}:${process.env.PATH ?? ""}` });
  assert.equal(failed.code, 1, failed.stdout + failed.stderr);
  assert.match(failed.stdout + failed.stderr, /could not be launched: \S*codex exited 3: error: no model provider/);
  const [run] = m.store().wakes.fold().runsFor({});
  assert.equal(run?.ended?.outcome, "failed");
  assert.equal(run?.bound, undefined);
  let sent = 0;
  m.store().mailbox.log.scan(0, ({ record }) => void (record.type === "msg" && sent++));
  assert.equal(sent, 0, "no message for a session that never existed");
});
