// Retention on a PostgreSQL store: `peerpost compact` moves receipts older than the retention to the
// receipts' archive table and deletes the registry's superseded rows, by the file store's own plans, in one
// transaction under the log's lock; each machine's mirror follows by its own compaction and shrinks; every
// read answers as before on every machine, a new machine included; appends during the compaction lose
// nothing; and an unreachable database is a coded error.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { monotonicFactory } from "ulid";
import { tempDir } from "./helpers/temp.js";
import { NO_POSTGRES, sql, testDatabase } from "./helpers/postgres.js";
import { collect } from "./helpers/children.js";
import { CLI } from "./helpers/mcp.js";
import { heartbeats, receiptReads, sessionReads } from "./helpers/compacted-logs.js";
import { openPeerpost, type Peerpost } from "../core/peerpost.js";
import { compactLogs, compactOneLog, logsPastCompactionSize, type LogCompactionOutcome } from "../core/upkeep/log-compaction.js";
import type { ReceiptRecord } from "../core/records/schemas.js";

const DAY = 86_400_000;
const ulid = monotonicFactory();
const NOW = Date.now();

interface Machine {
  home: string;
  stateDir: string;
  env: Record<string, string>;
  open(): Peerpost;
}

/** A state dir on the shared store (a machine of its own), with a clock at NOW. */
function machine(t: TestContext, url: string): Machine {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_STORE: url, PEERPOST_LOG_RETENTION_DAYS: "30" };
  const open = () => {
    const peerpost = openPeerpost({ env, home, now: () => NOW });
    t.after(() => peerpost.backend.close());
    return peerpost;
  };
  return { home, stateDir, env, open };
}

/** `count` receipts inserted straight into the table, one a minute from `from`, as 4 senders' of 3 kinds. */
async function insertReceipts(url: string, from: number, count: number): Promise<void> {
  const kinds = ["send", "push", "wake"] as const;
  const records: ReceiptRecord[] = [];
  for (let i = 0; i < count; i++) {
    const at = from + i * 60_000;
    records.push({ v: 1, type: "receipt", id: ulid(at), at: new Date(at).toISOString(), kind: kinds[i % 3]!, host: "claude-code", from: `claude:s${i % 4}`, to: "codex:sink", messageId: ulid(at), delivery: "queued", warnings: [], origin: { source: "host", pid: 1 } });
  }
  await sql(url, `INSERT INTO peerpost_log_receipts (scopes, record) SELECT ARRAY[r->>'from', r->>'to'], r FROM json_array_elements('${JSON.stringify(records)}'::json) r`);
}

async function count(url: string, table: string): Promise<number> {
  return Number(((await sql(url, `SELECT count(*)::int AS n FROM ${table}`)) as { rows: Array<{ n: number }> }).rows[0]!.n);
}

function linesOf(path: string): number {
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean).length : 0;
}

/** What every machine reads alike (whether a session is local is each machine's own answer). */
const reads = (peerpost: Peerpost) => ({ receipts: receiptReads(peerpost), sessions: (sessionReads(peerpost) as Array<{ local?: boolean }>).map(({ local: _local, ...entry }) => entry) });

/** A store with 400 receipts past the retention, 300 of the last day and a registry of many heartbeats, mirrored on `machines`. */
async function filled(url: string, machines: Machine[]): Promise<void> {
  const first = machines[0]!.open();
  await first.backend.sync(); // the schema, made by the first open
  await insertReceipts(url, NOW - 60 * DAY, 400);
  await insertReceipts(url, NOW - DAY, 300);
  await heartbeats(first, { now: NOW - 3600_000 }, (line) => sql(url, `INSERT INTO peerpost_log_sessions (scopes, record) VALUES (ARRAY['claude:s3'], '${line}')`));
  for (const on of machines) await on.open().backend.sync();
}

