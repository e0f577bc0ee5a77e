// A real PostgreSQL for tests: the cluster CI started (PEERPOST_TEST_PG_URL), else a throwaway one this
// test process starts through scripts/pg-cluster.mjs and stops when it exits. Each test gets its own
// database, dropped afterwards.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { TestContext } from "node:test";
import { onCleanup, tempDir } from "./temp.js";
import { openPeerpost } from "../../core/peerpost.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));

export interface TestCluster {
  url: string;
  /** Present only for a cluster this process started: tests can stop and start its server. */
  handle?: unknown;
}

interface ClusterScript {
  serverBinDir(): string | undefined;
  startCluster(): Promise<{ url: string }>;
  stopCluster(cluster: unknown): void;
  stopServer(cluster: unknown, mode?: string): void;
  startServer(cluster: unknown): void;
}

export async function clusterScript(): Promise<ClusterScript> {
  return (await import(pathToFileURL(join(root, "scripts/pg-cluster.mjs")).href)) as ClusterScript;
}

let shared: Promise<TestCluster | undefined> | undefined;

/** The cluster for this run, or undefined (with the reason) when no PostgreSQL server can run here. */
export function testCluster(): Promise<TestCluster | undefined> {
  return (shared ??= (async () => {
    if (process.env.PEERPOST_TEST_PG_URL) return { url: process.env.PEERPOST_TEST_PG_URL };
    const script = await clusterScript();
    if (!script.serverBinDir()) return undefined;
    const cluster = await script.startCluster();
    // spawnSync-based, so it can run in the exit handler.
    process.on("exit", () => script.stopCluster(cluster));
    return { url: cluster.url, handle: cluster };
  })());
}

export const NO_POSTGRES = "no PostgreSQL: PEERPOST_TEST_PG_URL is unset and no server binaries are installed (apt-get install postgresql)";

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function admin<T>(url: string, work: (query: (sql: string) => Promise<unknown>) => Promise<T>): Promise<T> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work((sql) => client.query(sql));
  } finally {
    await client.end();
  }
}

/** A new, empty database on a cluster (the default test cluster), dropped when the test ends. */
export async function testDatabase(t: TestContext, cluster?: TestCluster): Promise<string | undefined> {
  const base = cluster ?? (await testCluster());
  if (!base) return undefined;
  const name = `peerpost_t_${randomBytes(6).toString("hex")}`;
  await admin(base.url, (query) => query(`CREATE DATABASE ${name}`));
  onCleanup(t, () => dropDatabase(base.url, name));
  return withDatabase(base.url, name);
}

/**
 * Drops a test database, ending its connections. A backend of another role (a server process of the
 * cluster) may still be on it for a moment, which the test role may not end: then it tries again.
 */
async function dropDatabase(url: string, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await admin(url, (query) => query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => undefined));
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= 50 || (code !== "42501" && code !== "55006")) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Runs SQL on a test database directly (to plant rows peerpost would never write). */
export function sql(url: string, text: string): Promise<unknown> {
  return admin(url, (query) => query(text));
}

/**
 * The database connection dies once (pg_terminate_backend, as a restart or a dropped link would end it) as
 * the first row of `table` that `when` (SQL over NEW) holds for is inserted: a store lost between appends.
 */
export function dropConnectionOnce(url: string, table: "peerpost_log_mailbox" | "peerpost_log_receipts" | "peerpost_log_sessions", when = "true"): Promise<unknown> {
  return sql(url, `
    CREATE SEQUENCE fire_once;
    CREATE FUNCTION go_away() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (${when}) AND nextval('fire_once') = 1 THEN PERFORM pg_terminate_backend(pg_backend_pid()); END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER go_away BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION go_away();`);
}

/** Another machine (a state dir of its own on the database at `url`) sends `to` an fyi. */
export async function mailFromAnotherMachine(t: TestContext, url: string, to: string): Promise<void> {
  const home = tempDir(t);
  const other = openPeerpost({ env: { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_STORE: url }, home });
  try {
    await other.mailbox.send({ from: "codex:elsewhere", fromVerified: true, to, body: "are you there?", anticipation: "fyi" });
  } finally {
    await other.backend.close();
  }
}
