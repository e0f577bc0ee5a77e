// Compaction of the receipts, the sessions registry and the wakes log: what leaves the live file, reads
// that answer the same before and after, kills at each step, and appenders running as real child processes
// through compactions killed or stopped halfway.
// A compacted registry is indexed again at once: every hook reads it through its index.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { monotonicFactory } from "ulid";
import { tempPeerpost } from "./helpers/temp.js";
import { collect, spawnFixture } from "./helpers/children.js";
import { CLI, connect } from "./helpers/mcp.js";
import { until } from "./helpers/poll.js";
import { fullSuiteOnly } from "./helpers/suite.js";
import type { Peerpost } from "../core/peerpost.js";
import { compactOneLog, type CompactedLog } from "../core/upkeep/log-compaction.js";
import { heartbeats, receiptReads, sessionReads } from "./helpers/compacted-logs.js";
import type { ReceiptRecord } from "../core/records/schemas.js";
import type { WakeRecord } from "../core/wake/records.js";
import { runsOf, type WakeState } from "../core/wake/wake-fold.js";
import { runHook } from "./helpers/hooks.js";
import { compactLogs } from "../core/upkeep/log-compaction.js";
import { tempDir } from "./helpers/temp.js";
import { openPeerpost } from "../core/peerpost.js";

const DAY = 86_400_000;
const ulid = monotonicFactory();
/** The messages the runs carry, each by several runs old and new. */
const CARRIED = Array.from({ length: 5 }, () => ulid());
const FAULTS = ["compact-after-marker", "compact-after-archive", "compact-after-rename"] as const;

function linesOf(path: string): string[] {
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : [];
}

/** `count` receipts written straight to the log, one a minute from `from`, across 4 senders and 3 kinds. */
function writeReceipts(peerpost: Peerpost, from: number, count: number): void {
  const kinds = ["send", "push", "wake"] as const;
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const at = from + i * 60_000;
    const receipt: ReceiptRecord = { v: 1, type: "receipt", id: ulid(at), at: new Date(at).toISOString(), kind: kinds[i % 3]!, host: "claude-code", from: `claude:s${i % 4}`, to: "codex:sink", messageId: ulid(at), delivery: "queued", warnings: [], origin: { source: "host", pid: 1 } };
    lines.push(JSON.stringify(receipt));
  }
  appendFileSync(peerpost.receipts.log.path, lines.join("\n") + "\n", { mode: 0o600 });
}

/** Runs of every state: ended long ago (some forks, one not reconciled), ended lately, abandoned, running. */
function writeWakes(peerpost: Peerpost, now: number): void {
  const records: WakeRecord[] = [];
  const iso = (time: number) => new Date(time).toISOString();
  for (let i = 0; i < 60; i++) {
    const at = now - (i < 40 ? 90 : 1) * DAY + i * 60_000;
    const id = ulid(at);
    const fork = i % 10 === 0;
    records.push({ v: 1, type: "wake", id, kind: fork ? "fork" : "wake", address: `claude:s${i % 3}`, host: "claude-code", cwd: "/tmp", messageIds: [CARRIED[i % CARRIED.length]!], at: iso(at), deadline: iso(i === 55 ? now + DAY : at + 600_000), by: 1 });
    records.push({ v: 1, type: "wake-started", id, runnerPid: 1, command: "claude", at: iso(at + 1) });
    if (i === 55 || i === 56) continue; // running; abandoned
    records.push({ v: 1, type: "wake-ended", id, outcome: i % 7 === 0 ? "failed" : "ok", at: iso(at + 2) });
    if (fork && i !== 20) records.push({ v: 1, type: "wake-reconciled", id, messageId: ulid(at), at: iso(at + 3) });
  }
  appendFileSync(peerpost.wakes.log.path, records.map((record) => JSON.stringify(record)).join("\n") + "\n", { mode: 0o600 });
}

/** Every run, archived ones too. */
function allRuns(peerpost: Peerpost): Map<string, WakeState> {
  return new Map(runsOf([peerpost.wakes.fold(), peerpost.wakes.archived.newest(Infinity)], {}).map((run) => [run.claim.id, run]));
}

