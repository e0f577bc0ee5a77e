// The CLI with a PostgreSQL store: doctor names the store, whether it answers and its schema version
// (password masked everywhere); migrate copies a file store's history once and idempotently. With the
// database away, `peerpost inbox` shows a person's own mail from the mirror (its read mark, a write, waits).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cliEnv, onCleanup, tempDir, tempPeerpost } from "./helpers/temp.js";
import { until } from "./helpers/poll.js";
import { collect, spawnFixture, type Collected } from "./helpers/children.js";
import { traffic } from "./helpers/old-traffic.js";
import { CLI } from "./helpers/mcp.js";
import { ulid } from "ulid";
import { openPeerpost } from "../core/peerpost.js";
import { clusterScript, NO_POSTGRES, sql, testDatabase } from "./helpers/postgres.js";
import { SCHEMA_VERSION } from "../core/store/postgres/schema.js";

function cli(env: Record<string, string>, ...args: string[]): Promise<Collected> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  return collect(child);
}

test("migrate copies the file store into PostgreSQL once; a second run copies nothing; doctor then reports the schema", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const store = openPeerpost({ env, home });
  await store.sessions.register({ host: "codex", address: "codex:bob", sessionId: "bob", source: "startup" });
  await store.sessions.register({ host: "claude-code", address: "claude:alice", sessionId: "alice", source: "startup" });
  const { message } = await store.mailbox.send({ from: "claude:alice", fromVerified: true, to: "codex:bob", body: "ping", anticipation: "reply" });
  await store.mailbox.resolve({ id: message.id, by: "codex:bob", resolution: "reply", text: "pong" });
  await store.receipts.record({ kind: "send", host: "cli", from: "claude:alice", to: "codex:bob", messageId: message.id, delivery: "queued", warnings: [], origin: { source: "explicit", pid: 1 } });

  const before = await cli({ ...env, PEERPOST_STORE: url }, "doctor", "--json");
  const beforeStore = (JSON.parse(before.stdout) as { store: { reachable: boolean; schemaVersion: number | null } }).store;
  assert.equal(beforeStore.reachable, true);
  assert.equal(beforeStore.schemaVersion, null, "nothing created before the first write");

  const first = await cli(env, "migrate", "--to", url, "--json");
  assert.equal(first.code, 0, first.stderr);
  const copied = (JSON.parse(first.stdout) as { logs: Array<{ log: string; read: number; copied: number; alreadyThere: number }> }).logs;
  assert.deepEqual(copied.map((log) => [log.log, log.read, log.copied, log.alreadyThere]), [["sessions", 2, 2, 0], ["mailbox", 3, 3, 0], ["receipts", 1, 1, 0]]);
  const again = await cli(env, "migrate", "--to", url, "--json");
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual((JSON.parse(again.stdout) as { logs: Array<{ copied: number; alreadyThere: number }> }).logs.map((log) => [log.copied, log.alreadyThere]), [[0, 2], [0, 3], [0, 1]]);

  const rows = (await sql(url, "SELECT scopes, record->>'type' AS type FROM peerpost_log_mailbox ORDER BY seq")) as { rows: Array<{ scopes: string[]; type: string }> };
  assert.deepEqual(rows.rows.map((row) => row.type), ["msg", "msg", "resolved"], "log order kept");
  assert.deepEqual(rows.rows[2]!.scopes.sort(), ["claude:alice", "codex:bob"], "an event carries its message's scopes");
  const sessions = (await sql(url, "SELECT record->>'machine' AS machine FROM peerpost_log_sessions")) as { rows: Array<{ machine: string }> };
  assert.deepEqual(new Set(sessions.rows.map((row) => row.machine)), new Set([store.machine()]), "copied sessions name this machine");

  const after = await cli({ ...env, PEERPOST_STORE: url }, "doctor");
  assert.match(after.stdout, new RegExp(`store {6}postgres postgres://peerpost_test:\\*\\*\\*@127\\.0\\.0\\.1:\\d+/\\w+: reachable, schema ${SCHEMA_VERSION}; machine ${store.machine().replace(".", "\\.")}`));
  assert.ok(!after.stdout.includes(new URL(url).password));
});

