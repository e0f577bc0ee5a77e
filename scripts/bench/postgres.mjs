// npm run bench -- --only postgres: the PostgreSQL store on a throwaway local cluster.
// - Wake: one "machine" appends a record, another (its own pool and LISTEN connection) is woken by
//   NOTIFY and reads it: the time from the start of the append until the reader has the record.
// - Prompt-hook floor: a process that loads the bundled pg driver, connects and runs the hook's one
//   scoped query, vs bare `node -e 0`; and a process that only reads a small cache file, as a hook that
//   does not connect would (a per-machine pending-mail file kept by LISTENing servers).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

export async function benchPostgres({ root, work, runs, report, median, percentile, timeProcess }) {
  const clusters = await import(pathToFileURL(join(root, "scripts/pg-cluster.mjs")).href);
  let cluster;
  let url = process.env.PEERPOST_TEST_PG_URL;
  if (!url) {
    if (!clusters.serverBinDir()) return console.error("\npostgres: skipped (no PostgreSQL server binaries; apt-get install postgresql)");
    cluster = await clusters.startCluster();
    url = cluster.url;
  }
  try {
    const { openDatabase } = await import(join(root, ".build/core/store/postgres/open.js"));
    const { mailboxEvent } = await import(join(root, ".build/core/schemas.js"));
    const sender = openDatabase(url, "server");
    const receiver = openDatabase(url, "server");
    const sendLog = sender.log("mailbox", mailboxEvent);
    const readLog = receiver.log("mailbox", mailboxEvent);
    await sendLog.end();
    console.error("\npostgres: append on one machine → NOTIFY wake + scoped read on another, 60 rounds");
    let position = await readLog.end();
    let waiting;
    const unwatch = readLog.watch(async () => {
      const found = [];
      position = (await readLog.readScope("claude:asker", position, (entry) => found.push(entry.record.id))).next;
      if (waiting && found.includes(waiting.id)) waiting.resolve();
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const latencies = [];
    for (let i = 0; i < 60; i++) {
      const id = `01JAAAAAAAAAAAAAAAAAAA${String(1000 + i)}`;
      const woke = new Promise((resolve) => (waiting = { id, resolve }));
      const started = process.hrtime.bigint();
      const record = { v: 1, type: "msg", id, from: "codex:replier", fromVerified: true, to: "claude:asker", sentAt: new Date().toISOString(), anticipation: "fyi", conversationId: id, hop: 1, body: "the answer" };
      await sendLog.append([{ record, scopes: ["codex:replier", "claude:asker"] }]);
      await woke;
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    unwatch();
    await sender.close();
    await receiver.close();
    report("pg cross-machine wake p50 ms", percentile(latencies, 50), "target ms", 100, `(p99 ${percentile(latencies, 99).toFixed(1)} ms)`);

    const driver = join(work, "pg.cjs");
    await build({ stdin: { contents: 'module.exports = require("pg");', resolveDir: root, loader: "js" }, bundle: true, platform: "node", format: "cjs", minify: true, outfile: driver, logLevel: "error" });
    const hook = join(work, "pg-hook-floor.cjs");
    writeFileSync(
      hook,
      `const { Client } = require(${JSON.stringify(driver)});
const client = new Client({ connectionString: process.env.URL });
client.connect().then(() => client.query("SELECT seq, record::text FROM peerpost_log_mailbox WHERE seq > $1 AND scopes && $2::text[] ORDER BY seq", ["0", ["claude:nobody"]])).then(() => client.end());`,
    );
    const cache = join(work, "pending.json");
    writeFileSync(cache, JSON.stringify({ v: 1, machine: "bench", sessions: { "claude:asker": { unread: 1, from: ["codex:replier"] } } }));
    const cacheHook = join(work, "cache-hook.cjs");
    writeFileSync(cacheHook, `const p = JSON.parse(require("fs").readFileSync(${JSON.stringify(cache)}, "utf8")); if (!p.sessions["claude:asker"]) process.exit(1);`);
    console.error(`postgres: prompt-hook floor vs node -e 0 (${runs} runs each, interleaved)`);
    const base = [];
    const connect = [];
    const file = [];
    for (let i = 0; i < runs; i++) {
      base.push(timeProcess(process.execPath, ["-e", "0"]).elapsed);
      const run = timeProcess(process.execPath, [hook], { env: { ...process.env, URL: url } });
      if (run.status !== 0) throw new Error("the pg hook floor process failed");
      connect.push(run.elapsed);
      file.push(timeProcess(process.execPath, [cacheHook]).elapsed);
    }
    report("pg hook floor (node + pg + connect + 1 query) ms", median(connect), "node -e 0 ms", median(base), "(target ≤ 2×)");
    report("cache-file hook floor (node + read one file) ms", median(file), "node -e 0 ms", median(base), "(a hook that does not connect)");
  } finally {
    if (cluster) clusters.stopCluster(cluster);
  }
}
