// Compaction: finished messages older than the retention move to the archive, open ones never move,
// status/bodies/threads/tail read the archive, a kill -9 at each step (inside, or from outside as the step
// starts) reads as before or after (the claims and the task board too), and senders running through
// compactions lose and duplicate nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, closeSync, copyFileSync, cpSync, existsSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeSync } from "node:fs";
import { join } from "node:path";
import { cliEnv, tempPeerpost } from "./helpers/temp.js";
import { collect, spawnFixture } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { CLI, connect } from "./helpers/mcp.js";
import { spawn } from "node:child_process";
import { monotonicFactory } from "ulid";
import { openPeerpost, type Peerpost } from "../core/peerpost.js";
import type { PeerpostError } from "../core/common/errors.js";
import { isAlive } from "../core/sessions/process-tree.js";
import { fullSuiteOnly } from "./helpers/suite.js";
import { committedLines, observe, openIds, traffic } from "./helpers/old-traffic.js";
import { handWrittenLog } from "./helpers/hand-written-log.js";
import { liveTail } from "./helpers/tail.js";

const DAY = 86_400_000;

/** Compaction as it runs, and in rounds of one retired message each (what a log larger than a round's table takes). */
const ROUNDS: { name: string; env: Record<string, string> }[] = [
  { name: "", env: {} },
  { name: ", in rounds of one message", env: { PEERPOST_COMPACT_ROUND_MESSAGES: "1" } },
];


for (const rounds of ROUNDS) {
  test(`compaction moves finished old messages to the archive, keeps open ones, and every read stays the same${rounds.name}`, async (t) => {
    const { peerpost, clock, reopen, stateDir, home } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30", ...rounds.env });
    const ids = await traffic(peerpost, clock);
    const before = observe(reopen(), ids);
    const stillOpen = openIds(reopen(), ids);
    // The same log compacted at once, for the rounds to match.
    const atOnce = join(home, "at-once");
    cpSync(stateDir, atOnce, { recursive: true });
    await openPeerpost({ env: { PEERPOST_HOME: atOnce, PEERPOST_RETENTION_DAYS: "30" }, home, now: () => clock.now }).mailbox.compact();
    const result = await reopen().mailbox.compact();
    for (const file of ["mailbox.jsonl", "mailbox.archive.jsonl"]) assert.deepEqual(linesOf(join(stateDir, file)).sort(), linesOf(join(atOnce, file)).sort(), `${file}: the same lines as a compaction at once`);
    assert.ok(result.movedMessages > 0);
    assert.ok(result.liveBytesAfter < result.liveBytesBefore / 2, `live log ${result.liveBytesBefore} → ${result.liveBytesAfter}`);
    assert.equal(reopen().mailbox.archiveIndexLags(), false, "the compaction indexed the archive");
    assert.deepEqual(observe(reopen(), ids), before, "lookups through the archive's index");
    // Without the indexes, lookups scan the archive and the log, and see the same; indexing brings them back.
    rmSync(join(stateDir, "index"), { recursive: true });
    assert.equal(reopen().mailbox.archiveIndexLags(), true);
    assert.deepEqual(observe(reopen(), ids), before, "lookups by scanning");
    reopen().mailbox.indexAll();
    assert.equal(reopen().mailbox.archiveIndexLags(), false);
    const live = readFileSync(join(stateDir, "mailbox.jsonl"), "utf8");
    for (const id of stillOpen) assert.ok(live.includes(`"id":"${id}"`), `open message ${id} stays in the live log`);
    // A second compaction has nothing to move; the views of a new process match.
    assert.equal((await reopen().mailbox.compact()).movedMessages, 0);
    assert.deepEqual(observe(reopen(), ids), before);
  });
}

