// The PostgreSQL store against a real server: order, the decide step under the advisory lock across
// connections, idempotency keys, scoped reads, invalid rows, NOTIFY (none for a rolled-back append),
// schema versions, masked credentials, and watchers that re-read after the server restarts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PostgresDatabase } from "../core/store/postgres/store.js";
import type { StoredRecord } from "../core/store/types.js";
import { SCHEMA_VERSION } from "../core/store/postgres/schema.js";
import { PeerpostError } from "../core/common/errors.js";
import type { RecordSchema } from "../core/log/types.js";
import { clusterScript, NO_POSTGRES, sql, testCluster, testDatabase } from "./helpers/postgres.js";
import { onCleanup, tempDir } from "./helpers/temp.js";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { maskSecretsIn, maskStoreUrl } from "../core/store/postgres/url.js";
import { until } from "./helpers/poll.js";

interface Note {
  n: number;
  text: string;
}

const noteSchema: RecordSchema<Note> = {
  safeParse(input) {
    const value = input as Partial<Note> | null;
    if (typeof value === "object" && value !== null && typeof value.n === "number" && typeof value.text === "string") return { success: true, data: value as Note };
    return { success: false, error: { issues: [{ message: "not a note", path: ["n"] }] } };
  },
};

function openStore(t: import("node:test").TestContext, url: string, poolSize = 4): PostgresDatabase {
  const store = new PostgresDatabase({ url, connectTimeoutMs: 2000, statementTimeoutMs: 10_000, poolSize });
  onCleanup(t, () => store.close());
  return store;
}

async function readAll(store: PostgresDatabase, scope?: string): Promise<StoredRecord<Note>[]> {
  const entries: StoredRecord<Note>[] = [];
  const log = store.log("mailbox", noteSchema);
  const visit = (entry: StoredRecord<Note>) => void entries.push(entry);
  await (scope === undefined ? log.read(log.origin, visit) : log.readScope(scope, log.origin, visit));
  return entries;
}

test("appends keep their order, read from a position, and a key makes an append idempotent", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const store = openStore(t, url);
  const log = store.log("mailbox", noteSchema);
  const first = (await log.append([{ record: { n: 1, text: "a" } }, { record: { n: 2, text: "b" }, key: "k2" }])).entries;
  assert.deepEqual(first.map((entry) => entry.record.n), [1, 2]);
  assert.deepEqual((await log.append([{ record: { n: 99, text: "again" }, key: "k2" }])).entries, [], "a repeated key stores nothing");
  await log.append([{ record: { n: 3, text: "ünïcode \u0000 and \u202e" } }]);
  const after: Note[] = [];
  const read = await log.read(first[0]!.next, (entry) => after.push(entry.record));
  assert.deepEqual(after.map((note) => note.n), [2, 3]);
  assert.equal(after[1]!.text, "ünïcode \u0000 and \u202e", "any character survives, NUL included");
  assert.equal(read.next, await log.end());
  const nothing = await log.read(read.next, () => assert.fail("nothing after the end"));
  assert.equal(nothing.next, read.next);
  assert.equal((await log.readAt(first[1]!.position))?.text, "b");
  assert.ok(log.compare(first[0]!.position, first[1]!.position) < 0);
});

test("the decide step runs under the log's lock: 3 connections × 20 read-then-append steps never interleave", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const stores = [openStore(t, url), openStore(t, url), openStore(t, url)];
  await Promise.all(
    stores.map(async (store, writer) => {
      const log = store.log("mailbox", noteSchema);
      for (let i = 0; i < 20; i++)
        await log.appendDeciding(async (context) => {
          // Whoever decides sees every earlier decision: the next number is always the count so far.
          let count = 0;
          await context.read(log.origin, () => count++);
          return { items: [{ record: { n: count, text: `writer ${writer}` } }] };
        });
    }),
  );
  const entries = await readAll(stores[0]!);
  assert.deepEqual(entries.map((entry) => entry.record.n), Array.from({ length: 60 }, (_, i) => i));
});

