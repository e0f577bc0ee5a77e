// The wakes log's fold, kept between calls: it must equal a fold from the start after any appends (its
// own and other processes'), a torn last line, or a replaced file, and read only what was appended since.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { seededRandom } from "./helpers/random.js";
import { Wakes } from "../core/wake/wakes.js";
import type { WakeFold } from "../core/wake/wake-fold.js";
import type { WakeClaim, WakeRecord } from "../core/wake/records.js";

const LOG_OPTIONS = { lockStaleMs: 10_000, lockTimeoutMs: 5_000 };
const AT = "2026-12-05T06:00:00.000Z";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** A ulid-shaped id for run `n` (Crockford base 32, 26 characters). */
const runId = (n: number) => `01JF${[...n.toString(32)].map((digit) => CROCKFORD[parseInt(digit, 32)]).join("").padStart(22, "0")}`;

function claim(n: number, address: string): WakeClaim {
  return { v: 1, type: "wake", id: runId(n), kind: "wake", address, host: "claude-code", cwd: "/tmp", messageIds: [runId(1000 + n)], at: AT, deadline: "2026-12-05T07:00:00.000Z", by: 1 };
}

function outcome(n: number, draw: number): WakeRecord {
  if (draw < 0.3) return { v: 1, type: "wake-started", id: runId(n), runnerPid: 100 + n, command: "claude", at: AT };
  if (draw < 0.5) return { v: 1, type: "wake-host", id: runId(n), pid: 200 + n, at: AT };
  if (draw < 0.6) return { v: 1, type: "wake-bound", id: runId(n), address: `claude:bound-${n}`, sessionId: `bound-${n}`, messageIds: [runId(2000 + n)], at: AT };
  return { v: 1, type: "wake-ended", id: runId(n), outcome: draw < 0.8 ? "ok" : "failed", at: AT };
}

/** What a fold holds, as plain data. */
const runsOf = (fold: WakeFold) => [...fold.runs.entries()].sort(([a], [b]) => (a < b ? -1 : 1));

test("a kept wakes fold equals a fold from the start through appends by two writers, a torn last line and a replaced file", async (t) => {
  const dir = tempDir(t);
  const path = join(dir, "wakes.jsonl");
  const kept = new Wakes(dir, LOG_OPTIONS);
  const other = new Wakes(dir, LOG_OPTIONS);
  const random = seededRandom(13);
  assert.equal(kept.fold().runs.size, 0, "no log yet: an empty fold");

  let runs = 0;
  for (let step = 0; step < 400; step++) {
    const writer = random() < 0.5 ? kept : other;
    // Outcomes repeat and arrive for runs already ended: the first in log order must still win.
    const record = runs === 0 || random() < 0.35 ? claim(runs++, `claude:s-${runs % 5}`) : outcome(Math.floor(random() * runs), random());
    await writer.append(record);
    if (random() < 0.3) assert.deepEqual(runsOf(kept.fold()), runsOf(new Wakes(dir, LOG_OPTIONS).fold()), `step ${step}`);
  }

  // A line still being written is left for the next fold, which then takes it whole.
  const line = `${JSON.stringify(claim(runs, "claude:torn"))}\n`;
  appendFileSync(path, line.slice(0, 40));
  assert.equal(kept.fold().runs.has(runId(runs)), false, "a torn last line is not folded");
  appendFileSync(path, line.slice(40));
  assert.equal(kept.fold().runs.get(runId(runs))?.claim.address, "claude:torn");
  assert.deepEqual(runsOf(kept.fold()), runsOf(new Wakes(dir, LOG_OPTIONS).fold()));

  // A file put in its place (a restore, a hand edit), longer than the old one, is folded anew, not
  // continued at the old offset; so is the same file cut shorter.
  writeFileSync(join(dir, "replacement"), `${JSON.stringify(claim(9999, "claude:replacement"))}\n${readFileSync(path, "utf8")}`);
  renameSync(join(dir, "replacement"), path);
  assert.equal(kept.fold().runs.get(runId(9999))?.claim.address, "claude:replacement");
  assert.deepEqual(runsOf(kept.fold()), runsOf(new Wakes(dir, LOG_OPTIONS).fold()));
  writeFileSync(path, `${JSON.stringify(claim(7777, "claude:cut"))}\n`);
  assert.deepEqual([...kept.fold().runs.keys()], [runId(7777)]);
});

test("a kept wakes fold reads only the lines appended since the last call", async (t) => {
  const dir = tempDir(t);
  const path = join(dir, "wakes.jsonl");
  const kept = new Wakes(dir, LOG_OPTIONS);
  await kept.append(claim(1, "claude:before"));
  assert.equal(kept.fold().runs.get(runId(1))?.claim.address, "claude:before");
  // Rewritten in place, same length and file: only a fold that reads from the start again sees it.
  writeFileSync(path, readFileSync(path, "utf8").replace(runId(1), runId(3)), { flag: "r+" });
  await kept.append(claim(2, "claude:after"));
  assert.deepEqual([...kept.fold().runs.keys()].sort(), [runId(1), runId(2)], "the kept fold did not read the first line again");
  assert.deepEqual([...new Wakes(dir, LOG_OPTIONS).fold().runs.keys()].sort(), [runId(2), runId(3)]);
});