function wakeReads(peerpost: Peerpost, now: number): unknown {
  const { wakes } = peerpost;
  const fold = wakes.fold();
  const ids = (runs: WakeState[]) => runs.map((run) => run.claim.id);
  return {
    active: ids(fold.active(now)),
    abandoned: ids(fold.abandoned(now)),
    recent: fold.claimsSince("claude:s1", now - 7 * DAY).length,
    pendingForks: [...fold.runs.values()].filter((run) => run.claim.kind === "fork" && !run.reconciled).map((run) => run.claim.id),
    // What `status` shows: a message's runs, a session's last.
    carrying: CARRIED.map((id) => wakes.runsCarrying(id)),
    lastRun: ((addresses) => addresses.map((address) => wakes.lastRuns(addresses).get(address)?.claim.id))(["claude:s0", "claude:s1", "claude:s2"]),
  };
}

/** A store with all three logs filled: old records past the retention, and records of the last days. */
async function filledStore(t: Parameters<typeof tempPeerpost>[0], oldReceipts = 400) {
  const made = tempPeerpost(t, { PEERPOST_LOG_RETENTION_DAYS: "30" });
  const { peerpost, clock } = made;
  writeReceipts(peerpost, clock.now - 60 * DAY, oldReceipts);
  writeReceipts(peerpost, clock.now - DAY, 300);
  await heartbeats(peerpost, clock);
  writeWakes(peerpost, clock.now);
  const reads = (p: Peerpost) => ({ receipts: receiptReads(p), sessions: sessionReads(p), wakes: wakeReads(p, clock.now) });
  return { ...made, reads };
}

test("receipts and ended wake runs past the retention move to their archives, the registry keeps each session's latest state, and every read stays the same", async (t) => {
  const { peerpost, clock, stateDir, reopen, reads } = await filledStore(t);
  const before = reads(reopen());
  // What `peerpost wake` lists: the newest runs, 20 of the last days' and 5 archived ones after the compaction.
  const newest = () => reopen().wakes.newest(25).map((run) => run.claim.id);
  const newestBefore = newest();
  const sizes = () => Object.fromEntries(["receipts", "sessions", "wakes"].map((name) => [name, statSync(join(stateDir, `${name}.jsonl`)).size]));
  const sizesBefore = sizes();
  const outcomes: Record<string, unknown> = {};
  for (const log of ["receipts", "sessions", "wakes"] as const) outcomes[log] = await compactOneLog(peerpost, log);
  assert.deepEqual(reads(peerpost), before, "the same process reads the same");
  assert.deepEqual(reads(reopen()), before, "a new process reads the same");
  assert.deepEqual(newest(), newestBefore);
  const after = sizes();
  assert.equal(linesOf(join(stateDir, "receipts.jsonl")).length, 300, "the receipts of the last 30 days stay");
  assert.equal(linesOf(join(stateDir, "receipts.archive.jsonl")).length, 400, "the older ones are in the archive");
  assert.ok(linesOf(join(stateDir, "sessions.jsonl")).length <= 6 * 6 + 2, `the registry keeps a few records per session (${linesOf(join(stateDir, "sessions.jsonl")).length})`);
  assert.ok(!existsSync(join(stateDir, "sessions.archive.jsonl")) || linesOf(join(stateDir, "sessions.archive.jsonl")).length === 0, "superseded heartbeats are dropped, not archived");
  assert.ok(after.wakes! < sizesBefore.wakes! / 2 && after.sessions! < sizesBefore.sessions! / 4 && after.receipts! < sizesBefore.receipts! / 2, JSON.stringify({ sizesBefore, after }));
  // Again: nothing more leaves, and the reads still agree.
  for (const log of ["receipts", "sessions", "wakes"] as const) {
    const again = await compactOneLog(peerpost, log);
    assert.ok("movedLines" in again && again.movedLines === 0 && again.droppedLines === 0, `${log}: ${JSON.stringify(again)}`);
  }
  assert.deepEqual(reads(reopen()), before);
  // health reports each log's sizes and when it last compacted.
  const env = { ...process.env, PEERPOST_HOME: stateDir, HOME: join(stateDir, "..") };
  const health = await collect(spawn(process.execPath, [CLI, "health", "--json"], { env, stdio: ["ignore", "pipe", "pipe"] }));
  const storage = (JSON.parse(health.stdout) as { state: { storage: { compactedLogs: Record<string, { bytes: number; archiveBytes: number; lastCompacted: string | null }> } } }).state.storage.compactedLogs;
  assert.equal(storage.receipts!.bytes, after.receipts);
  assert.ok(storage.receipts!.archiveBytes > 0 && storage.wakes!.archiveBytes > 0);
  for (const log of ["receipts", "sessions", "wakes"]) assert.ok(storage[log]!.lastCompacted !== null, `${log} last compacted`);
  void clock;
});