test("scoped reads return only the records that concern an address", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const log = openStore(t, url).log("mailbox", noteSchema);
  await log.append([
    { record: { n: 1, text: "a→b" }, scopes: ["claude:a", "codex:b"] },
    { record: { n: 2, text: "c→d" }, scopes: ["copilot:c", "grok:d"] },
    { record: { n: 3, text: "b→a" }, scopes: ["codex:b", "claude:a"] },
  ]);
  const store = openStore(t, url);
  assert.deepEqual((await readAll(store, "claude:a")).map((entry) => entry.record.n), [1, 3]);
  assert.deepEqual((await readAll(store, "grok:d")).map((entry) => entry.record.n), [2]);
});

test("a row that is not a valid record is reported and skipped, never dropped; an invalid append writes nothing", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const store = openStore(t, url);
  const log = store.log("mailbox", noteSchema);
  await log.append([{ record: { n: 1, text: "ok" } }]);
  await sql(url, `INSERT INTO peerpost_log_mailbox (record) VALUES ('{"n":"two"}'), ('[1,2]')`);
  await log.append([{ record: { n: 4, text: "ok" } }]);
  const seen: number[] = [];
  const result = await log.read(log.origin, (entry) => void seen.push(entry.record.n));
  assert.deepEqual(seen, [1, 4]);
  assert.equal(result.corrupt.length, 2);
  assert.match(result.corrupt[0]!.reason, /not a valid record at n/);
  await assert.rejects(log.append([{ record: { n: "x" } as unknown as Note }]), (error: unknown) => error instanceof PeerpostError && error.code === "internal_error");
  assert.equal((await readAll(store)).length, 2);
});

test("watchers wake on a committed append and not on a rolled-back one", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const writer = openStore(t, url).log("mailbox", noteSchema);
  await writer.append([{ record: { n: 0, text: "creates the schema" } }]);
  const watcher = openStore(t, url);
  let wakes = 0;
  const unwatch = watcher.log("mailbox", noteSchema).watch(() => wakes++);
  onCleanup(t, unwatch);
  await until(() => wakes >= 1, 5000, "the wake after LISTEN is set up");
  const before = wakes;
  await assert.rejects(
    writer.appendDeciding(() => {
      throw new Error("changed my mind");
    }),
  );
  await writer.append([{ record: { n: 1, text: "committed" } }]);
  await until(() => wakes > before, 5000, "a wake for the committed append");
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(wakes, before + 1, "one wake: the rolled-back append sent none");
});

test("a newer schema is refused naming both versions; an older peerpost never writes into it", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  await openStore(t, url).log("mailbox", noteSchema).append([{ record: { n: 1, text: "v1" } }]);
  await sql(url, `UPDATE peerpost_schema SET version = ${SCHEMA_VERSION + 1}`);
  const store = openStore(t, url);
  await assert.rejects(store.log("mailbox", noteSchema).append([{ record: { n: 2, text: "v1 writer" } }]), (error: unknown) => {
    assert.ok(error instanceof PeerpostError);
    assert.equal(error.code, "state_io_error");
    assert.match(error.message, new RegExp(`schema version ${SCHEMA_VERSION + 1}, newer than this peerpost's ${SCHEMA_VERSION}`));
    return true;
  });
  const reach = await store.reachability();
  assert.equal(reach.reachable, true);
  assert.equal(reach.schemaVersion, SCHEMA_VERSION + 1);
});

test("an unreachable store fails state_io_error with a hint, and the password never appears", async (t) => {
  const cluster = await testCluster();
  if (!cluster) return t.skip(NO_POSTGRES);
  const secret = "s3cret-pw-xyz";
  const url = `postgres://someone:${secret}@127.0.0.1:1/nowhere`;
  const store = openStore(t, url);
  await assert.rejects(store.log("mailbox", noteSchema).append([{ record: { n: 1, text: "x" } }]), (error: unknown) => {
    assert.ok(error instanceof PeerpostError);
    assert.equal(error.code, "state_io_error");
    assert.match(error.toValue().hint ?? "", /not reachable/);
    assert.ok(!JSON.stringify(error.toValue()).includes(secret), JSON.stringify(error.toValue()));
    assert.match(error.message, /someone:\*\*\*@127\.0\.0\.1:1/);
    return true;
  });
  const reach = await store.reachability();
  assert.equal(reach.reachable, false);
  assert.ok(!JSON.stringify(reach).includes(secret));
});

