// npm run bench -- --only postgres: the PostgreSQL store on a throwaway local cluster.
// - Wake: one "machine" appends a record, another (its own pool and LISTEN connection) is woken by
//   NOTIFY and reads it: the time from the start of the append until the reader has the record.
// - Prompt-hook floor: a process that loads the pg driver hooks load (dist's vendored bundle), connects
//   and runs the hook's one scoped query, vs bare `node -e 0`: what any hook that connects pays.
// - The real prompt hook with no server on the machine: reading a mirror found current within
//   PEERPOST_MIRROR_TRUST_MS, and connecting (bound 0); the file store's; and with a server following.
// - The mailbox's mirror compacted: a machine new to a store of old, finished mail copies it all (index-run),
//   then `peerpost compact` moves it to the mirror's archive; the mirror's size after against before.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { generateMailbox } from "./mailbox-generator.mjs";

/** Messages in the store whose mirror the compaction row compacts. */
const MIRROR_MESSAGES = 50_000;

/**
 * A store of MIRROR_MESSAGES finished messages, a year old (migrated from a generated file store), mirrored
 * by a machine new to it, whose `peerpost compact` then moves them to the mirror's archive.
 */
async function benchMirrorCompaction({ root, work, url, report, timeProcess }) {
  console.error(`postgres: the mailbox's mirror on a new machine, ${MIRROR_MESSAGES} finished messages, before and after \`peerpost compact\``);
  const cli = join(root, "dist/cli.mjs");
  const source = join(work, "pg-mirror-source");
  mkdirSync(join(source, "state"), { recursive: true, mode: 0o700 });
  generateMailbox(join(source, "state", "mailbox.jsonl"), { messages: MIRROR_MESSAGES, pendingFor: "claude:bench-me", openCount: 100 });
  const base = { PATH: process.env.PATH, PEERPOST_NOW: "2030-01-01T00:00:00Z", PEERPOST_COMPACT_AT_BYTES: String(2 ** 40) };
  const migrated = timeProcess(process.execPath, [cli, "migrate", "--to", url], { env: { ...base, HOME: source, PEERPOST_HOME: join(source, "state") } });
  if (migrated.status !== 0) throw new Error(`migrate failed: ${migrated.stdout}`);
  const home = join(work, "pg-mirror-machine");
  const env = { ...base, HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_STORE: url };
  mkdirSync(home, { recursive: true });
  const synced = timeProcess(process.execPath, [cli, "index-run"], { env });
  const mirror = join(home, "state", "mirror-mailbox.jsonl");
  if (synced.status !== 0 || !existsSync(mirror)) throw new Error(`index-run did not mirror the store: ${synced.stdout}`);
  const before = statSync(mirror).size;
  const run = timeProcess(process.execPath, [cli, "compact", "--json"], { env });
  if (run.status !== 0) throw new Error(`compact failed: ${run.stdout}`);
  report(`pg mailbox mirror (${MIRROR_MESSAGES} messages) bytes after compaction`, statSync(mirror).size, "bytes before", before, `(${(run.elapsed / 1000).toFixed(1)} s, peak RSS ${(run.rss / 1024).toFixed(0)} MB; the copy from the database took ${(synced.elapsed / 1000).toFixed(1)} s; the database keeps every row)`);
}

/**
 * The real UserPromptSubmit hook on a PostgreSQL store with one pending message, no server on the machine:
 * with the mirror found current within PEERPOST_MIRROR_TRUST_MS (it reads the mirror, no connection; the
 * bound is set wide so that every run falls within it) and with the bound 0 (it connects every time);
 * then the file store for scale, and the same hook while a server follows the database.
 */
