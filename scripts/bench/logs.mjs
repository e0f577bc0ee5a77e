// The `logs` rows of `npm run bench`: the receipts, sessions and wakes logs bounded like the mailbox.
// - Sessions.all() in a process that folded the registry before, after another process appended new
//   lines, vs a new process's whole fold of the same registry (what every call cost when nothing was kept);
// - each log's live size after its compaction vs before (receipts and ended wake runs 90% past the
//   retention; a registry of many heartbeats per session);
// - the compaction of 200,000 receipts vs a plain copy of the same file (1 MiB reads and writes, fsync)
//   in the same run: the least a rewrite of the live file costs.
import { closeSync, copyFileSync, fsyncSync, mkdirSync, openSync, readSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";

const DAY = 86_400_000;
const SESSIONS = 2_000;
const HEARTBEATS = 50;
const NEW_LINES = 100;
const ROUNDS = 21;
const RECEIPTS = 200_000;
const WAKE_RUNS = 20_000;

const iso = (time) => new Date(time).toISOString();

function writeLines(path, count, line) {
  const chunk = [];
  for (let i = 0; i < count; i++) {
    chunk.push(JSON.stringify(line(i)));
    if (chunk.length === 10_000 || i === count - 1) {
      writeFileSync(path, chunk.join("\n") + "\n", { flag: "a", mode: 0o600 });
      chunk.length = 0;
    }
  }
}

const ulidOf = (i) => `01J${String(i).padStart(23, "0")}`.slice(0, 26).replace(/[ILOU]/g, "0");

function receiptLine(now) {
  // 90% past the 30 days' retention, then the last 3 days.
  const oldCount = RECEIPTS * 0.9;
  return (i) => {
    const at = i < oldCount ? now - 60 * DAY + i * 1000 : now - 3 * DAY + (i - oldCount) * 1000;
    return { v: 1, type: "receipt", id: ulidOf(i), at: iso(at), kind: "send", host: "codex", from: `codex:s${i % 50}`, to: `claude:s${(i + 1) % 50}`, messageId: ulidOf(i + 1e7), delivery: "queued", warnings: [], origin: { source: "host", pid: 1 } };
  };
}

function sessionLine(now) {
  return (i) => {
    const s = i % SESSIONS;
    return { v: 1, type: "session", at: iso(now - 10 * DAY + i * 1000), host: "codex", address: `codex:s${s}`, sessionId: `s${s}`, writerPid: 1, source: i < SESSIONS ? "startup" : "server", hostPid: 100 + s, cwd: `/home/someone/projects/p${s}` };
  };
}

function wakeLines(path, now) {
  const oldCount = WAKE_RUNS * 0.9;
  const records = [];
  for (let i = 0; i < WAKE_RUNS; i++) {
    const at = i < oldCount ? now - 60 * DAY + i * 60_000 : now - 2 * DAY + i * 1000;
    const id = ulidOf(i);
    records.push({ v: 1, type: "wake", id, kind: "wake", address: `codex:s${i % 50}`, host: "codex", cwd: "/tmp", messageIds: [ulidOf(i + 1e7)], at: iso(at), deadline: iso(at + 600_000), by: 1 });
    records.push({ v: 1, type: "wake-started", id, runnerPid: 1, command: "codex exec resume", at: iso(at + 1) });
    records.push({ v: 1, type: "wake-ended", id, outcome: "ok", exitCode: 0, durationMs: 1000, at: iso(at + 2) });
  }
  writeLines(path, records.length, (i) => records[i]);
}

/** Copies `from` to `to` by 1 MiB reads and writes, then fsyncs: ms. */
function plainCopy(from, to) {
  const started = process.hrtime.bigint();
  const source = openSync(from, "r");
  const target = openSync(to, "w", 0o600);
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  for (let position = 0; ; ) {
    const read = readSync(source, buffer, 0, buffer.length, position);
    if (read === 0) break;
    writeSync(target, buffer, 0, read);
    position += read;
  }
  fsyncSync(target);
  closeSync(source);
  closeSync(target);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export async function benchLogs({ root, work, report, median, openPeerpost }) {
  console.error(`\nlogs: Sessions.all() in a process that folded a registry of ${SESSIONS} sessions × ${HEARTBEATS} records before, after another process appended ${NEW_LINES} lines, vs a new process's whole fold of it, median of ${ROUNDS}; each log's live size after \`compactOneLog\` vs before (receipts and wake runs 90% past the 30 days' retention, registry heartbeats); compaction of ${RECEIPTS} receipts (\`compactOneLog\`: the moves and the swap) vs a plain copy of the same file (1 MiB reads and writes, fsync), each the median of 3 on fresh copies`);
  const { compactOneLog } = await import(join(root, ".build/core/upkeep/log-compaction.js"));
  const now = Date.now();
  const stateDir = join(work, "logs");
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const env = { PEERPOST_HOME: stateDir, HOME: work, PEERPOST_LOG_RETENTION_DAYS: "30" };
  const open = () => openPeerpost({ env });

  // Sessions.all(): kept fold + new lines vs whole fold.
  const sessionsPath = join(stateDir, "sessions.jsonl");
  writeLines(sessionsPath, SESSIONS * HEARTBEATS, sessionLine(now));
  const kept = open();
  kept.sessions.all();
  const writer = open();
  const incremental = [];
  const whole = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < NEW_LINES; i++) await writer.sessions.register({ host: "codex", address: `codex:s${i}`, sessionId: `s${i}`, source: "server", hostPid: 100 + i }, { eventual: true });
    let started = process.hrtime.bigint();
    if (kept.sessions.all().length !== SESSIONS) throw new Error("the kept fold lost sessions");
    incremental.push(Number(process.hrtime.bigint() - started) / 1e6);
    const fresh = open();
    started = process.hrtime.bigint();
    if (fresh.sessions.all().length !== SESSIONS) throw new Error("the whole fold lost sessions");
    whole.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  const registryMb = (statSync(sessionsPath).size / 1e6).toFixed(1);
  report(`Sessions.all() after ${NEW_LINES} new lines, kept fold, ms`, median(incremental), "whole fold, ms", median(whole), `(registry ${registryMb} MB, ${SESSIONS * HEARTBEATS + ROUNDS * NEW_LINES} lines)`);

  // Live sizes after compaction vs before.
  writeLines(join(stateDir, "receipts.jsonl"), RECEIPTS, receiptLine(now));
  wakeLines(join(stateDir, "wakes.jsonl"), now);
  const store = open();
  for (const log of ["receipts", "sessions", "wakes"]) {
    const outcome = await compactOneLog(store, log);
    report(`${log} live log after compaction, MB`, outcome.liveBytesAfter / 1e6, "before, MB", outcome.liveBytesBefore / 1e6, `(${outcome.movedLines} lines archived, ${outcome.droppedLines} dropped, ${outcome.keptLines} kept)`);
  }

  // Compaction time of 200k receipts vs a plain copy of the same file.
  const pristine = join(work, "receipts-pristine.jsonl");
  writeLines(pristine, RECEIPTS, receiptLine(now));
  const compactions = [];
  const copies = [];
  const indexings = [];
  for (let run = 0; run < 3; run++) {
    const dir = join(work, `logs-compact-${run}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    copyFileSync(pristine, join(dir, "receipts.jsonl"));
    const peerpost = openPeerpost({ env: { ...env, PEERPOST_HOME: dir } });
    let started = process.hrtime.bigint();
    await compactOneLog(peerpost, "receipts");
    compactions.push(Number(process.hrtime.bigint() - started) / 1e6);
    started = process.hrtime.bigint();
    peerpost.receipts.indexAll();
    indexings.push(Number(process.hrtime.bigint() - started) / 1e6);
    copies.push(plainCopy(pristine, join(dir, "plain-copy.jsonl")));
    rmSync(dir, { recursive: true, force: true });
  }
  report(`compaction of ${RECEIPTS} receipts, ms`, median(compactions), "plain copy of the file, ms", median(copies), `(${(statSync(pristine).size / 1e6).toFixed(1)} MB, 90% moved; indexing the archive after it, as \`peerpost compact\` and index-run do: ${median(indexings).toFixed(0)} ms more)`);
}