for (const [fault, rounds] of ["compact-after-marker", "compact-after-archive", "compact-after-rename"].flatMap((fault) => ROUNDS.map((rounds) => [fault, rounds] as const))) {
  test(`a compaction killed (${fault}) reads as before or after, and the next one completes it${rounds.name}`, async (t) => {
    const { peerpost, clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30", ...rounds.env });
    const ids = await traffic(peerpost, clock);
    const before = observe(reopen(), ids);
    const liveBefore = statSync(join(stateDir, "mailbox.jsonl")).size;
    const killed = await collect(spawnFixture("compactor", [stateDir], { PEERPOST_NOW: String(clock.now), PEERPOST_RETENTION_DAYS: "30", PEERPOST_FAULT: fault, ...rounds.env }));
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
    assert.deepEqual(observe(reopen(), ids), before, "reads as before or after");
    const done = await collect(spawnFixture("compactor", [stateDir], { PEERPOST_NOW: String(clock.now), PEERPOST_RETENTION_DAYS: "30", ...rounds.env }));
    assert.equal(done.code, 0, done.stderr);
    assert.deepEqual(observe(reopen(), ids), before);
    assert.ok(statSync(join(stateDir, "mailbox.jsonl")).size < liveBefore / 2);
    const live = readFileSync(join(stateDir, "mailbox.jsonl"), "utf8");
    assert.ok(!live.includes('"title":"after done"') && !live.includes('"paths":["src/1.ts"]'), "finished tasks and ended claims moved");
    assert.ok(live.includes('"title":"open"') && live.includes('"title":"waited on"') && live.includes('"paths":["src/standing.ts"]'), "the open task, what it waits on and the standing claim stayed");
  });
}

/**
 * A store of `count` old messages written straight into its log (a compaction has work enough to be
 * killed mid-way): four addresses, most requests read and resolved 60 days ago, every tenth still open.
 * Returns a sample of ids, open ones among them.
 */
function oldStore(stateDir: string, clock: { now: number }, count: number): string[] {
  const newId = monotonicFactory();
  const addresses = ["claude:a", "codex:b", "copilot:c", "grok:d"];
  const start = clock.now - 60 * DAY;
  const lines: string[] = [];
  const sample: string[] = [];
  for (let i = 0; i < count; i++) {
    const at = new Date(start + i * 100).toISOString();
    const id = newId(start + i * 100);
    const [from, to] = [addresses[i % 4]!, addresses[(i + 1) % 4]!];
    lines.push(JSON.stringify({ v: 1, type: "msg", id, from, fromVerified: true, to, sentAt: at, anticipation: "reply", conversationId: id, hop: 1, body: `old request ${i}` }));
    if (i % 10 !== 9) lines.push(JSON.stringify({ v: 1, type: "read", id, by: to, at }), JSON.stringify({ v: 1, type: "resolved", id, resolution: "done", by: to, at }));
    if (i % 6000 === 0 || i % 6000 === 9) sample.push(id);
  }
  appendFileSync(join(stateDir, "mailbox.jsonl"), `${lines.join("\n")}\n`, { mode: 0o600 });
  return sample;
}

/**
 * What readers of a large store see: every line the archive (up to its committed end) and the live log
 * hold, a few messages looked up, and each inbox's open requests. Lighter than `observe`: no threads,
 * whose lookups scan the whole store while its index lags as far as a killed compaction leaves it.
 */
function observeLines(peerpost: Peerpost, sample: string[]): unknown {
  const { mailbox } = peerpost;
  const messages = sample.map((id) => {
    const message = mailbox.find(id);
    assert.ok(message, `message ${id} is found`);
    return { id, status: mailbox.status(message), body: mailbox.body(message) };
  });
  const open = ["claude:a", "codex:b", "copilot:c", "grok:d"].map((address) => mailbox.inbox(address).filter((entry) => entry.status !== "done").length);
  return { lines: committedLines(peerpost), messages, open };
}

test("a compactor killed with SIGKILL from outside as each step of its moves starts reads as before every time, and the next one completes it", { timeout: 300_000, skip: fullSuiteOnly("kills a compactor of 30,000 messages at each step") }, async (t) => {
  const { clock, stateDir: pristine, home } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const ids = oldStore(pristine, clock, 30_000);
  // The next compactor takes the dead one's lock over once it is stale: after 2 s, the least there is.
  const env = { PEERPOST_NOW: String(clock.now), PEERPOST_RETENTION_DAYS: "30", PEERPOST_LOCK_STALE_MS: "2000" };
  const open = (stateDir: string) => openPeerpost({ env: { PEERPOST_HOME: stateDir, PEERPOST_RETENTION_DAYS: "30" }, home, now: () => clock.now });
  /** A copy of the untouched store (a reader leaves an index and snapshots behind it, thousands of files to copy). */
  const copy = (name: string) => {
    const stateDir = join(home, name);
    cpSync(pristine, stateDir, { recursive: true });
    return stateDir;
  };
  const before = observeLines(open(copy("read")), ids);
  const liveBefore = statSync(join(pristine, "mailbox.jsonl")).size;
  const marker = (stateDir: string) => join(stateDir, "mailbox.jsonl.compacting.json");
  /** Polls every millisecond (the moves take a few hundred) until `done`; false if the child exited first. */
  const poll = async (done: () => boolean, exited: () => boolean): Promise<boolean> => {
    for (const deadline = Date.now() + 60_000; !done(); await new Promise((resolve) => setTimeout(resolve, 1))) {
      if (exited()) return false;
      if (Date.now() > deadline) throw new Error("timed out waiting for the compaction");
    }
    return true;
  };
  /** When to kill a compactor: asked with its copy, the ms since its marker appeared, and the live file it started on. */
  type Kill = (compaction: { stateDir: string; markedMs: number; liveIno: number }) => boolean;
  /**
   * A compactor on a fresh copy of the store, killed once `kill` says so (polled every millisecond from when
   * its marker appeared, its moves began); without one, how long the marker stands.
   */
  const compactCopy = async (name: string, kill?: Kill) => {
    const stateDir = copy(name);
    const liveIno = statSync(join(stateDir, "mailbox.jsonl")).ino;
    const child = spawnFixture("compactor", [stateDir], env);
    let exited = false;
    const ended = collect(child).finally(() => (exited = true));
    assert.ok(await poll(() => existsSync(marker(stateDir)), () => exited), "the compaction wrote its marker");
    const moving = Date.now();
    if (kill) {
      if (await poll(() => kill({ stateDir, markedMs: Date.now() - moving, liveIno }), () => exited)) child.kill("SIGKILL");
    } else await poll(() => !existsSync(marker(stateDir)), () => exited);
    const markedFor = Date.now() - moving;
    return { stateDir, result: await ended, markedFor };
  };
  // Once uninterrupted: how long the marker stands here (archive written, new file copied, renamed in, old tail brought over).
  const whole = await compactCopy("uninterrupted");
  assert.equal(whole.result.code, 0, whole.result.stderr);
  const sizeOf = (path: string) => (existsSync(path) ? statSync(path).size : 0);
  const readQuietly = (path: string) => {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return "";
    }
  };
  // Kills at the moments each step starts: the moves' first bytes in the archive, the marker naming the
  // copied tail (the old file linked, the rename next), the new file renamed in (the old tail brought over
  // next); and halfway through the marker's time, while the moves are read and decided.
  const kills: Record<string, Kill> = {
    "halfway through the moves": ({ markedMs }) => markedMs >= whole.markedFor / 2,
    "once the archive grows": ({ stateDir }) => sizeOf(join(stateDir, "mailbox.archive.jsonl")) > 0,
    "once the tail is copied, before the rename": ({ stateDir }) => readQuietly(marker(stateDir)).includes("copiedUpTo"),
    "once the new file is renamed in": ({ stateDir, liveIno }) => statSync(join(stateDir, "mailbox.jsonl")).ino !== liveIno,
  };
  let killedMarked = 0;
  for (const [when, kill] of Object.entries(kills)) {
    const { stateDir, result } = await compactCopy(`killed ${when}`, kill);
    // A step shorter than a poll may pass unseen, and the compaction end first: it must read the same all the same.
    if (result.signal !== "SIGKILL") assert.equal(result.code, 0, result.stderr);
    if (existsSync(marker(stateDir))) killedMarked++;
    assert.deepEqual(observeLines(open(stateDir), ids), before, `killed ${when}: reads as before`);
    const done = await collect(spawnFixture("compactor", [stateDir], env));
    assert.equal(done.code, 0, done.stderr);
    assert.deepEqual(observeLines(open(stateDir), ids), before, `the next compaction after being killed ${when}`);
    assert.ok(!existsSync(marker(stateDir)), "the next compaction clears the marker");
    assert.ok(statSync(join(stateDir, "mailbox.jsonl")).size < liveBefore / 4, "and finishes the moves");
  }
  assert.ok(killedMarked > 0, "at least one kill left a compaction under way");
});

