// The mailbox on a PostgreSQL store is bounded on each machine: `peerpost compact` (and a compaction the
// size setting calls for) moves finished old mail from this machine's mirror to its archive by the file
// store's rules, while the database keeps every row. Every read answers as before; the mirror keeps its
// last line, after which its sync resumes, with the message that line is about whole; a kill -9 at each
// step reads as before or after; and a mirror started over from another database drops its archive too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { cliEnv, tempPeerpost } from "./helpers/temp.js";
import { cli } from "./helpers/cli.js";
import { NO_POSTGRES, sql, testDatabase } from "./helpers/postgres.js";
import { collect, spawnFixture } from "./helpers/children.js";
import { CLI, connect } from "./helpers/mcp.js";
import { until } from "./helpers/poll.js";
import { observe, traffic } from "./helpers/old-traffic.js";
import type { Peerpost } from "../core/peerpost.js";
import type { CompactionResult } from "../core/store/file/compaction.js";
import { compactLogs } from "../core/upkeep/log-compaction.js";

const DAY = 86_400_000;

async function mailboxRows(url: string): Promise<number> {
  return Number(((await sql(url, "SELECT count(*)::int AS n FROM peerpost_log_mailbox")) as { rows: Array<{ n: number }> }).rows[0]!.n);
}

function mirrorLines(stateDir: string, file = "mirror-mailbox.jsonl"): string[] {
  const path = join(stateDir, file);
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : [];
}

/**
 * Old traffic, then a delivery of an old read fyi as the log's last line: a delivery does not count as
 * activity, so by the rules alone that message, this line with it, would move. Returns the fyi's id.
 */
async function endingWithOldMail(peerpost: Peerpost, ids: string[]): Promise<string> {
  const fyi = ids.map((id) => peerpost.mailbox.find(id)!).find((message) => message.anticipation === "fyi" && message.read)!;
  assert.ok(await peerpost.mailbox.markDelivered(fyi.to, fyi.id, "tmux"));
  return fyi.id;
}

test("on PostgreSQL, peerpost compact moves this machine's finished old mail to its mirror's archive; every read is the same, the database keeps every row, the last line stays whole and syncs go on after it", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const laptop = tempPeerpost(t, { PEERPOST_STORE: url, PEERPOST_RETENTION_DAYS: "30" });
  const ids = await traffic(laptop.peerpost, laptop.clock);
  const lastMessage = await endingWithOldMail(laptop.peerpost, ids);
  const before = observe(laptop.reopen(), ids);
  const rows = await mailboxRows(url);
  const mirrorBefore = statSync(join(laptop.stateDir, "mirror-mailbox.jsonl")).size;
  const lastLine = mirrorLines(laptop.stateDir).at(-1)!;
  assert.match(lastLine, /"type":"delivered"/);

  const compacted = await cli(cliEnv(laptop, { PEERPOST_STORE: url, PEERPOST_RETENTION_DAYS: "30" }), "compact", "--json");
  assert.equal(compacted.code, 0, compacted.stderr + compacted.stdout);
  const result = JSON.parse(compacted.stdout) as CompactionResult & { archive: string };
  assert.ok(result.movedMessages > 20 && result.movedTasks > 0 && result.movedClaimLines > 0, compacted.stdout);
  assert.equal(result.archive, join(laptop.stateDir, "mirror-mailbox.archive.jsonl"));
  assert.ok(statSync(join(laptop.stateDir, "mirror-mailbox.jsonl")).size < mirrorBefore / 2, "the mirror shrank");
  assert.equal(await mailboxRows(url), rows, "the database keeps every row");
  assert.deepEqual(observe(laptop.reopen(), ids), before, "every read answers as before");
  const live = mirrorLines(laptop.stateDir);
  assert.equal(live.at(-1), lastLine, "the last line stays: the sync resumes after its seq");
  assert.equal(live.filter((line) => line.includes(`"id":"${lastMessage}"`)).length, 3, "with its message whole (its send, read and delivery)");
  assert.ok(!mirrorLines(laptop.stateDir, "mirror-mailbox.archive.jsonl").some((line) => line.includes(`"id":"${lastMessage}"`)));

  // Another machine writes: the laptop's sync appends its rows once, after the kept line.
  const devbox = tempPeerpost(t, { PEERPOST_STORE: url });
  devbox.clock.now = laptop.clock.now;
  const { message } = await devbox.peerpost.mailbox.send({ from: "codex:b", fromVerified: true, to: "claude:a", body: "after the compaction", anticipation: "reply" });
  const reader = laptop.reopen();
  await reader.backend.sync();
  assert.deepEqual(mirrorLines(laptop.stateDir).slice(0, live.length), live);
  assert.equal(mirrorLines(laptop.stateDir).length, live.length + 1, "only the new row was copied");
  assert.equal(reader.mailbox.find(message.id)?.to, "claude:a");
  assert.deepEqual(observe(reader, ids), observe(devbox.reopen(), ids), "a machine whose mirror holds every row reads the same");

  // Its line no longer last, the message kept whole moves with the next compaction, and nothing else does.
  const after = observe(laptop.reopen(), ids);
  assert.equal((await laptop.reopen().mailbox.compact()).movedMessages, 1);
  assert.equal(mirrorLines(laptop.stateDir, "mirror-mailbox.archive.jsonl").filter((line) => line.includes(`"id":"${lastMessage}"`)).length, 3);
  assert.deepEqual(observe(laptop.reopen(), ids), after);
});

