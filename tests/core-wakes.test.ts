// The wakes log's fold, kept between calls: it must equal a fold from the start after any appends (its
// own and other processes'), a torn last line, or a replaced file, and read only what was appended since.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { seededRandom } from "./helpers/random.js";
import { Wakes, type WakeFold } from "../core/wake/wakes.js";
import type { WakeRecord } from "../core/wake/records.js";

const LOG_OPTIONS = { lockStaleMs: 10_000, lockTimeoutMs: 5_000 };
const AT = "2026-12-05T06:00:00.000Z";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** A ulid-shaped id for run `n` (Crockford base 32, 26 characters). */
const runId = (n: number) => `01JF${[...n.toString(32)].map((digit) => CROCKFORD[parseInt(digit, 32)]).join("").padStart(22, "0")}`;

function claim(n: number, address: string): WakeRecord {
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