test("after a compaction died past its rename, readers bring the old file's tail over once each, touch nothing of the lock holder's, and skip an old file that is not the swap's", async (t) => {
  const { peerpost, clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  await traffic(peerpost, clock);
  const killed = await collect(spawnFixture("compactor", [stateDir], { PEERPOST_NOW: String(clock.now), PEERPOST_RETENTION_DAYS: "30", PEERPOST_FAULT: "compact-after-rename" }));
  assert.equal(killed.signal, "SIGKILL", killed.stderr);
  const live = join(stateDir, "mailbox.jsonl");
  const old = `${live}.old`;
  const marker = `${live}.compacting.json`;
  // A line a plain appender wrote into the old file after the compactor's last copy, and was acknowledged.
  const elsewhere = tempPeerpost(t);
  const lineOf = async (body: string) => {
    await elsewhere.peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body, anticipation: "reply" });
    return readFileSync(join(elsewhere.stateDir, "mailbox.jsonl"), "utf8").trim().split("\n").at(-1)! + "\n";
  };
  appendFileSync(old, await lineOf("written to the old file"));
  const reader = reopen();
  const inbox = () => reader.mailbox.inbox("codex:b").map((entry) => entry.body);
  // A bring-over that fails once (the old file briefly a looping link here; a busy server out of descriptors) is tried again.
  renameSync(old, `${old}.aside`);
  symlinkSync(old, old);
  assert.throws(() => inbox());
  renameSync(`${old}.aside`, old);
  assert.ok(inbox().includes("written to the old file"));
  const size = statSync(live).size;
  for (let i = 0; i < 3; i++) inbox();
  assert.equal(statSync(live).size, size, "one process brings a swap over once");
  assert.ok(existsSync(marker) && existsSync(old), "the marker and the old file wait for the lock holder");
  // Under the old name, another file than the swap's (a later compaction's): nothing of it is copied.
  const stranger = `${old}.stranger`;
  copyFileSync(old, stranger);
  appendFileSync(stranger, await lineOf("not the swap's"));
  renameSync(stranger, old);
  assert.ok(!reopen().mailbox.inbox("codex:b").some((entry) => entry.body === "not the swap's"));
  const done = await collect(spawnFixture("compactor", [stateDir], { PEERPOST_NOW: String(clock.now), PEERPOST_RETENTION_DAYS: "30" }));
  assert.equal(done.code, 0, done.stderr);
  assert.ok(!existsSync(marker) && !existsSync(old), "the next compaction clears the marker and the old file");
  assert.deepEqual(reopen().mailbox.inbox("codex:b").filter((entry) => entry.body === "written to the old file").length, 1);
});