test("migrate run again after a compaction archived receipts copies none of them back; an archive of schema 2 holding a key twice keeps the first", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const store = openPeerpost({ env, home });
  for (const to of ["codex:bob", "codex:carol"]) await store.receipts.record({ kind: "send", host: "cli", from: "claude:alice", to, messageId: ulid(), delivery: "queued", warnings: [], origin: { source: "explicit", pid: 1 } });
  assert.equal((await cli(env, "migrate", "--to", url, "--json")).code, 0);
  const later = { ...env, PEERPOST_STORE: url, PEERPOST_NOW: new Date(Date.now() + 60 * 86_400_000).toISOString(), PEERPOST_LOG_RETENTION_DAYS: "30" };
  const compacted = await cli(later, "compact", "--json");
  assert.equal(compacted.code, 0, compacted.stdout + compacted.stderr);
  const tables = async () => [await rowCount(url, "peerpost_log_receipts"), await rowCount(url, "peerpost_archive_receipts")];
  assert.deepEqual(await tables(), [0, 2], "both receipts archived");

  const again = await cli(env, "migrate", "--to", url, "--json");
  assert.equal(again.code, 0, again.stderr);
  const receipts = (JSON.parse(again.stdout) as { logs: Array<{ log: string; copied: number; alreadyThere: number }> }).logs.find((log) => log.log === "receipts");
  assert.deepEqual([receipts?.copied, receipts?.alreadyThere], [0, 2], "an archived key counts as there");
  assert.deepEqual(await tables(), [0, 2]);

  // An archive as schema 2 left it: no unique key, one receipt there twice.
  await sql(url, "DROP INDEX peerpost_archive_receipts_key; UPDATE peerpost_schema SET version = 2");
  await sql(url, "INSERT INTO peerpost_archive_receipts (seq, key, scopes, record, stored_at) SELECT seq + 1000, key, scopes, record, stored_at FROM peerpost_archive_receipts WHERE seq = (SELECT min(seq) FROM peerpost_archive_receipts)");
  assert.deepEqual(await tables(), [0, 3]);
  // A machine new to the store migrates it on its first use, then copies the rows to its mirror.
  const newHome = tempDir(t);
  const newcomer = openPeerpost({ env: { HOME: newHome, PEERPOST_HOME: join(newHome, "state"), PEERPOST_STORE: url }, home: newHome });
  onCleanup(t, () => newcomer.backend.close());
  await newcomer.backend.sync();
  assert.deepEqual(await tables(), [0, 2], "the later copy went");
  const keys = (await sql(url, "SELECT count(DISTINCT key)::int AS n, (SELECT version FROM peerpost_schema) AS v FROM peerpost_archive_receipts")) as { rows: Array<{ n: number; v: number }> };
  assert.deepEqual(keys.rows[0], { n: 2, v: SCHEMA_VERSION });
  assert.deepEqual(newcomer.receipts.query({}).receipts.map((receipt) => receipt.to).sort(), ["codex:bob", "codex:carol"], "reads see each archived receipt once");
});

test("migrate copies the mail a compaction of the file store archived, before the live mail; status then finds an archived message", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const fileStore = tempPeerpost(t);
  const { message } = await fileStore.peerpost.mailbox.send({ from: "claude:alice", fromVerified: true, to: "codex:bob", body: "an old question", anticipation: "reply" });
  await fileStore.peerpost.mailbox.resolve({ id: message.id, by: "codex:bob", resolution: "reply", text: "an old answer" });
  fileStore.clock.now += 40 * 86_400_000;
  await fileStore.peerpost.mailbox.send({ from: "claude:alice", fromVerified: true, to: "codex:bob", body: "a new one", anticipation: "reply" });
  const compacted = await cli(cliEnv(fileStore), "compact", "--json");
  assert.equal((JSON.parse(compacted.stdout) as { movedMessages: number }).movedMessages, 1, compacted.stdout + compacted.stderr);

  const migrated = await cli(cliEnv(fileStore), "migrate", "--to", url, "--json");
  assert.equal(migrated.code, 0, migrated.stderr);
  const bodies = (await sql(url, "SELECT record->>'body' AS body FROM peerpost_log_mailbox WHERE record->>'type' = 'msg' ORDER BY seq")) as { rows: Array<{ body: string }> };
  assert.deepEqual(bodies.rows.map((row) => row.body), ["an old question", "an old answer", "a new one"], "the archive's mail first, in its order");
  const onPostgres = await cli(cliEnv(fileStore, { PEERPOST_STORE: url }), "status", message.id, "--json");
  assert.equal(onPostgres.code, 0, onPostgres.stdout + onPostgres.stderr);
  assert.equal((JSON.parse(onPostgres.stdout) as { message: { status: string } }).message.status, "replied");
  // Run again, nothing is new: archive and live file alike.
  const again = await cli(cliEnv(fileStore), "migrate", "--to", url, "--json");
  const mailbox = (JSON.parse(again.stdout) as { logs: Array<{ log: string; copied: number; alreadyThere: number }> }).logs.find((log) => log.log === "mailbox");
  assert.deepEqual([mailbox?.copied, mailbox?.alreadyThere], [0, 4]);
});

test("migrate brings over first what a compaction killed after its swap left in the old file", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const fileStore = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  await traffic(fileStore.peerpost, fileStore.clock);
  const killed = await collect(spawnFixture("compactor", [fileStore.stateDir], { PEERPOST_NOW: String(fileStore.clock.now), PEERPOST_RETENTION_DAYS: "30", PEERPOST_FAULT: "compact-after-rename" }));
  assert.equal(killed.signal, "SIGKILL", killed.stderr);
  // Acknowledged in the old file after the compactor's last copy, and only there.
  const elsewhere = tempPeerpost(t);
  const { message } = await elsewhere.peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "written to the old file", anticipation: "reply" });
  appendFileSync(join(fileStore.stateDir, "mailbox.jsonl.old"), readFileSync(join(elsewhere.stateDir, "mailbox.jsonl"), "utf8").trim().split("\n").at(-1)! + "\n");
  const migrated = await cli(cliEnv(fileStore), "migrate", "--to", url, "--json");
  assert.equal(migrated.code, 0, migrated.stderr);
  const rows = (await sql(url, `SELECT count(*)::int AS n FROM peerpost_log_mailbox WHERE record->>'id' = '${message.id}'`)) as { rows: Array<{ n: number }> };
  assert.equal(rows.rows[0]!.n, 1);
});