test("on PostgreSQL, peerpost compact archives old receipt rows and drops superseded registry rows; both machines' mirrors follow and shrink, a new machine reads the same", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const laptop = machine(t, url);
  const devbox = machine(t, url);
  await filled(url, [laptop, devbox]);
  const before = reads(laptop.open());
  assert.deepEqual(reads(devbox.open()), before);
  const sessionRows = await count(url, "peerpost_log_sessions");
  const mirrorBytes = (on: Machine, log: string) => statSync(join(on.stateDir, `mirror-${log}.jsonl`)).size;
  const receiptsMirrorBefore = mirrorBytes(devbox, "receipts");
  const sessionsMirrorBefore = mirrorBytes(devbox, "sessions");

  // `peerpost compact` on the laptop, as a person runs it: the tables, then the laptop's mirrors.
  const compacted = await collect(spawn(process.execPath, [CLI, "compact", "--json"], { env: { ...process.env, ...laptop.env }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(compacted.code, 0, compacted.stderr + compacted.stdout);
  const outcomes = (JSON.parse(compacted.stdout) as { logs: LogCompactionOutcome[] }).logs;
  const receipts = outcomes.find((outcome) => outcome.log === "receipts")!;
  const sessions = outcomes.find((outcome) => outcome.log === "sessions")!;
  assert.ok("database" in receipts && receipts.database, JSON.stringify(receipts));
  assert.deepEqual({ ...receipts.database, ms: 0, lockedMs: 0 }, { rowsBefore: 700, movedRows: 400, droppedRows: 0, rowsAfter: 300, ms: 0, lockedMs: 0 });
  assert.equal(receipts.movedLines, 400, "the laptop's mirror moved its old lines to its archive");
  assert.ok("database" in sessions && sessions.database && sessions.database.droppedRows > 0 && sessions.database.movedRows === 0, JSON.stringify(sessions));
  assert.equal(await count(url, "peerpost_log_receipts"), 300);
  assert.equal(await count(url, "peerpost_archive_receipts"), 400);
  assert.equal(await count(url, "peerpost_log_sessions"), sessionRows - sessions.database.droppedRows);
  assert.ok(await count(url, "peerpost_log_sessions") <= 6 * 6 + 2, "the registry keeps a few rows per session");
  const human = await collect(spawn(process.execPath, [CLI, "compact"], { env: { ...process.env, ...laptop.env }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.match(human.stdout, /receipts in PostgreSQL: 0 rows archived, 0 superseded rows dropped; live rows 300 → 300 \(\d+ ms, appends held for 0 ms\)/);

  assert.deepEqual(reads(laptop.open()), before, "the laptop reads the same");
  assert.equal(linesOf(join(laptop.stateDir, "mirror-receipts.jsonl")), 300);
  assert.equal(linesOf(join(laptop.stateDir, "mirror-receipts.archive.jsonl")), 400);
  // The devbox reads its mirror as it was until its own compaction (index-run past the size, or compact).
  const devboxPeerpost = devbox.open();
  await devboxPeerpost.backend.sync();
  assert.deepEqual(reads(devboxPeerpost), before, "the devbox reads the same before its mirror follows");
  const followed = await compactLogs(devboxPeerpost, ["receipts", "sessions"]);
  for (const outcome of followed) assert.ok("database" in outcome && outcome.database?.movedRows === 0 && outcome.database.droppedRows === 0, `nothing left to compact in the database: ${JSON.stringify(outcome)}`);
  assert.deepEqual(reads(devbox.open()), before, "the devbox reads the same after its mirror followed");
  assert.ok(mirrorBytes(devbox, "receipts") < receiptsMirrorBefore / 2 && mirrorBytes(devbox, "sessions") < sessionsMirrorBefore / 4, JSON.stringify({ receiptsMirrorBefore, sessionsMirrorBefore, receipts: mirrorBytes(devbox, "receipts"), sessions: mirrorBytes(devbox, "sessions") }));

  // A machine new to the store copies the archived receipts too: its pages read the same.
  const newcomer = machine(t, url).open();
  await newcomer.backend.sync();
  assert.deepEqual(reads(newcomer), before, "a new machine reads the same");
  // Both old mirrors go on syncing after the rows they hold vanished from the tables.
  const late = await devbox.open().receipts.record({ kind: "send", host: "codex", from: "codex:a", to: "claude:b", messageId: ulid(NOW), delivery: "queued", warnings: [], origin: { source: "host", pid: 1 } });
  const laptopAgain = laptop.open();
  await laptopAgain.backend.sync();
  assert.equal(laptopAgain.receipts.query({ limit: 1 }).receipts[0]!.id, late.id);
  assert.equal(linesOf(join(laptop.stateDir, "mirror-receipts.jsonl")), 301, "nothing was copied twice");
});

test("appends to PostgreSQL during its compaction wait for it and are all kept, in order", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const laptop = machine(t, url);
  const devbox = machine(t, url);
  await filled(url, [laptop]);
  const compactor = laptop.open();
  const appender = devbox.open();
  const appended: string[] = [];
  let compacting = true;
  const appending = (async () => {
    for (let i = 0; compacting || i < 50; i++) {
      const receipt = await appender.receipts.record({ kind: "send", host: "codex", from: "codex:a", to: "claude:s1", messageId: ulid(NOW), delivery: "queued", warnings: [], origin: { source: "host", pid: 1 } });
      appended.push(receipt.id);
    }
  })();
  // Rounds of compaction while the appends run: the first moves the old receipts, the others find none.
  const outcomes: LogCompactionOutcome[] = [];
  for (let round = 0; round < 3; round++) outcomes.push(await compactOneLog(compactor, "receipts"));
  compacting = false;
  await appending;
  assert.equal(outcomes.reduce((sum, outcome) => sum + ("database" in outcome && outcome.database ? outcome.database.movedRows : 0), 0), 400);
  assert.equal(await count(url, "peerpost_log_receipts") + (await count(url, "peerpost_archive_receipts")), 700 + appended.length);
  for (const on of [compactor, laptop.open(), machine(t, url).open()]) {
    await on.backend.sync();
    const newest = on.receipts.query({ address: "codex:a", limit: 10_000 }).receipts.map((receipt) => receipt.id);
    assert.deepEqual(newest, [...appended].reverse(), "every append is read, once, newest first");
  }
});

test("compaction of an unreachable PostgreSQL store fails state_io_error with a hint; index-run's size check needs no connection", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_STORE: "postgres://peerpost@127.0.0.1:9/none" };
  const compacted = await collect(spawn(process.execPath, [CLI, "compact", "--json"], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.notEqual(compacted.code, 0);
  const answer = JSON.parse(compacted.stdout || compacted.stderr) as { ok: boolean; error: { code: string; message: string; hint: string } };
  assert.equal(answer.ok, false);
  assert.equal(answer.error.code, "state_io_error");
  assert.match(answer.error.message, /PostgreSQL store postgres:\/\/peerpost@127\.0\.0\.1:9\/none/);
  assert.match(answer.error.hint, /not reachable/);
  const peerpost = openPeerpost({ env, home });
  t.after(() => peerpost.backend.close());
  assert.deepEqual(logsPastCompactionSize(peerpost), []);
});

test("appends on a machine whose mirror its compactions swap meanwhile all succeed, each receipt read once", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const laptop = machine(t, url);
  // Every receipt it writes is past the retention: each compaction moves them and swaps the mirror's file.
  const appender = openPeerpost({ env: laptop.env, home: laptop.home, now: () => NOW - 60 * DAY });
  t.after(() => appender.backend.close());
  const compactor = laptop.open();
  await appender.backend.sync();
  let compacting = true;
  let swaps = 0;
  const compactions = (async () => {
    while (compacting) {
      const outcome = await compactOneLog(compactor, "receipts");
      if ("movedLines" in outcome && outcome.movedLines > 0) swaps++;
    }
  })();
  const appended: string[] = [];
  for (let i = 0; i < 150; i++) appended.push((await appender.receipts.record({ kind: "send", host: "codex", from: "codex:a", to: "claude:s1", messageId: ulid(NOW), delivery: "queued", warnings: [], origin: { source: "host", pid: 1 } })).id);
  compacting = false;
  await compactions;
  assert.ok(swaps >= 3, `the mirror was swapped under the appends (${swaps} times)`);
  const reader = laptop.open();
  await reader.backend.sync();
  assert.deepEqual(reader.receipts.query({ address: "codex:a", limit: 10_000 }).receipts.map((receipt) => receipt.id), [...appended].reverse());
});