test("doctor reports a compaction that died and the archive; compact finishes it", async (t) => {
  const temp = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const { peerpost, clock, stateDir } = temp;
  await traffic(peerpost, clock);
  const env = cliEnv(temp, { PEERPOST_RETENTION_DAYS: "30" });
  const killed = await collect(spawnFixture("compactor", [stateDir], { ...env, PEERPOST_FAULT: "compact-after-archive" }));
  assert.equal(killed.signal, "SIGKILL", killed.stderr);
  const marker = join(stateDir, "mailbox.jsonl.compacting.json");
  const old = new Date(Date.now() - 5 * 60_000);
  utimesSync(marker, old, old);
  const doctor = async () => {
    const result = await collect(spawn(process.execPath, [CLI, "doctor", "--json"], { env, stdio: ["ignore", "pipe", "pipe"] }));
    return JSON.parse(result.stdout) as { state: { storage: { compactionInterrupted: boolean; archive: { bytes: number; indexed: boolean } } }; problems: Array<{ problem: string; fix: string }> };
  };
  const sick = await doctor();
  assert.equal(sick.state.storage.compactionInterrupted, true);
  assert.match(sick.problems.map((entry) => `${entry.problem} → ${entry.fix}`).join("\n"), /compaction of the mailbox stopped before it finished.*peerpost compact/);
  const compacted = await collect(spawn(process.execPath, [CLI, "compact"], { env, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(compacted.code, 0, compacted.stderr);
  const well = await doctor();
  assert.equal(well.state.storage.compactionInterrupted, false);
  assert.ok(well.state.storage.archive.bytes > 0, "the archive is reported");
  assert.equal(well.state.storage.archive.indexed, true, "the compaction indexed the archive");
  assert.ok(!well.problems.some((entry) => /compaction|archive/.test(entry.problem)));
  // An archive without its index (deleted, or from before it existed) is reported; the next compaction indexes it, even with nothing to move.
  rmSync(join(stateDir, "index", "archive"), { recursive: true });
  const unindexed = await doctor();
  assert.equal(unindexed.state.storage.archive.indexed, false);
  assert.match(unindexed.problems.map((entry) => `${entry.problem} → ${entry.fix}`).join("\n"), /archive's index does not reach its end.*peerpost compact/);
  assert.equal((await collect(spawn(process.execPath, [CLI, "compact"], { env, stdio: ["ignore", "pipe", "pipe"] }))).code, 0);
  assert.equal((await doctor()).state.storage.archive.indexed, true);
});

test("senders running through repeated compactions lose and duplicate nothing", { timeout: 120_000, skip: fullSuiteOnly("senders through repeated compactions") }, async (t) => {
  const { peerpost, clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  await traffic(peerpost, clock);
  const senders = Array.from({ length: 4 }, (_, i) => collect(spawnFixture("append-worker", [stateDir, `claude:s${i}`, "codex:sink", "150"])));
  for (let round = 0; round < 3; round++) {
    const compaction = await collect(spawnFixture("compactor", [stateDir], { PEERPOST_NOW: String(clock.now + round * DAY), PEERPOST_RETENTION_DAYS: "30" }));
    assert.equal(compaction.code, 0, compaction.stderr);
  }
  const results = await Promise.all(senders);
  const acknowledged = results.flatMap((result) => {
    assert.equal(result.code, 0, result.stderr);
    return result.stdout.trim().split("\n");
  });
  assert.equal(acknowledged.length, 600);
  const inbox = reopen().mailbox.inbox("codex:sink").map((entry) => entry.message.id);
  assert.equal(inbox.length, 600);
  assert.deepEqual(new Set(inbox), new Set(acknowledged));
});

test("a process compacts by itself once the live log passes PEERPOST_COMPACT_AT_BYTES", async (t) => {
  const { peerpost, clock, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "1", PEERPOST_COMPACT_AT_BYTES: "65536" });
  const { mailbox } = peerpost;
  for (let i = 0; i < 40; i++) {
    const { message } = await mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "x".repeat(2000), anticipation: "reply" });
    await mailbox.resolve({ id: message.id, by: "codex:b", resolution: "done" });
  }
  clock.now += 2 * DAY;
  const live = join(stateDir, "mailbox.jsonl");
  const before = statSync(live).size;
  assert.ok(before > 65536);
  await mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "the one past the size" });
  await until(() => statSync(live).size < before / 10, 10_000, "the automatic compaction");
  assert.deepEqual(mailbox.inbox("codex:b").map((entry) => entry.body), ["the one past the size"]);
});

test("peerpost compact --json reports what moved, and tail --from-start still prints the archived messages", async (t) => {
  const temp = tempPeerpost(t);
  const ids = await traffic(temp.peerpost, temp.clock);
  const env = cliEnv(temp);
  const run = (...args: string[]) => collect(spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] }));
  const result = await run("compact", "--json");
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout) as { ok: boolean; movedMessages: number; liveBytesAfter: number; liveBytesBefore: number; retentionDays: number };
  assert.equal(report.ok, true);
  assert.equal(report.retentionDays, 30);
  assert.ok(report.movedMessages > 0 && report.liveBytesAfter < report.liveBytesBefore);
  const tail = liveTail(t, env);
  await until(() => ids.every((id) => tail.out.printed.includes(`"id":"${id}"`)), 10_000, "every message, archived or live, in tail --from-start");
  await tail.stop();
});

test("a live tail goes on across compactions: every line after its start once, in order, even when it was stopped through the swap", async (t) => {
  const temp = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const { peerpost, clock } = temp;
  await traffic(peerpost, clock);
  const env = cliEnv(temp);
  // From the start, so that nothing rests on when it began; only this test's lines are compared.
  const tail = liveTail(t, env);
  const bodies = () => tail.bodies(/^(before|after|unread|late) /);
  const send = async (body: string) => void (await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body, anticipation: "reply" }));
  const sent: string[] = [];
  // Running: lines before and after a compaction.
  for (const body of ["before #1", "before #2"]) sent.push(body), await send(body);
  await until(() => bodies().length === sent.length, 10_000, "the tail to show the first lines");
  assert.ok((await peerpost.mailbox.compact()).movedMessages > 0);
  for (const body of ["after #1", "after #2"]) sent.push(body), await send(body);
  await until(() => bodies().length >= sent.length, 10_000, "the tail to show the lines after the compaction");
  // Stopped through a swap: what it had not read yet is read from the old file, then the new one goes on.
  tail.child.kill("SIGSTOP");
  for (const body of ["unread #1", "unread #2"]) sent.push(body), await send(body);
  clock.now += 40 * DAY;
  for (const id of peerpost.mailbox.inbox("codex:b").map((entry) => entry.message.id)) await peerpost.mailbox.resolve({ id, by: "codex:b", resolution: "done" });
  const marks = tail.out.printed.length;
  clock.now += 40 * DAY;
  assert.ok((await peerpost.mailbox.compact()).movedMessages > 0);
  for (const body of ["late #1", "late #2"]) sent.push(body), await send(body);
  tail.child.kill("SIGCONT");
  await until(() => bodies().includes("late #2"), 10_000, "the stopped tail to catch up");
  assert.ok(tail.out.printed.length > marks);
  assert.deepEqual(bodies(), sent, "each line once, in order");
  assert.equal(tail.out.warned, "");
  await tail.stop();
});