for (const fault of ["compact-after-archive", "compact-after-rename"]) {
  test(`a compaction of a PostgreSQL store's mirror killed (${fault}) reads as before or after, and the next one completes it`, async (t) => {
    const url = await testDatabase(t);
    if (!url) return t.skip(NO_POSTGRES);
    const laptop = tempPeerpost(t, { PEERPOST_STORE: url, PEERPOST_RETENTION_DAYS: "30" });
    const ids = await traffic(laptop.peerpost, laptop.clock);
    const before = observe(laptop.reopen(), ids);
    const mirrorBefore = statSync(join(laptop.stateDir, "mirror-mailbox.jsonl")).size;
    const env = { PEERPOST_STORE: url, PEERPOST_NOW: String(laptop.clock.now), PEERPOST_RETENTION_DAYS: "30" };
    const killed = await collect(spawnFixture("compactor", [laptop.stateDir], { ...env, PEERPOST_FAULT: fault }));
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
    assert.deepEqual(observe(laptop.reopen(), ids), before, "reads as before or after");
    // The killed one's lock on the mirror is taken over once stale.
    const done = await collect(spawnFixture("compactor", [laptop.stateDir], { ...env, PEERPOST_LOCK_STALE_MS: "2000" }));
    assert.equal(done.code, 0, done.stderr);
    assert.deepEqual(observe(laptop.reopen(), ids), before);
    assert.ok(statSync(join(laptop.stateDir, "mirror-mailbox.jsonl")).size < mirrorBefore / 2);
  });
}

test("a mirror started over from another database drops its archive with its rows: no message of the old database is found", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const other = await testDatabase(t);
  const first = tempPeerpost(t, { PEERPOST_STORE: url, PEERPOST_RETENTION_DAYS: "30" });
  const ids = await traffic(first.peerpost, first.clock);
  const receipt = await first.peerpost.receipts.record({ kind: "send", host: "codex", from: "codex:b", to: "claude:a", messageId: ids[0]!, delivery: "queued", warnings: [], origin: { source: "host", pid: 1 } });
  first.clock.now += 60 * DAY;
  // A newer one last: a mirror keeps its last line.
  await first.peerpost.receipts.record({ kind: "send", host: "codex", from: "codex:b", to: "claude:a", messageId: ids[1]!, delivery: "queued", warnings: [], origin: { source: "host", pid: 1 } });
  assert.ok((await first.reopen().mailbox.compact()).movedMessages > 0);
  const [receipts] = await compactLogs(first.reopen(), ["receipts"]);
  assert.ok(receipts && "movedLines" in receipts && receipts.movedLines === 1, JSON.stringify(receipts));
  const archived = ids.find((id) => mirrorLines(first.stateDir, "mirror-mailbox.archive.jsonl").some((line) => line.includes(`"id":"${id}"`)))!;
  assert.ok(first.reopen().mailbox.find(archived), "found through the mirror's archive");

  // The same state dir, now on another database.
  const moved = tempPeerpost(t, { PEERPOST_STORE: other!, PEERPOST_HOME: first.stateDir });
  const peerpost = moved.reopen();
  await peerpost.backend.sync();
  for (const archive of ["mirror-mailbox.archive.jsonl", "mirror-receipts.archive.jsonl"]) assert.equal(existsSync(join(first.stateDir, archive)), false, `${archive} went with the rows`);
  assert.deepEqual(peerpost.receipts.query({ limit: 10 }).receipts, [], `no receipt of the old database (${receipt.id})`);
  assert.equal(peerpost.mailbox.find(archived), undefined);
  assert.equal(peerpost.mailbox.find(ids.at(-1)!), undefined);
  const { message } = await peerpost.mailbox.send({ from: "codex:b", fromVerified: true, to: "claude:a", body: "on the new database", anticipation: "reply" });
  assert.deepEqual(peerpost.mailbox.inbox("claude:a").map((entry) => entry.message.id), [message.id]);
});