test("the kept wakes fold is dropped a minute after the last call that needed it, and folded anew from the start then", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const dir = tempDir(t);
  const path = join(dir, "wakes.jsonl");
  const kept = new Wakes(dir, LOG_OPTIONS);
  await kept.append(claim(1, "claude:before"));
  kept.fold();
  // Rewritten in place: seen only by a fold from the start.
  writeFileSync(path, readFileSync(path, "utf8").replace(runId(1), runId(3)), { flag: "r+" });
  t.mock.timers.tick(50_000);
  assert.deepEqual([...kept.fold().runs.keys()], [runId(1)], "still kept 50 s after a call");
  t.mock.timers.tick(50_000);
  assert.deepEqual([...kept.fold().runs.keys()], [runId(1)], "each call keeps it another minute");
  t.mock.timers.tick(60_000);
  assert.deepEqual([...kept.fold().runs.keys()], [runId(3)], "a minute without a call: dropped, and folded from the start");
});

/** Counts the records `log` hands its readers from now on. */
function countReads(log: Wakes["archive"]): { lines: number } {
  const count = { lines: 0 };
  const { scan, readLinesAt, scanBackward } = log;
  log.scan = (offset, visit, ...rest) => scan.call(log, offset, (entry) => (count.lines++, visit(entry)), ...rest);
  log.readLinesAt = (offsets, visit) => readLinesAt.call(log, offsets, (entry) => (count.lines++, visit(entry)));
  log.scanBackward = (before, visit) => scanBackward.call(log, before, (entry) => (count.lines++, visit(entry)));
  return count;
}

test("the wakes archive is read through its index: a message's runs, a session's (a launch's bound session too), the newest; never the whole archive", (t) => {
  const dir = tempDir(t);
  const wakes = new Wakes(dir, LOG_OPTIONS);
  // 3,000 runs as a compaction leaves them in the archive, interleaved; the last one a launch its host named.
  const message = (n: number) => runId(100_000 + n);
  const records: WakeRecord[] = [];
  for (let n = 0; n < 3000; n++) {
    records.push({ ...claim(n, `claude:s${n % 20}`), messageIds: [message(n)] });
    if (n > 0) records.push({ v: 1, type: "wake-ended", id: runId(n - 1), outcome: "ok", at: AT });
  }
  records.push({ v: 1, type: "wake-ended", id: runId(2999), outcome: "ok", at: AT });
  const launch = runId(3000);
  records.push({ ...claim(3000, "claude:unused"), kind: "launch", address: undefined, messageIds: [] });
  records.push({ v: 1, type: "wake-bound", id: launch, address: "claude:helper", sessionId: "helper", messageIds: [message(3000)], at: AT });
  records.push({ v: 1, type: "wake-ended", id: launch, outcome: "ok", at: AT });
  writeFileSync(join(dir, "wakes.archive.jsonl"), records.map((record) => JSON.stringify(record)).join("\n") + "\n", { mode: 0o600 });
  // A run of the last days in the live file carries a message an archived run carried too.
  appendFileSync(join(dir, "wakes.jsonl"), JSON.stringify({ ...claim(3001, "claude:s7"), messageIds: [message(1234)] }) + "\n", { mode: 0o600 });
  wakes.archived.indexAll();

  const reads = countReads(wakes.archive);
  const ids = (runs: Array<{ claim: { id: string } }>) => runs.map((run) => run.claim.id);
  assert.deepEqual(ids(wakes.runsCarrying(message(1234))), [runId(3001), runId(1234)], "the live run and the archived one, newest first");
  assert.equal(wakes.runsCarrying(message(1234))[1]!.ended?.outcome, "ok", "an archived run is read whole");
  assert.deepEqual(ids(wakes.runsCarrying(runId(999_999))), [], "a message no run carried");
  assert.equal(wakes.lastRuns(["claude:helper"]).get("claude:helper")?.claim.id, launch, "a launch is its bound session's");
  assert.deepEqual(wakes.runsCarrying(message(3000)).map((run) => [run.claim.id, run.claim.address]), [[launch, "claude:helper"]]);
  assert.equal(wakes.lastRuns(["claude:s7"]).get("claude:s7")?.claim.id, runId(3001), "the live file's run is a session's newest");
  assert.equal(wakes.lastRuns(["claude:s8"]).get("claude:s8")?.claim.id, runId(2988));
  assert.deepEqual(ids(wakes.newest(3)), [runId(3001), launch, runId(2999)]);
  assert.ok(reads.lines < 100, `the reads took ${reads.lines} of the archive's ${records.length} records`);
});