test("a receipts cursor into the archive goes on there, and a page across both files reads in log order", async (t) => {
  const { peerpost, clock } = tempPeerpost(t, { PEERPOST_LOG_RETENTION_DAYS: "30" });
  writeReceipts(peerpost, clock.now - 60 * DAY, 20);
  writeReceipts(peerpost, clock.now - DAY, 5);
  const whole = peerpost.receipts.query({ limit: 100 }).receipts.map((receipt) => receipt.id);
  await compactOneLog(peerpost, "receipts");
  const newest = peerpost.receipts.latest(12).receipts.map((receipt) => receipt.id);
  assert.deepEqual(newest, whole.slice(0, 12).reverse(), "the web view's newest receipts reach into the archive");
  const first = peerpost.receipts.query({ limit: 8 });
  assert.equal(first.nextCursor?.startsWith("a"), true, "the page ended in the archive");
  const second = peerpost.receipts.query({ limit: 100, cursor: first.nextCursor });
  assert.deepEqual([...first.receipts, ...second.receipts].map((receipt) => receipt.id), whole);
  assert.throws(() => peerpost.receipts.query({ cursor: "b12" }), /not a cursor/);
});

for (const log of ["receipts", "sessions", "wakes"] as const)
  for (const fault of FAULTS)
    test(`a ${log} compaction killed (${fault}) reads as before, and the next one completes it`, async (t) => {
      const { stateDir, clock, reopen, reads } = await filledStore(t);
      const before = reads(reopen());
      // The next compactor takes the dead one's lock over once it is stale: after 2 s, the least there is.
      const env = { PEERPOST_NOW: String(clock.now), PEERPOST_LOG_RETENTION_DAYS: "30", PEERPOST_LOCK_STALE_MS: "2000" };
      const killed = await collect(spawnFixture("log-compactor", [stateDir, log], { ...env, PEERPOST_FAULT: fault }));
      assert.equal(killed.signal, "SIGKILL", killed.stderr);
      assert.deepEqual(reads(reopen()), before, "killed: reads as before");
      const done = await collect(spawnFixture("log-compactor", [stateDir, log], env));
      assert.equal(done.code, 0, done.stderr);
      assert.deepEqual(reads(reopen()), before, "completed: reads as before");
      assert.ok(!existsSync(join(stateDir, `${log}.jsonl.compacting.json`)), "the marker is gone");
    });

/**
 * Appenders (real child processes) write to `log` while compactors run on it: one killed with SIGKILL at
 * each step, one stopped with SIGSTOP while its marker stands and let go after the appenders wrote more,
 * and plain ones. Every acknowledged record is read once, and what was there before reads the same.
 */