test("past PEERPOST_COMPACT_AT_BYTES, the detached index-run compacts a PostgreSQL store's mailbox mirror by itself", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const laptop = tempPeerpost(t, { PEERPOST_STORE: url });
  const ids: string[] = [];
  for (let i = 0; i < 200; i++) ids.push((await laptop.peerpost.mailbox.send({ from: "codex:b", fromVerified: true, to: "claude:a", body: `an old note ${i} ${"x".repeat(300)}`, anticipation: "fyi" })).message.id);
  await laptop.peerpost.mailbox.markRead("claude:a", ids);
  laptop.clock.now += 60 * DAY;
  const { message } = await laptop.peerpost.mailbox.send({ from: "codex:b", fromVerified: true, to: "claude:a", body: "a new request", anticipation: "reply" });
  const mirrorBefore = statSync(join(laptop.stateDir, "mirror-mailbox.jsonl")).size;
  assert.ok(mirrorBefore > 65_536, `${mirrorBefore} bytes`);

  const run = await cli(cliEnv(laptop, { PEERPOST_STORE: url, PEERPOST_COMPACT_AT_BYTES: "65536" }), "index-run");
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.ok(statSync(join(laptop.stateDir, "mirror-mailbox.jsonl")).size < mirrorBefore / 20);
  assert.equal(mirrorLines(laptop.stateDir, "mirror-mailbox.archive.jsonl").length, 400, "every note with its read mark");
  const reader = laptop.reopen();
  assert.deepEqual(reader.mailbox.inbox("claude:a", { unreadOnly: true }).map((entry) => entry.message.id), [message.id]);
  assert.equal(reader.mailbox.find(ids[100]!)?.read?.by, "claude:a", "an archived note is found, read");
});

test("a line committed while this machine's mirror is compacted, and moved to its archive before the writer reads it back, is acknowledged, not reported lost", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const laptop = tempPeerpost(t, { PEERPOST_STORE: url, PEERPOST_RETENTION_DAYS: "30" });
  const { message } = await laptop.peerpost.mailbox.send({ from: "codex:b", fromVerified: true, to: "claude:a", body: "an old note", anticipation: "fyi" });
  await laptop.peerpost.mailbox.markRead("claude:a", [message.id]);
  laptop.clock.now += 60 * DAY;
  const devbox = tempPeerpost(t, { PEERPOST_STORE: url });
  devbox.clock.now = laptop.clock.now;
  const pusher = laptop.reopen();
  const compactor = laptop.reopen();
  // Between the pusher's commit and its sync after it (the race made certain): another machine writes, so
  // the delivery line is no longer last, and a compaction here moves it with its old, read note.
  const store = pusher.mailbox.store as unknown as { sync: (...args: unknown[]) => Promise<unknown> };
  const sync = store.sync.bind(store);
  let armed = true;
  // The first sync outside the transaction catches the mirror up before it (see appendDeciding); the second is the one after the commit.
  let outside = 0;
  store.sync = async (...args: unknown[]) => {
    if (armed && args.length === 0 && ++outside === 2) {
      armed = false;
      await devbox.peerpost.mailbox.send({ from: "codex:b", fromVerified: true, to: "claude:a", body: "new", anticipation: "reply" });
      assert.equal((await compactor.mailbox.compact()).movedMessages, 1);
    }
    return sync(...args);
  };
  assert.equal(await pusher.mailbox.markDelivered("claude:a", message.id, "tmux"), true);
  assert.equal(armed, false);
  assert.equal(laptop.reopen().mailbox.find(message.id)?.delivered?.via, "tmux", "the delivery stands, in the mirror's archive");
});

