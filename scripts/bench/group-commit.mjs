// The append rows of `npm run bench`: durable sends from 8 processes against one raw append+fsync loop,
// and SQLite against the same loop. This machine's fsync rate drifts by a third within minutes, so they
// run in interleaved rounds: each round measures the loop just before its sends and its SQLite commits,
// and a row reports its median round (every round's ratio is printed beside it). Then, one round each,
// what bounds any group commit here, against the same kind of loop.
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { medianRound } from "./rounds.mjs";
import { rawAppendRate, timeFromGo } from "./storage.mjs";

const ROUNDS = 5;
const WRITERS = 8;
/**
 * Sends each worker makes before the start signal, so the rows measure the processes at their steady
 * pace: a send's CPU keeps falling for its first 2,000 to 3,500 sends while V8 optimizes the path
 * (measured alone, no fsync: 160–190 µs a send over the first 2,000, 45–50 µs after 3,500).
 */
const WARM_UPS = 3000;
const PER_WRITER = 500;
const RAW_LINES = 2000;

const worker = (name) => fileURLToPath(new URL(`./${name}-worker.mjs`, import.meta.url));

function hasSqlite() {
  try {
    createRequire(import.meta.url)("better-sqlite3");
    return true;
  } catch {
    return false;
  }
}

/** Appends/s of 8 clients through one writer process for the machine (socket-writer.mjs), started for this row alone. */
async function throughSocketWriter(dir, rate) {
  const socketPath = join(dir, `writer-${process.hrtime.bigint()}.sock`);
  const writer = spawn(process.execPath, [fileURLToPath(new URL("./socket-writer.mjs", import.meta.url)), `${socketPath}.jsonl`, socketPath], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    await new Promise((resolve, reject) => {
      writer.stdout.on("data", (chunk) => String(chunk).includes("listening") && resolve());
      writer.once("exit", (code) => reject(new Error(`the socket writer exited ${code} before listening`)));
    });
    return await rate("socket-client", () => [socketPath]);
  } finally {
    writer.kill("SIGTERM");
  }
}

export async function benchGroupCommit({ root, work, report }) {
  const peerpost = join(root, ".build/core/peerpost.js");
  const dir = join(work, "group-commit");
  mkdirSync(dir, { recursive: true });
  let runs = 0;
  /** Writes per second of 8 workers of `name`, each given `args` and a fresh target under the bench dir. */
  const rate = async (name, args, { perWriter = PER_WRITER, env = process.env } = {}) => {
    const target = join(dir, `${name}-${runs++}`);
    const workers = Array.from({ length: WRITERS }, (_, i) => [worker(name), ...args(target, i), String(perWriter)]);
    return (WRITERS * perWriter) / (await timeFromGo(dir, workers, env));
  };
  const sends = (options = {}, warmUps = WARM_UPS) => rate("send", (target, i) => [peerpost, target, `claude:w${i}`, "codex:sink", String(warmUps)], options);
  const raw = () => rawAppendRate(join(dir, `raw-${runs++}.jsonl`), RAW_LINES);
  const sqlite = hasSqlite();

  console.error(`\nappend: ${WRITERS} processes × ${PER_WRITER} durable sends (group commit: no lock, one O_APPEND write, own fsync before the ack), each after ${WARM_UPS} sends to warm up, timed from a start signal to the last send's ack, vs one raw append+fsync loop of ${RAW_LINES} lines; ${sqlite ? `SQLite in WAL mode with synchronous=FULL, ${WRITERS} processes × ${PER_WRITER} one-row commits after ${WARM_UPS}, against the same loop; ` : ""}${ROUNDS} interleaved rounds, median round reported`);
  const rounds = [];
  for (let i = 0; i < ROUNDS; i++) {
    const round = { raw: raw(), sends: await sends() };
    if (sqlite) round.sqlite = await rate("sqlite", (target) => [target, String(WARM_UPS)]);
    rounds.push(round);
  }
  const durable = medianRound(rounds, "sends");
  report("durable sends/s (8 processes)", durable.value, "raw appends/s", durable.baseline, `(target ≥ 1.0×; rounds ${durable.spread})`);
  if (sqlite) {
    const baseline = medianRound(rounds, "sqlite");
    report("SQLite WAL FULL commits/s (8 processes)", baseline.value, "raw appends/s", baseline.baseline, `(rounds ${baseline.spread})`);
    const against = medianRound(rounds, "sends", "sqlite");
    report("durable sends/s (8 processes)", against.value, "SQLite WAL FULL commits/s", against.baseline, `(same rounds; target ≥ 2×; rounds ${against.spread})`);
  } else {
    console.error("  SQLite rows skipped: better-sqlite3 is not installed (it is left out of npm ci because it may need a compiler); `npm run bench:setup` adds it");
  }

  console.error(`\nwhat bounds a group commit here, one round each against a raw loop measured just before: new processes' first ${PER_WRITER} sends (one warm-up send); ${WRITERS} node processes that only append and fsync (no peerpost); the same with a group commit in user space (one process at a time fsyncs for all, the others wait for the synced mark); one writer process for the machine that batches 8 clients' lines from a Unix socket (a write and an fsync a batch, then the acks); the sends with each fsync replaced by a 50 µs wait for the ack (PEERPOST_FAULT=wait-instead-of-fsync: a group commit whose fsync cost nothing); and with no fsync and no wait (PEERPOST_FAULT=skip-fsync)`);
  const bounds = [
    ["durable sends/s, new processes (8)", () => sends({}, 1), "(the same sends before the JIT has warmed up)"],
    ["append+fsync/s, no peerpost (8 processes)", () => rate("append", (target) => [target]), "(what the kernel's own fsync batching gives 8 processes)"],
    ["append+leader fsync/s, no peerpost (8 processes)", () => rate("leader", (target) => [target]), "(the kernel's batching beats a leader in user space here)"],
    ["appends through one writer/s, no peerpost (8 clients)", () => throughSocketWriter(dir, rate), "(one process for the machine batches the lines it gets over a Unix socket: one write and fsync a batch)"],
    ["sends/s, fsync a 50 µs wait (8 processes)", () => sends({ env: { ...process.env, PEERPOST_FAULT: "wait-instead-of-fsync" } }), "(a group commit with free fsyncs)"],
    ["sends/s with no fsync (8 processes)", () => sends({ env: { ...process.env, PEERPOST_FAULT: "skip-fsync" } }), "(no fsync, no wait)"],
  ];
  for (const [name, measure, note] of bounds) {
    const baseline = raw();
    report(name, await measure(), "raw appends/s", baseline, note);
  }
}