async function appendersThroughCompactions(t: Parameters<typeof tempPeerpost>[0], log: CompactedLog, perAppender: number): Promise<void> {
  // Enough old receipts that a compaction's marker stands for a while (the stop lands inside it).
  const { stateDir, clock, reopen, reads } = await filledStore(t, log === "receipts" ? 20_000 : 400);
  const before = reads(reopen());
  const env = { PEERPOST_NOW: String(clock.now), PEERPOST_LOG_RETENTION_DAYS: "30", PEERPOST_LOCK_STALE_MS: "2000" };
  const appenders = ["a", "b"].map((tag) => collect(spawnFixture("log-appender", [stateDir, log, tag, String(perAppender)], env)));
  const marker = join(stateDir, `${log}.jsonl.compacting.json`);
  for (const fault of FAULTS) {
    const killed = await collect(spawnFixture("log-compactor", [stateDir, log], { ...env, PEERPOST_FAULT: fault }));
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
  }
  // Stopped while its marker stands (polled every millisecond), let go once the appenders wrote on.
  const stopped = spawnFixture("log-compactor", [stateDir, log], env);
  const ended = collect(stopped);
  let exited = false;
  void ended.then(() => (exited = true));
  while (!exited && !existsSync(marker)) await new Promise((resolve) => setTimeout(resolve, 1));
  stopped.kill("SIGSTOP");
  await new Promise((resolve) => setTimeout(resolve, 150));
  stopped.kill("SIGCONT");
  const result = await ended;
  assert.equal(result.code, 0, result.stderr);
  const plain = await collect(spawnFixture("log-compactor", [stateDir, log], env));
  assert.equal(plain.code, 0, plain.stderr);
  const acknowledged = (await Promise.all(appenders)).flatMap((result) => {
    assert.equal(result.code, 0, result.stderr);
    return result.stdout.trim().split("\n");
  });
  assert.equal(acknowledged.length, 2 * perAppender);
  const reader = reopen();
  if (log === "receipts") {
    const ids = reader.receipts.query({ limit: 1_000_000 }).receipts.map((receipt) => receipt.id);
    assert.equal(new Set(ids).size, ids.length, "no receipt twice");
    const seen = new Set(ids);
    assert.deepEqual(acknowledged.filter((id) => !seen.has(id)), [], "no acknowledged receipt lost");
    const appended = new Set(acknowledged);
    assert.deepEqual(ids.filter((id) => !appended.has(id)), (before.receipts as string[][])[0], "the receipts from before read as before, in order");
  } else if (log === "sessions") {
    const latest = new Map<string, number>();
    for (const line of acknowledged) {
      const [address, n] = line.split(" ");
      latest.set(address!, Math.max(latest.get(address!) ?? -1, Number(n)));
    }
    const entries = new Map(reader.sessions.all().map((entry) => [entry.address, entry]));
    for (const [address, n] of latest) assert.equal(entries.get(address)?.title, String(n), `${address} reads its latest registration`);
    const others = sessionReads(reader) as Array<{ address: string }>;
    assert.deepEqual(others.filter((entry) => !latest.has(entry.address)), (before.sessions as Array<{ address: string }>).filter((entry) => !latest.has(entry.address)), "the sessions from before read as before");
  } else {
    const runs = allRuns(reader);
    for (const id of acknowledged) assert.equal(runs.get(id)?.ended?.outcome, "ok", `run ${id} is read with its outcome`);
    assert.deepEqual(wakeReads(reader, clock.now), before.wakes);
  }
}

for (const log of ["receipts", "sessions", "wakes"] as const) {
  test(`${log}: appenders in child processes through compactions killed at each step and stopped halfway lose and duplicate nothing`, { timeout: 120_000 }, async (t) => {
    await appendersThroughCompactions(t, log, 60);
  });
  // One round: a second finds nothing old left to move, so its compactors never reach the step they are to die at.
  test(`${log}: the same with 400 appends from each appender`, { timeout: 600_000, skip: fullSuiteOnly(`400 appends each through the compactions of ${log}`) }, async (t) => {
    await appendersThroughCompactions(t, log, 400);
  });
}

test("corrupt lines stay in the live receipts and registry, neither archived nor dropped, wherever they are", async (t) => {
  const { peerpost, clock, stateDir } = tempPeerpost(t, { PEERPOST_LOG_RETENTION_DAYS: "30" });
  writeReceipts(peerpost, clock.now - 60 * DAY, 10);
  appendFileSync(peerpost.receipts.log.path, "{ a corrupt receipt\n");
  writeReceipts(peerpost, clock.now - 59 * DAY, 10);
  await heartbeats(peerpost, clock);
  appendFileSync(peerpost.sessions.log.path, "{ a corrupt session\n");
  await heartbeats(peerpost, clock);
  await compactOneLog(peerpost, "receipts");
  await compactOneLog(peerpost, "sessions");
  assert.deepEqual(linesOf(join(stateDir, "receipts.jsonl")), ["{ a corrupt receipt"]);
  assert.equal(linesOf(join(stateDir, "receipts.archive.jsonl")).length, 20);
  assert.ok(linesOf(join(stateDir, "sessions.jsonl")).includes("{ a corrupt session"));
  assert.equal(peerpost.sessions.corruptLines().count, 1);
});