test("after the server restarts, a watcher reconnects and re-reads from its last position: nothing is missed", async (t) => {
  const script = await clusterScript();
  if (!script.serverBinDir()) return t.skip(NO_POSTGRES);
  const cluster = await script.startCluster();
  onCleanup(t, () => script.stopCluster(cluster));
  const writer = openStore(t, cluster.url);
  const reader = openStore(t, cluster.url);
  const writeLog = writer.log("mailbox", noteSchema);
  const readLog = reader.log("mailbox", noteSchema);
  await writeLog.append([{ record: { n: 1, text: "before" } }]);
  let position = readLog.origin;
  const seen: number[] = [];
  let reading = Promise.resolve();
  // A reader as the server's views are: on every wake, read on from the last position (a failed read moves nothing).
  const unwatch = readLog.watch(() => {
    reading = reading.then(async () => {
      try {
        position = (await readLog.read(position, (entry) => void seen.push(entry.record.n))).next;
      } catch {
        // The database is away; the wake after reconnecting reads on.
      }
    });
  });
  onCleanup(t, unwatch);
  await until(() => seen.includes(1), 10_000, "the first record");
  script.stopServer(cluster, "immediate");
  await assert.rejects(writeLog.append([{ record: { n: 99, text: "while down" } }]), (error: unknown) => error instanceof PeerpostError && error.code === "state_io_error");
  script.startServer(cluster);
  // Appended by another connection right after the restart, maybe before the watcher has listened again.
  const other = openStore(t, cluster.url);
  await other.log("mailbox", noteSchema).append([{ record: { n: 2, text: "after" } }]);
  await until(() => seen.includes(2), 20_000, "the record appended after the restart");
  await writeLog.append([{ record: { n: 3, text: "through the old pool" } }]);
  await until(() => seen.includes(3), 20_000, "a record appended through a pool that lived through the outage");
  assert.deepEqual(seen, [1, 2, 3]);
});

test("credentials come from the URL, PG* variables or a 0600 .pgpass (a readable one is ignored); TLS options reach the driver", async (t) => {
  const cluster = await testCluster();
  if (!cluster) return t.skip(NO_POSTGRES);
  const url = new URL(cluster.url);
  const password = decodeURIComponent(url.password);
  url.password = "";
  const bare = url.toString();
  const dir = tempDir(t);
  const pgpass = join(dir, "pgpass");
  writeFileSync(pgpass, `${url.hostname}:${url.port}:*:${decodeURIComponent(url.username)}:${password}\n`, { mode: 0o600 });
  const saved = { PGPASSFILE: process.env.PGPASSFILE, PGPASSWORD: process.env.PGPASSWORD };
  onCleanup(t, () => {
    for (const [name, value] of Object.entries(saved)) if (value === undefined) delete process.env[name]; else process.env[name] = value;
  });
  delete process.env.PGPASSWORD;
  process.env.PGPASSFILE = pgpass;
  assert.equal((await openStore(t, bare).reachability()).reachable, true, "the 0600 .pgpass supplied the password");
  chmodSync(pgpass, 0o644);
  const ignored = await openStore(t, bare).reachability();
  assert.equal(ignored.reachable, false, "a .pgpass others can read is ignored");
  process.env.PGPASSFILE = join(dir, "none");
  process.env.PGPASSWORD = password;
  assert.equal((await openStore(t, bare).reachability()).reachable, true, "PGPASSWORD supplied it");
  const tls = await openStore(t, `${cluster.url}?sslmode=require`).reachability();
  assert.equal(tls.reachable, false);
  assert.match(tls.error ?? "", /SSL|TLS/i, "sslmode=require asked the (plain) server for TLS");
  assert.ok(!(tls.error ?? "").includes(password));
});

test("store URLs are shown with the password masked, in the authority and in the query", () => {
  assert.equal(maskStoreUrl("postgres://bob:pa%40ss@db:5432/pp?sslmode=require"), "postgres://bob:***@db:5432/pp?sslmode=require");
  assert.equal(maskStoreUrl("postgresql://db/pp?user=bob&password=hunter2"), "postgresql://db/pp?user=bob&password=***");
  assert.equal(maskStoreUrl("postgres://bob@db/pp"), "postgres://bob@db/pp");
  assert.equal(maskStoreUrl("postgres://bob:secret@[bad"), "postgres://***");
  assert.equal(maskSecretsIn("failed for postgres://bob:s3cr3t@db/pp: s3cr3t rejected", "postgres://bob:s3cr3t@db/pp"), "failed for postgres://bob:***@db/pp: *** rejected");
});