async function benchRealHook({ root, work, runs, url, report, median, timeProcess }) {
  const { openPeerpost } = await import(join(root, ".build/core/peerpost.js"));
  const home = join(work, "pg-hook-home");
  const stateDir = join(home, "state");
  // A minimal environment, the baseline's too: variables such as NODE_EXTRA_CA_CERTS change every node start.
  const env = { PATH: process.env.PATH, HOME: home, PEERPOST_HOME: stateDir, PEERPOST_STORE: url };
  mkdirSync(home, { recursive: true });
  const peerpost = openPeerpost({ env, home });
  // A session of its own in every run: a database kept between runs (PEERPOST_TEST_PG_URL) holds earlier runs' mail.
  const sessionId = `hooked-${Date.now()}`;
  await peerpost.sessions.register({ host: "claude-code", address: `claude:${sessionId}`, sessionId, source: "startup" });
  await peerpost.mailbox.send({ from: "codex:other", fromVerified: true, to: `claude:${sessionId}`, body: "pending", anticipation: "fyi" });
  await peerpost.backend.close();
  const hook = join(root, "dist/claude-code/hooks.cjs");
  const input = JSON.stringify({ session_id: sessionId, hook_event_name: "UserPromptSubmit", prompt: "hi" });
  const measure = (label, hookEnv = env) => {
    const base = [];
    const times = [];
    for (let i = 0; i < runs; i++) {
      base.push(timeProcess(process.execPath, ["-e", "0"], { env: hookEnv }).elapsed);
      const run = timeProcess(process.execPath, [hook, "user-prompt"], { input, env: hookEnv });
      if (!run.stdout.includes("1 new message")) throw new Error(`the ${label} hook did not flag the pending message`);
      times.push(run.elapsed);
    }
    report(`prompt hook, ${label} ms`, median(times), "node -e 0 ms", median(base), "(target ≤ 2×)");
  };
  measure("no server, mirror found current within the bound (reads the mirror)", { ...env, PEERPOST_MIRROR_TRUST_MS: "600000" });
  measure("no server, mirror older than the bound (connects)", { ...env, PEERPOST_MIRROR_TRUST_MS: "0" });
  // The same hook on the file store, for scale: what a prompt costs without any database.
  const fileHome = join(work, "file-hook-home");
  const fileEnv = { PATH: process.env.PATH, HOME: fileHome, PEERPOST_HOME: join(fileHome, "state") };
  mkdirSync(fileHome, { recursive: true });
  const files = openPeerpost({ env: fileEnv, home: fileHome });
  await files.sessions.register({ host: "claude-code", address: `claude:${sessionId}`, sessionId, source: "startup" });
  await files.mailbox.send({ from: "codex:other", fromVerified: true, to: `claude:${sessionId}`, body: "pending", anticipation: "fyi" });
  measure("file store instead", fileEnv);
  const server = spawn(process.execPath, [join(root, "dist/cli.mjs"), "serve"], { env: { ...process.env, ...env, PEERPOST_ADDRESS: "codex:follower" }, stdio: ["pipe", "ignore", "ignore"] });
  try {
    const followers = join(stateDir, "followers");
    for (let i = 0; i < 200 && !(existsSync(followers) && readdirSync(followers).length > 0); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    measure("a server following (reads the mirror)");
  } finally {
    server.kill();
  }
}

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
    const { mailboxEvent } = await import(join(root, ".build/core/records/schemas.js"));
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

    // The driver as hooks load it (dist's vendored bundle), ended as a hook ends it (not waiting for the server's close).
    const driver = join(root, "dist/claude-code/vendor/pg.cjs");
    const hook = join(work, "pg-hook-floor.cjs");
    writeFileSync(
      hook,
      `const { Client } = require(${JSON.stringify(driver)});
const client = new Client({ connectionString: process.env.URL });
client.connect().then(() => client.query("SELECT seq, record::text FROM peerpost_log_mailbox WHERE seq > $1 AND scopes && $2::text[] ORDER BY seq", ["0", ["claude:nobody"]])).then(() => { client.connection.stream.unref(); client.end(); });`,
    );
    console.error(`postgres: prompt-hook floor vs node -e 0 (${runs} runs each, interleaved)`);
    const base = [];
    const connect = [];
    const minimal = { PATH: process.env.PATH };
    for (let i = 0; i < runs; i++) {
      base.push(timeProcess(process.execPath, ["-e", "0"], { env: minimal }).elapsed);
      const run = timeProcess(process.execPath, [hook], { env: { ...minimal, URL: url } });
      if (run.status !== 0) throw new Error("the pg hook floor process failed");
      connect.push(run.elapsed);
    }
    report("pg hook floor (node + pg + connect + 1 query) ms", median(connect), "node -e 0 ms", median(base), "(target ≤ 2×)");
    await benchRealHook({ root, work, runs, url, report, median, timeProcess });
    await benchMirrorCompaction({ root, work, url, report, timeProcess });
  } finally {
    if (cluster) clusters.stopCluster(cluster);
  }
}