test("a start-over killed halfway, after the archive went, is done again when the mirror is pointed back at its database: no archived message is lost to it", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const other = await testDatabase(t);
  const first = tempPeerpost(t, { PEERPOST_STORE: url, PEERPOST_RETENTION_DAYS: "30" });
  const ids = await traffic(first.peerpost, first.clock);
  assert.ok((await first.reopen().mailbox.compact()).movedMessages > 0);
  const archived = ids.find((id) => mirrorLines(first.stateDir, "mirror-mailbox.archive.jsonl").some((line) => line.includes(`"id":"${id}"`)))!;
  const before = observe(first.reopen(), ids);

  const killed = await cli(cliEnv(first, { PEERPOST_STORE: other!, PEERPOST_FAULT: "start-over-after-archive" }), "index-run");
  assert.equal(killed.signal, "SIGKILL", killed.stderr);
  assert.equal(existsSync(join(first.stateDir, "mirror-mailbox.archive.jsonl")), false);
  // doctor and health say so, and how it is finished.
  const env = cliEnv(first, { PEERPOST_STORE: url });
  const doctor = await cli(env, "doctor", "--json");
  const problems = (JSON.parse(doctor.stdout) as { problems: Array<{ problem: string; fix: string }> }).problems;
  assert.ok(problems.some((entry) => /mirror of the mailbox \(mirror-mailbox\.jsonl\) was left halfway through starting over/.test(entry.problem) && /index-run/.test(entry.fix)), JSON.stringify(problems));
  const health = await cli(env, "health", "--json");
  assert.ok((JSON.parse(health.stdout) as { warnings: Array<{ code: string }> }).warnings.some((warning) => warning.code === "mirror_starting_over"), health.stdout);

  // Back on the first database: the mirror starts over from it and holds every message again.
  const back = first.reopen();
  await back.backend.sync();
  assert.ok(back.mailbox.find(archived), "the archived message is found again");
  assert.deepEqual(observe(first.reopen(), ids), before);
});

test("a running server on a machine that only receives has its mailbox mirror compacted once other machines' mail grows it past PEERPOST_COMPACT_AT_BYTES", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const laptop = tempPeerpost(t, { PEERPOST_STORE: url });
  const devbox = tempPeerpost(t, { PEERPOST_STORE: url });
  const env = cliEnv(laptop, { PEERPOST_STORE: url, PEERPOST_NOW: String(laptop.clock.now + 60 * DAY), PEERPOST_COMPACT_AT_BYTES: "65536" });
  // Another machine's notes, read there long ago, all written before the server here copies them into its
  // mirror: the mirror passes the size with mail it may move (a look while they still came in would find
  // them unread, and call again only once the mirror grew by a quarter of the size).
  const ids: string[] = [];
  for (let i = 0; i < 200; i++) ids.push((await devbox.peerpost.mailbox.send({ from: "codex:b", fromVerified: true, to: "grok:c", body: `an old note ${i} ${"x".repeat(300)}`, anticipation: "fyi" })).message.id);
  await devbox.peerpost.mailbox.markRead("grok:c", ids);
  const session = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:a" });
  assert.equal((await session.call("health")).ok, true);
  devbox.clock.now += 60 * DAY;
  const { message } = await devbox.peerpost.mailbox.send({ from: "codex:b", fromVerified: true, to: "grok:c", body: "a new request", anticipation: "reply" });
  // The archive is written before the new live file is renamed in: both are waited for.
  await until(
    () => mirrorLines(laptop.stateDir, "mirror-mailbox.archive.jsonl").length === 400 && statSync(join(laptop.stateDir, "mirror-mailbox.jsonl")).size < 65_536,
    60_000,
    "the notes in the mirror's archive and out of its live file, moved by a detached run the server started",
  );
  const reader = laptop.reopen();
  assert.deepEqual(reader.mailbox.inbox("grok:c", { unreadOnly: true }).map((entry) => entry.message.id), [message.id]);
  assert.equal((await session.call("health")).ok, true, "the server still answers");
});