test("a tail that finds no record of a swap says so, shows the old file to its end, and goes on at the new file's end", async (t) => {
  const temp = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const { peerpost, clock, stateDir } = temp;
  await traffic(peerpost, clock);
  const env = cliEnv(temp);
  const tail = liveTail(t, env);
  const bodies = () => tail.bodies(/^(unread|late) /);
  await until(() => tail.out.printed.includes('"body":"new #4"'), 10_000, "the tail to show the existing mail");
  tail.child.kill("SIGSTOP");
  await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "unread #1", anticipation: "reply" });
  assert.ok((await peerpost.mailbox.compact()).movedMessages > 0);
  rmSync(join(stateDir, "mailbox.jsonl.swapped.json"));
  tail.child.kill("SIGCONT");
  await until(() => /without a record of where it continues/.test(tail.out.warned), 10_000, "the tail to say it skips to the end");
  await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "late #1", anticipation: "reply" });
  await until(() => bodies().includes("late #1"), 10_000, "the tail to go on in the new file");
  assert.deepEqual(bodies(), ["unread #1", "late #1"], "the old file's last line once, then the new file's new lines");
  await tail.stop();
});

function linesOf(path: string): string[] {
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : [];
}

test("a message resolved before the retention moves unless a later line could still change that: a first read or a reminder since the cutoff keeps it; older ones, deliveries, notices and repeats do not", async (t) => {
  const { clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const old = clock.now - 40 * DAY;
  const recent = clock.now - DAY;
  const log = handWrittenLog(stateDir);
  const plain = log.msg(old);
  log.event("read", plain, old, { by: "codex:b" });
  log.event("resolved", plain, old + 1, { resolution: "done", by: "codex:b" });
  const readLate = log.msg(old);
  log.event("resolved", readLate, old + 1, { resolution: "done", by: "codex:b" });
  const remindedLate = log.msg(old);
  log.event("resolved", remindedLate, old + 1, { resolution: "decline", by: "codex:b" });
  const readLateButOld = log.msg(old);
  log.event("resolved", readLateButOld, old + 1, { resolution: "done", by: "codex:b" });
  log.event("read", readLateButOld, old + 2, { by: "codex:b" });
  const repeated = log.msg(old);
  log.event("read", repeated, old, { by: "codex:b" });
  log.event("resolved", repeated, old + 1, { resolution: "done", by: "codex:b" });
  // Later lines, recent: the first read and the reminder count for the last activity; the rest change nothing.
  log.event("read", readLate, recent, { by: "codex:b" });
  log.event("reminder", remindedLate, recent, { n: 1, via: "hook" });
  log.event("delivered", repeated, recent, { via: "channel" });
  log.event("noticed", repeated, recent, { via: "stop-hook" });
  log.event("read", repeated, recent, { by: "codex:b" });
  log.event("resolved", repeated, recent, { resolution: "decline", by: "codex:b" });
  log.write();

  const result = await reopen().mailbox.compact();
  const archived = linesOf(join(stateDir, "mailbox.archive.jsonl")).join("\n");
  const live = linesOf(log.path).join("\n");
  for (const id of [plain, readLateButOld, repeated]) assert.ok(archived.includes(id) && !live.includes(id), `${id} moves with all its lines`);
  for (const id of [readLate, remindedLate]) assert.ok(live.includes(id) && !archived.includes(id), `${id} stays: its last activity is recent`);
  assert.equal(result.movedMessages, 3);
  assert.equal(reopen().mailbox.status(reopen().mailbox.find(repeated)!), "done", "the first resolution still stands after the move");
});

for (const rounds of ROUNDS) {
  test(`a reply that a later, losing resolution names goes where its request goes: the fold drops it from the mail before and after${rounds.name}`, async (t) => {
    const { clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30", ...rounds.env });
    const old = clock.now - 40 * DAY;
    const log = handWrittenLog(stateDir);
    const request = log.msg(old);
    const answer = log.msg(old + 1, { from: "codex:b", to: "claude:a", anticipation: "fyi", inReplyTo: request });
    log.event("resolved", request, old + 1, { resolution: "reply", replyId: answer, by: "codex:b" });
    log.event("read", answer, old + 2, { by: "claude:a" });
    const lostAnswer = log.msg(old + 3, { from: "codex:b", to: "claude:a", anticipation: "fyi", inReplyTo: request });
    log.event("read", lostAnswer, old + 4, { by: "claude:a" });
    log.event("resolved", request, old + 3, { resolution: "reply", replyId: lostAnswer, by: "codex:b" });
    // A reply resolved before the losing resolution that drops it; then a recent message answering that dropped reply.
    const other = log.msg(old + 5);
    const resolvedThenDropped = log.msg(old + 6, { from: "codex:b", to: "claude:a", anticipation: "fyi", inReplyTo: other });
    log.event("resolved", other, old + 6, { resolution: "done", by: "codex:b" });
    log.event("resolved", resolvedThenDropped, old + 7, { resolution: "done", by: "claude:a" });
    log.event("resolved", other, old + 8, { resolution: "reply", replyId: resolvedThenDropped, by: "codex:b" });
    const recentAnswer = log.msg(clock.now - DAY, { anticipation: "fyi", inReplyTo: resolvedThenDropped });
    log.event("resolved", resolvedThenDropped, clock.now - DAY, { resolution: "reply", replyId: recentAnswer, by: "claude:a" });
    // A losing resolution naming a message that answers something else: the fold drops nothing, the message stays open.
    const unrelated = log.msg(clock.now - DAY, { from: "codex:c", to: "claude:a" });
    log.event("resolved", other, old + 9, { resolution: "reply", replyId: unrelated, by: "codex:b" });
    log.write();
    const droppedFromFold = () => reopen().mailbox.view("claude:a").state.messages[lostAnswer] === undefined && reopen().mailbox.find(lostAnswer) === undefined;
    assert.ok(droppedFromFold(), "the fold drops the reply of the losing resolution, and a lookup by id finds nothing");
    const thread = () => reopen().mailbox.thread(request).map((message) => message.id);
    assert.deepEqual(thread(), [request, answer]);

    await reopen().mailbox.compact();
    const archived = linesOf(join(stateDir, "mailbox.archive.jsonl")).join("\n");
    const live = linesOf(log.path).join("\n");
    for (const id of [request, answer, lostAnswer]) assert.ok(archived.includes(`"id":"${id}"`) && !live.includes(`"id":"${id}"`), `${id} moves`);
    assert.ok(droppedFromFold(), "the dropped reply does not turn up as mail in the live log, nor by id in the archive");
    assert.deepEqual(thread(), [request, answer], "nor in the thread, read from the archive");
    for (const id of [other, resolvedThenDropped]) assert.ok(archived.includes(`"id":"${id}"`) && !live.includes(`"id":"${id}"`), `${id} moves`);
    for (const id of [recentAnswer, unrelated]) assert.ok(live.includes(`"type":"msg","id":"${id}"`) && !archived.includes(`"type":"msg","id":"${id}"`), `${id}, recent mail, stays`);
    assert.ok(reopen().mailbox.view("claude:a").state.messages[unrelated], "the open message is still mail");
    assert.equal(reopen().mailbox.find(request)?.resolved?.replyId, answer);
  });
}

for (const rounds of ROUNDS) {
  test(`a send that repeated an idempotency key is no message, looked up by id or folded, before or after it moves with the first${rounds.name}`, async (t) => {
    const { clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30", ...rounds.env });
    const old = clock.now - 40 * DAY;
    const log = handWrittenLog(stateDir);
    // The same key twice from one sender (a lock taken over mid-send): the first in log order is the message.
    const keyed = log.msg(old, { anticipation: "fyi", idempotencyKey: "job-7" });
    const repeated = log.msg(old + 1, { anticipation: "fyi", idempotencyKey: "job-7" });
    const otherSender = log.msg(old + 2, { from: "codex:b", to: "claude:a", anticipation: "fyi", idempotencyKey: "job-7" });
    // Read long ago: finished fyi mail, which the compaction moves.
    for (const id of [keyed, repeated]) log.event("read", id, old + 3, { by: "codex:b" });
    log.event("read", otherSender, old + 3, { by: "claude:a" });
    log.write();
    const expectFolded = (where: string) => {
      const mailbox = reopen().mailbox;
      assert.deepEqual([keyed, repeated, otherSender].map((id) => mailbox.find(id)?.id ?? null), [keyed, null, otherSender], `looked up by id ${where}`);
      for (const address of ["claude:a", "codex:b"]) assert.equal(mailbox.view(address).state.messages[repeated], undefined, `not mail for ${address} ${where}`);
    };
    expectFolded("in the live log");

    await reopen().mailbox.compact();
    const archived = linesOf(join(stateDir, "mailbox.archive.jsonl")).join("\n");
    const live = linesOf(log.path).join("\n");
    for (const [name, id] of Object.entries({ keyed, repeated, otherSender })) assert.ok(archived.includes(`"id":"${id}"`) && !live.includes(`"id":"${id}"`), `${name} moved`);
    expectFolded("in the archive");
  });
}

test("an expired request moved to the archive can still be resolved once: the lookup folds the live resolution with the archived message, through the indexes or by scanning", async (t) => {
  const { peerpost, clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const { message } = await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "still needed?", anticipation: "reply", replyBy: new Date(clock.now + 60_000).toISOString() });
  clock.now += 40 * DAY;
  assert.equal((await reopen().mailbox.compact()).movedMessages, 1, "the expired request moves");
  assert.equal(reopen().mailbox.status(reopen().mailbox.find(message.id)!), "expired");
  const resolved = await reopen().mailbox.resolve({ id: message.id, by: "codex:b", resolution: "reply", text: "no longer" });
  assert.equal(resolved.message.resolved?.resolution, "reply", "the resolution reads back from the archive");
  // The live index covers the resolution: a lookup through it must still see it.
  reopen().mailbox.indexAll();
  assert.equal(reopen().mailbox.indexLag().lagBytes, 0);
  for (const lookUp of ["indexed", "scanning"]) {
    if (lookUp === "scanning") rmSync(join(stateDir, "index"), { recursive: true });
    const mailbox = reopen().mailbox;
    assert.equal(mailbox.find(message.id)?.resolved?.replyId, resolved.reply!.id, lookUp);
    assert.deepEqual(mailbox.thread(message.id).map((entry) => entry.id), [message.id, resolved.reply!.id], lookUp);
    await assert.rejects(mailbox.resolve({ id: message.id, by: "codex:b", resolution: "done" }), (error: PeerpostError) => error.code === "already_resolved", lookUp);
  }
});

test("a lookup of an archived message folds what another writer appended a moment before, even right after the same lookup", async (t) => {
  const { peerpost, clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const { message } = await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "still needed?", anticipation: "reply", replyBy: new Date(clock.now + 60_000).toISOString() });
  clock.now += 40 * DAY;
  assert.equal((await reopen().mailbox.compact()).movedMessages, 1);
  const { mailbox } = reopen();
  // Reads of the archive's lines: the message's own, once for its status and its thread.
  let archivedReads = 0;
  const readLinesAt = mailbox.archive.readLinesAt.bind(mailbox.archive);
  mailbox.archive.readLinesAt = (...args) => {
    archivedReads++;
    return readLinesAt(...args);
  };
  assert.equal(mailbox.status(mailbox.find(message.id)!), "expired");
  assert.equal(mailbox.thread(message.id).length, 1);
  assert.equal(archivedReads, 1, "the message's archived lines, read once");
  // Another process's resolution lands between two lookups of one turn (a status, then its thread).
  appendFileSync(join(stateDir, "mailbox.jsonl"), `${JSON.stringify({ v: 1, type: "resolved", id: message.id, resolution: "done", by: "codex:b", at: new Date(clock.now).toISOString() })}\n`);
  assert.equal(mailbox.find(message.id)?.resolved?.resolution, "done");
  assert.equal(mailbox.thread(message.id)[0]?.resolved?.resolution, "done");
});

test("a compaction of more lines than it decides at once puts every line once, in order, in the archive or the live log, corrupt ones in the live log", async (t) => {
  const { clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const old = clock.now - 40 * DAY;
  const log = handWrittenLog(stateDir);
  const open = new Set<string>();
  for (let i = 0; i < 12_000; i++) {
    const id = log.msg(old + i);
    if (i % 1000 === 7) {
      open.add(id);
      continue;
    }
    log.event("read", id, old + i, { by: "codex:b" });
    log.event("resolved", id, old + i, { resolution: "done", by: "codex:b" });
    // Corrupt lines around where a batch of lines ends (every 20,000): kept, never moved or dropped.
    if (i === 6_666 || i === 6_667) log.lines.push(`{"v":1,"type":"read","id":"${id}","by":"codex:b"`, `not json at all ${i}`);
  }
  log.write();
  const original = linesOf(log.path);

  const result = await reopen().mailbox.compact();
  const archived = linesOf(join(stateDir, "mailbox.archive.jsonl"));
  const live = linesOf(log.path);
  assert.equal(archived.length + live.length, original.length, "no line lost or copied twice");
  assert.equal(result.movedLines, archived.length);
  assert.equal(result.keptLines, live.length);
  assert.equal(result.movedMessages, 12_000 - open.size);
  // Each file keeps the original order: merging them back by position gives the original log.
  const position = new Map(original.map((line, index) => [line, index]));
  for (const lines of [archived, live]) lines.forEach((line, index) => index > 0 && assert.ok(position.get(line)! > position.get(lines[index - 1]!)!, "in log order"));
  assert.deepEqual([...archived, ...live].sort(), [...original].sort());
  assert.equal(live.filter((line) => line.startsWith("not json at all") || line.endsWith('"by":"codex:b"')).length, 4, "the corrupt lines stay");
  const liveIds = new Set(live.flatMap((line) => /"type":"msg","id":"(\w+)"/.exec(line)?.[1] ?? []));
  assert.deepEqual(liveIds, open, "only the open messages stay");
});

test("a corrupt line far longer than a record stays in the live log byte for byte, copied in pieces: the compaction never holds it whole", async (t) => {
  const { clock, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const old = clock.now - 40 * DAY;
  const finished = (at: number) => {
    const log = handWrittenLog(stateDir);
    const id = log.msg(at);
    log.event("resolved", id, at, { resolution: "done", by: "codex:b" });
    log.write();
    return id;
  };
  finished(old);
  // 128 MiB with no line end but the last, between two finished messages.
  const LONG = 128 << 20;
  const fd = openSync(join(stateDir, "mailbox.jsonl"), "a");
  const piece = Buffer.alloc(1 << 20, 0x78);
  for (let written = 0; written < LONG; written += piece.length) writeSync(fd, piece);
  writeSync(fd, "\n");
  closeSync(fd);
  finished(old + 1000);
  const run = await collect(spawnFixture("compactor", [stateDir], { PEERPOST_NOW: String(clock.now), PEERPOST_RETENTION_DAYS: "30" }));
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout) as { movedMessages: number; keptLines: number; liveBytesAfter: number; peakRssKiB: number };
  assert.equal(result.movedMessages, 2);
  assert.equal(result.keptLines, 1, "the long line, counted once");
  assert.equal(result.liveBytesAfter, LONG + 1);
  // Whole, it took twice its size (its pieces, then them joined): 256 MiB over the process's own.
  assert.ok(result.peakRssKiB < 200 * 1024, `peak RSS ${Math.round(result.peakRssKiB / 1024)} MiB`);
  const live = openSync(join(stateDir, "mailbox.jsonl"), "r");
  try {
    const read = Buffer.alloc(1 << 20);
    for (let position = 0; position < LONG; position += read.length) {
      readSync(live, read, 0, read.length, position);
      assert.ok(read.equals(piece), `byte for byte at ${position}`);
    }
  } finally {
    closeSync(live);
  }
});

/** Old traffic, all finished, in 40 messages of 2 KB: past a 64 KiB compaction size. */
async function finishedTraffic(peerpost: Peerpost): Promise<void> {
  for (let i = 0; i < 40; i++) {
    const { message } = await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "x".repeat(2000), anticipation: "reply" });
    await peerpost.mailbox.resolve({ id: message.id, by: "codex:b", resolution: "done" });
  }
}

