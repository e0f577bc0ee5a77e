// The PostgreSQL store's schema, versioned. A process checks the version with one query; a missing or
// older schema is migrated under an advisory lock; a newer one is refused (an older peerpost must not
// write records a newer one would misread).
import { PeerpostError } from "../../common/errors.js";
import type { Pool } from "pg";
import type { Queryable } from "./connect.js";

export const SCHEMA_VERSION = 3;

/** Advisory lock class for peerpost (the two-int form keeps us clear of other users' bigint keys). */
export const LOCK_CLASS = 0x70707374;
const SCHEMA_LOCK = 0;

const LOG_NAME = /^[a-z][a-z0-9_]{0,39}$/;

export function logTable(log: string): string {
  if (!LOG_NAME.test(log)) throw new PeerpostError("internal_error", `Log name ${JSON.stringify(log)} cannot name a table.`, { hint: "This is a bug in peerpost." });
  return `peerpost_log_${log}`;
}

/** Logs whose old rows a compaction moves aside rather than drops: still read, as the file store's archives are. */
const ARCHIVED_LOGS = new Set(["receipts"]);

/** The table a compaction moves the log's old rows to, when it has one. */
export function archiveTable(log: string): string | undefined {
  return ARCHIVED_LOGS.has(log) ? `peerpost_archive_${log}` : undefined;
}

export function notifyChannel(log: string): string {
  return `peerpost_${log}`;
}

/**
 * One table per log: a sequence gives the order, `key` (optional, unique) makes an append idempotent,
 * `scopes` (the addresses a record concerns) lets a session read only its own records.
 * `json`, not `jsonb`: records come back byte for byte, and a body may hold any character.
 */
export function createLogTable(log: string): string {
  const table = logTable(log);
  return `CREATE TABLE IF NOT EXISTS ${table} (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key text UNIQUE,
    scopes text[] NOT NULL DEFAULT '{}',
    record json NOT NULL,
    stored_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX IF NOT EXISTS ${table}_scopes ON ${table} USING gin (scopes);`;
}

/** A log's archive: its rows as they were, seq and all, moved there in the transaction that took them out. */
function createArchiveTable(log: string): string {
  return `CREATE TABLE IF NOT EXISTS ${archiveTable(log)!} (
    seq bigint PRIMARY KEY,
    key text,
    scopes text[] NOT NULL,
    record json NOT NULL,
    stored_at timestamptz NOT NULL
  );`;
}

/**
 * A key stays unique across a log and its archive: an append checks the archive (store.ts), and this
 * index makes the check cheap. Archives of version 2 could hold one key twice (`migrate` run again after
 * a compaction copied archived rows back, and they moved again): those copies, the same record by its
 * key, go before the index is made, the first kept.
 */
function uniqueArchiveKeys(log: string): string {
  const archive = archiveTable(log)!;
  return `DELETE FROM ${archive} later USING ${archive} first WHERE later.key = first.key AND later.seq > first.seq;
  CREATE UNIQUE INDEX IF NOT EXISTS ${archive}_key ON ${archive} (key);`;
}

/** Migrations by the version they lead to. */
const MIGRATIONS: Record<number, string> = {
  1: ["mailbox", "receipts", "sessions"].map(createLogTable).join("\n"),
  2: [...ARCHIVED_LOGS].map(createArchiveTable).join("\n"),
  3: [...ARCHIVED_LOGS].map(uniqueArchiveKeys).join("\n"),
};

export interface SchemaState {
  version: number;
  migrated: boolean;
  /** Which database this is (its cluster's system identifier where this role may read it, and its oid): a mirror of another is not continued. */
  store: string;
}

function newerSchema(found: number): PeerpostError {
  return new PeerpostError("state_io_error", `The PostgreSQL store has schema version ${found}, newer than this peerpost's ${SCHEMA_VERSION}; refusing to use it.`, {
    details: { schemaVersion: found, supported: SCHEMA_VERSION },
    hint: "Upgrade peerpost on this machine to the version the other machines run. Nothing was written.",
  });
}

async function currentVersion(db: Queryable): Promise<number | undefined> {
  try {
    const result = await db.query<{ version: number }>("SELECT version FROM peerpost_schema WHERE id = 1");
    return result.rows[0]?.version ?? 0;
  } catch (error) {
    if ((error as { code?: string }).code === "42P01") return undefined; // no such table: a new database
    throw error;
  }
}

const STORE_OF_CLUSTER = "(SELECT system_identifier::text FROM pg_control_system()) || '/' || d.oid::text";
const STORE_OF_DATABASE = "d.oid::text";

/** The version with the store's identity, in one query (a hook's first). */
async function currentState(db: Queryable): Promise<{ version: number | undefined; store: string }> {
  try {
    const row = await withStore(db, "(SELECT version FROM peerpost_schema WHERE id = 1)");
    return { version: row.version ?? 0, store: row.store };
  } catch (error) {
    if ((error as { code?: string }).code !== "42P01") throw error;
    // No such table: a new database.
    return { version: undefined, store: (await withStore(db, "NULL::int")).store };
  }
}

/** `version` (an SQL expression) and the store's identity; without the cluster's id where this role may not read it. */
async function withStore(db: Queryable, version: string): Promise<{ version: number | null; store: string }> {
  const select = async (store: string) =>
    (await db.query<{ version: number | null; store: string }>(`SELECT ${version} AS version, ${store} AS store FROM pg_database d WHERE d.datname = current_database()`)).rows[0]!;
  try {
    return await select(STORE_OF_CLUSTER);
  } catch (error) {
    if ((error as { code?: string }).code !== "42501") throw error;
    return await select(STORE_OF_DATABASE);
  }
}

/** Checks the schema (one query when it is current) and migrates it when it is missing or older. */
export async function ensureSchema(pool: Pool): Promise<SchemaState> {
  const seen = await currentState(pool);
  if (seen.version === SCHEMA_VERSION) return { version: seen.version, migrated: false, store: seen.store };
  if (seen.version !== undefined && seen.version > SCHEMA_VERSION) throw newerSchema(seen.version);
  // One connection for the whole migration: a pool would spread its statements over several.
  const db = await pool.connect();
  try {
    return { ...(await migrate(db)), store: seen.store };
  } finally {
    db.release();
  }
}

async function migrate(db: Queryable): Promise<Omit<SchemaState, "store">> {
  await db.query("BEGIN");
  try {
    await db.query("SELECT pg_advisory_xact_lock($1, $2)", [LOCK_CLASS, SCHEMA_LOCK]);
    await db.query("CREATE TABLE IF NOT EXISTS peerpost_schema (id int PRIMARY KEY CHECK (id = 1), version int NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now())");
    const version = (await currentVersion(db)) ?? 0;
    if (version > SCHEMA_VERSION) throw newerSchema(version);
    for (let next = version + 1; next <= SCHEMA_VERSION; next++) await db.query(MIGRATIONS[next]!);
    await db.query("INSERT INTO peerpost_schema (id, version) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version, migrated_at = now()", [SCHEMA_VERSION]);
    await db.query("COMMIT");
    return { version: SCHEMA_VERSION, migrated: version < SCHEMA_VERSION };
  } catch (error) {
    await db.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/** Reads the version without migrating (doctor, health): undefined when peerpost never used this database. */
export async function readSchemaVersion(db: Queryable): Promise<number | undefined> {
  return currentVersion(db);
}