test("a running server notices receipts passing PEERPOST_LOG_COMPACT_AT_BYTES and has them compacted by a detached run, without a restart", async (t) => {
  const { peerpost, clock, stateDir, home } = tempPeerpost(t, { PEERPOST_LOG_RETENTION_DAYS: "30" });
  const env = { PATH: "/usr/bin:/bin", HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now), PEERPOST_LOG_RETENTION_DAYS: "30", PEERPOST_LOG_COMPACT_AT_BYTES: "65536" };
  const session = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:a" });
  assert.equal((await session.call("health")).ok, true);
  const live = join(stateDir, "receipts.jsonl");
  const archive = join(stateDir, "receipts.archive.jsonl");
  // Written straight, as other processes on the machine append them, while the server runs.
  writeReceipts(peerpost, clock.now - 60 * DAY, 300);
  writeReceipts(peerpost, clock.now - DAY, 20);
  assert.ok(statSync(live).size > 65536);
  // The archive is written before the live file is swapped: both are waited for.
  await until(() => linesOf(archive).length === 300 && linesOf(live).length === 20, 30_000, "the old receipts in the archive, the recent ones live");
  assert.equal((await session.call("health")).ok, true, "the server still answers");
});

test("a session launched long ago is still known as launched once its launch run moved to the archive: its wakes pass peerpost's server again", async (t) => {
  const { peerpost, clock } = tempPeerpost(t, { PEERPOST_LOG_RETENTION_DAYS: "30" });
  const iso = (time: number) => new Date(time).toISOString();
  const old = clock.now - 90 * DAY;
  const records: WakeRecord[] = [];
  /** One ended run: a launch that names its session (Claude Code), one its host named (Codex: bound after), or a wake. */
  const run = (at: number, kind: "launch" | "wake", address: string, bound?: string) => {
    const id = ulid(at);
    records.push({ v: 1, type: "wake", id, kind, ...(bound === undefined ? { address, sessionId: address.split(":")[1]! } : {}), host: bound === undefined ? "claude-code" : "codex", cwd: "/tmp", messageIds: [], at: iso(at), deadline: iso(at + 600_000), by: 1 });
    if (bound !== undefined) records.push({ v: 1, type: "wake-bound", id, address: bound, sessionId: bound.split(":")[1]!, messageIds: [], at: iso(at + 1) });
    records.push({ v: 1, type: "wake-ended", id, outcome: "ok", at: iso(at + 2) });
  };
  run(old, "launch", "claude:launched");
  run(old + 60_000, "launch", "", "codex:named-by-host");
  run(old + 120_000, "wake", "claude:woken");
  // Woken since, lately: the launch is no longer the newest run of its session.
  run(clock.now - DAY, "wake", "claude:launched");
  appendFileSync(peerpost.wakes.log.path, records.map((record) => JSON.stringify(record)).join("\n") + "\n", { mode: 0o600 });
  const launched = () => ["claude:launched", "codex:named-by-host", "claude:woken", "claude:unknown"].map((address) => peerpost.wakes.launched(address));
  assert.deepEqual(launched(), [true, true, false, false]);
  const compacted = await compactOneLog(peerpost, "wakes");
  assert.ok("movedLines" in compacted && compacted.movedLines === 7, JSON.stringify(compacted));
  assert.deepEqual(launched(), [true, true, false, false], "the archive says which sessions were launched");
});

test("after a compaction of a large sessions registry, the next prompt hook has no index to rebuild", { timeout: 120_000 }, async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const peerpost = openPeerpost({ env, home });
  const sessions = 6000;
  // Each session registered by its hook, then its server, then resumed: the middle record is dropped by a compaction.
  for (const source of ["startup", "resume", "resume"] as const)
    for (let i = 0; i < sessions; i++) await peerpost.sessions.register({ host: "codex", address: `codex:s${i}`, sessionId: `s${i}`, source, cwd: "/work" }, { eventual: true });
  await peerpost.mailbox.send({ from: "codex:s1", fromVerified: true, to: "claude:me", body: "q?", anticipation: "reply" });
  // Readers index the registry on their way: up to date before the compaction.
  assert.match((await runHook("claude-code", "user-prompt", { session_id: "me", prompt: "hi" }, env)).stdout, /1 new message/);
  assert.equal(openPeerpost({ env, home }).sessions.index.lag(), 0);

  const [outcome] = await compactLogs(openPeerpost({ env, home }), ["sessions"]);
  assert.ok(outcome && "droppedLines" in outcome && outcome.droppedLines === sessions, JSON.stringify(outcome));
  const lag = openPeerpost({ env, home }).sessions.index.lag();
  const started = Date.now();
  const prompt = await runHook("claude-code", "user-prompt", { session_id: "me", prompt: "hi" }, env);
  const ms = Date.now() - started;
  assert.match(prompt.stdout, /1 new message/);
  assert.equal(lag, 0, `the compacted registry's index is left for the next hook to rebuild (that hook took ${ms} ms)`);
});