test("a server past PEERPOST_COMPACT_AT_BYTES compacts in a detached run: one killed there leaves the server answering and the mailbox reading as before", async (t) => {
  const temp = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "1" });
  const { peerpost, clock, stateDir } = temp;
  await finishedTraffic(peerpost);
  await peerpost.sessions.register({ host: "codex", address: "codex:b", sessionId: "b", source: "startup" });
  clock.now += 2 * DAY;
  const live = join(stateDir, "mailbox.jsonl");
  const before = readFileSync(live);
  const env = cliEnv(temp, { PEERPOST_RETENTION_DAYS: "1", PEERPOST_COMPACT_AT_BYTES: "65536" });
  // The fault kills whichever process compacts, after its archive step: a compaction in the server would kill it.
  const session = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:a", PEERPOST_FAULT: "compact-after-archive" });
  assert.equal((await session.call("message", { to: "codex:b", message: "the one past the size" })).ok, true);
  const marker = `${live}.compacting.json`;
  const runFile = join(stateDir, "index-run.pid");
  await until(() => existsSync(marker) && existsSync(runFile) && !isAlive(Number(readFileSync(runFile, "utf8"))), 20_000, "the detached compaction to die after its archive step");
  assert.equal((await session.call("health")).ok, true, "the server still answers");
  assert.ok(readFileSync(live).subarray(0, before.length).equals(before), "the live log reads as before");
  assert.equal(temp.reopen().mailbox.inbox("codex:b").filter((entry) => entry.status === "queued").length, 1);
  // The next compaction completes it.
  const done = await collect(spawn(process.execPath, [CLI, "compact"], { env, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(done.code, 0, done.stderr);
  assert.ok(statSync(live).size < before.length / 10 && !existsSync(marker));
});

test("past the size, a process calls for a compaction again only after an hour, or a quarter of the size more than it last saw or a compaction left", async (t) => {
  const { peerpost, clock, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "1", PEERPOST_COMPACT_AT_BYTES: "65536" });
  const { mailbox } = peerpost;
  const live = join(stateDir, "mailbox.jsonl");
  let calls = 0;
  mailbox.compactElsewhere(() => (calls++, true));
  const send = (bytes: number, anticipation: "fyi" | "reply" = "fyi") => mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "y".repeat(bytes), anticipation });
  await finishedTraffic(peerpost);
  let expected = calls;
  assert.ok(expected >= 1, "the sends past the size called for one");
  for (let i = 0; i < 5; i++) await send(100);
  assert.equal(calls, expected, "a log past the size that nothing shrank is not read whole at every send");
  await send(17_000);
  assert.equal(calls, ++expected, "a quarter of the size more calls again");
  clock.now += 61 * 60_000;
  await send(100);
  assert.equal(calls, ++expected, "an hour later: messages may have aged past the retention");

  clock.now += 2 * DAY;
  await mailbox.compact();
  await send(100);
  assert.ok(statSync(live).size < 65536, "below the size after the swap: nothing to call for");
  // One old finished request, then the log past the size again: a compaction that moves only it leaves the log past the size.
  const { message } = await send(100, "reply");
  await mailbox.resolve({ id: message.id, by: "codex:b", resolution: "done" });
  clock.now += 2 * DAY;
  while (statSync(live).size < 65536) await send(4000);
  assert.equal(calls, ++expected, "past the size again, in the file the compaction left small");
  assert.equal((await mailbox.compact()).movedMessages, 1);
  await send(100);
  await send(100);
  assert.equal(calls, expected, "a compaction that hardly shrank the log is not called for again at once");
  await send(17_000);
  assert.equal(calls, ++expected, "a quarter of the size more than it left");
  // A call that started nothing (a run under way may have decided already) does not count.
  let declined = 0;
  mailbox.compactElsewhere(() => (declined++, false));
  await send(17_000);
  await send(100);
  assert.equal(declined, 2, "the next send past the mark calls again");
});