async function rowCount(url: string, table: string): Promise<number> {
  return ((await sql(url, `SELECT count(*)::int AS n FROM ${table}`)) as { rows: Array<{ n: number }> }).rows[0]!.n;
}

test("doctor and a bad PEERPOST_STORE never show the password; an unreachable store is a problem with a fix", async (t) => {
  const home = tempDir(t);
  const secret = "hunter2-secret";
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_STORE: `postgres://me:${secret}@127.0.0.1:1/peerpost` };
  const down = await cli(env, "doctor", "--json");
  assert.equal(down.code, 1);
  const report = JSON.parse(down.stdout) as { store: { reachable: boolean; location: string }; problems: Array<{ problem: string; fix: string }> };
  assert.equal(report.store.reachable, false);
  assert.equal(report.store.location, "postgres://me:***@127.0.0.1:1/peerpost");
  assert.ok(report.problems.some((item) => /is not reachable/.test(item.problem) && /PEERPOST_STORE/.test(item.fix)));
  assert.ok(!down.stdout.includes(secret) && !down.stderr.includes(secret));
  const bad = await cli({ ...env, PEERPOST_STORE: `mysql://me:${secret}@host/db` }, "doctor", "--json");
  assert.ok(!bad.stdout.includes(secret) && !bad.stderr.includes(secret), bad.stdout + bad.stderr);
  assert.match(bad.stdout, /PEERPOST_STORE=.*mysql:\/\/me:\*\*\*@host\/db.*expected file or a postgres:\/\/ URL/);
});

test("the web view on a PostgreSQL store shows mail another machine sends while the page is open", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const here = tempDir(t);
  const there = tempDir(t);
  const env = { HOME: here, PEERPOST_HOME: join(here, "state"), PEERPOST_STORE: url, PEERPOST_USER: "ana" };
  const ui = spawn(process.execPath, [CLI, "ui", "--no-open"], { env: { PATH: "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  onCleanup(t, () => ui.kill("SIGKILL"));
  const exited = collect(ui);
  let printed = "";
  ui.stdout.on("data", (chunk: Buffer) => (printed += chunk.toString("utf8")));
  await until(() => printed.includes("\n"), 30_000, "the web view's URL");
  const page = new URL(printed.trim());
  const state = async () => (await fetch(new URL(`/api/state${page.search}`, page))).text();

  const sent = await cli({ HOME: there, PEERPOST_HOME: join(there, "state"), PEERPOST_STORE: url }, "send", "--from", "claude:elsewhere", "--to", "user:ana", "--anticipation", "reply", "from the other machine");
  assert.equal(sent.code, 0, sent.stderr);
  await until(async () => (await state()).includes("from the other machine"), 15_000, "the other machine's message in the page's state");
  ui.kill("SIGTERM");
  // It stops on SIGTERM (not left for the clean-up's SIGKILL); after a NOTIFY-driven sync Node may end it
  // by the signal itself rather than with exit 0.
  const end = await exited;
  assert.ok(end.code === 0 || end.signal === "SIGTERM", `SIGTERM stops the web view: ${end.code} ${end.signal} ${end.stderr}`);
});

test("with the database away, peerpost inbox still shows a person's own mail from the mirror", async (t) => {
  const script = await clusterScript();
  if (!script.serverBinDir()) return t.skip(NO_POSTGRES);
  const cluster = (await script.startCluster()) as { url: string };
  t.after(() => script.stopCluster(cluster));
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_STORE: cluster.url, PEERPOST_USER: "pat" };
  assert.equal((await cli(env, "send", "--from", "codex:a", "--to", "user:pat", "hello pat")).code, 0);
  script.stopServer(cluster, "immediate");
  const shown = await cli(env, "inbox", "--json");
  assert.equal(shown.code, 0, shown.stdout + shown.stderr);
  const lines = shown.stdout.trim().split("\n").filter((line) => line.startsWith("{"));
  assert.equal(lines.length, 1, `one JSON document on stdout: ${shown.stdout}`);
  const parsed = JSON.parse(shown.stdout) as { ok: boolean; messages: Array<{ body: string }>; warnings?: Array<{ code: string }> };
  assert.equal(parsed.ok, true);
  assert.deepEqual(parsed.messages.map((message) => message.body), ["hello pat"]);
  assert.deepEqual(parsed.warnings?.map((warning) => warning.code).sort(), ["read_not_recorded", "store_unreachable"], shown.stdout);
  const prose = await cli(env, "inbox");
  assert.equal(prose.code, 0, prose.stdout + prose.stderr);
  assert.match(prose.stdout, /hello pat/);
});