test("a start-over forgets that the mirror was found current: a prompt hook does not trust the part copied so far, which would show read mail as unread", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const other = await testDatabase(t);
  const laptop = tempPeerpost(t, { PEERPOST_STORE: url });
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) ids.push((await laptop.peerpost.mailbox.send({ from: "codex:b", fromVerified: true, to: "claude:a", body: `note ${i}`, anticipation: "fyi" })).message.id);
  await laptop.peerpost.mailbox.markRead("claude:a", ids);
  await laptop.reopen().backend.sync();
  assert.ok(existsSync(join(laptop.stateDir, "mirror-mailbox.current.json")), "found current just now");
  const killed = await cli(cliEnv(laptop, { PEERPOST_STORE: other!, PEERPOST_FAULT: "start-over-after-archive" }), "index-run");
  assert.equal(killed.signal, "SIGKILL", killed.stderr);

  // Back on the first database, a session start's budgeted sync starts over and copies part of it (3 rows
  // here, standing for a store larger than a batch); then a prompt hook within the trust bound.
  assert.equal(await laptop.reopen().backend.sync({ budget: 3 }), false);
  const prompt = laptop.reopen();
  assert.equal(await prompt.backend.sync({ trust: "recent", only: ["mailbox"] }), true, "it synced to the end itself");
  assert.deepEqual(prompt.mailbox.inbox("claude:a", { unreadOnly: true }), []);
});

test("a start-over that takes over the mirror's lock from a compaction still running refuses, and the mirror and its archive stay whole", { timeout: 120_000 }, async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const other = await testDatabase(t);
  const laptop = tempPeerpost(t, { PEERPOST_STORE: url, PEERPOST_RETENTION_DAYS: "30" });
  const ids = await traffic(laptop.peerpost, laptop.clock);
  const env = cliEnv(laptop, { PEERPOST_RETENTION_DAYS: "30", PEERPOST_LOCK_STALE_MS: "2000" });
  // A compaction of the mirror stops just after its marker, holding the lock, as a long one is busy past the stale time.
  const compaction = spawn(process.execPath, [CLI, "compact", "--json"], { env: { ...env, PEERPOST_STORE: url, PEERPOST_FAULT: "compact-stop-after-marker" }, stdio: ["ignore", "pipe", "pipe"] });
  const compacted = collect(compaction);
  t.after(() => void (compaction.exitCode === null && compaction.kill("SIGKILL")));
  await until(() => existsSync(`/proc/${compaction.pid}/stat`) && / T /.test(readFileSync(`/proc/${compaction.pid}/stat`, "utf8")), 30_000, "the compaction stopped after its marker");

  // A process pointed at another database takes the stale lock over to start the mirror over: it must not pull the files from under the compaction.
  const moved = tempPeerpost(t, { PEERPOST_STORE: other!, PEERPOST_HOME: laptop.stateDir, PEERPOST_LOCK_STALE_MS: "2000" });
  await assert.rejects(moved.reopen().backend.sync(), (error: Error & { code?: string }) => error.code === "state_io_error" && /Another compaction of .*mirror-mailbox\.jsonl is still running/.test(error.message));
  compaction.kill("SIGCONT");
  const finished = await compacted;
  // The other process did start the mirrors it could lock over (the receipts'): the compaction, opened on
  // the first database, then refuses to copy into them (docs/postgres.md).
  assert.notEqual(finished.code, 0);
  assert.match(finished.stdout, /mirror of the receipts log was started over from another database/, finished.stdout.slice(0, 400) + finished.stderr);
  const back = tempPeerpost(t, { PEERPOST_STORE: url, PEERPOST_HOME: laptop.stateDir });
  const reader = back.reopen();
  for (const id of ids) assert.ok(reader.mailbox.find(id), `${id} is found, in the mirror or its archive`);
  assert.ok(mirrorLines(laptop.stateDir, "mirror-mailbox.archive.jsonl").length > 0);
});