test("a send that repeats the idempotency key of a message compaction moved to the archive returns that message, through the index or without it", async (t) => {
  const { peerpost, clock, reopen } = tempPeerpost(t);
  const first = await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "run the nightly job", anticipation: "fyi", idempotencyKey: "nightly-42" });
  await peerpost.mailbox.markRead("codex:b", [first.message.id]);
  clock.now += 40 * DAY;
  assert.equal((await reopen().mailbox.compact()).movedMessages, 1, "the read fyi moves to the archive");
  const again = await reopen().mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "run the nightly job", anticipation: "fyi", idempotencyKey: "nightly-42" });
  assert.equal(again.created, false, "the archived send is the message");
  assert.equal(again.message.id, first.message.id);
  // Another sender's key is its own; the same sender's other key is a new message.
  assert.equal((await reopen().mailbox.send({ from: "codex:b", fromVerified: true, to: "claude:a", body: "mine", anticipation: "fyi", idempotencyKey: "nightly-42" })).created, true);
  assert.equal((await reopen().mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "next", anticipation: "fyi", idempotencyKey: "nightly-43" })).created, true);
  // An archive its index does not cover (an archive from before the index) is scanned instead.
  rmSync(join(reopen().stateDir.path, "index", "archive"), { recursive: true, force: true });
  const scanned = await reopen().mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "run the nightly job", anticipation: "fyi", idempotencyKey: "nightly-42" });
  assert.deepEqual([scanned.created, scanned.message.id], [false, first.message.id]);
  let sends = 0;
  reopen().mailbox.log.scan(0, ({ record }) => void (record.type === "msg" && record.idempotencyKey === "nightly-42" && sends++));
  reopen().mailbox.scanArchive(({ record }) => void (record.type === "msg" && record.idempotencyKey === "nightly-42" && sends++));
  assert.equal(sends, 2, "nothing was stored for the repeats: the first send and the other sender's");
});
