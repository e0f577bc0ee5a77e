// The PostgreSQL store: one pool per process, the schema checked once, and one table per log.
// Appends run in a transaction that holds the log's advisory lock until commit, so sequence order is
// commit order: a reader that has seen seq N never later finds a smaller seq appear (no gaps to miss).
import type { Pool } from "pg";
import { PeerpostError } from "../../errors.js";
import type { RecordSchema } from "../../log.js";
import { createPool, storeError, type ConnectOptions } from "./connect.js";
import { ensureSchema, LOCK_CLASS, logTable, notifyChannel, readSchemaVersion, SCHEMA_VERSION, type SchemaState } from "./schema.js";
import { Listener, type WatchCallback } from "./listener.js";
import { maskStoreUrl } from "./url.js";

export interface StoreOptions extends ConnectOptions {
  /** Connections this process may hold at once (a hook needs one). */
  poolSize: number;
  statementTimeoutMs: number;
}

export interface PgAppend<T> {
  record: T;
  /** Unique per log: a second append with the same key stores nothing. */
  key?: string | undefined;
  /** Addresses this record concerns; scoped reads select on them. */
  scopes?: string[] | undefined;
}

export interface PgEntry<T> {
  seq: number;
  record: T;
}

export interface PgCorrupt {
  seq: number;
  reason: string;
}

export interface PgReadResult {
  /** The last seq read: pass it back to read what comes after. */
  next: number;
  corrupt: PgCorrupt[];
}

export interface PgReadOptions {
  /** Only records that concern one of these addresses. */
  scopes?: string[] | undefined;
  limit?: number | undefined;
}

export interface Reachability {
  store: string;
  reachable: boolean;
  schemaVersion: number | null;
  supportedSchemaVersion: number;
  error?: string;
}

export class PostgresStore {
  private pool: Pool | undefined;
  private ready: Promise<SchemaState> | undefined;
  private listener: Listener | undefined;
  readonly display: string;

  constructor(readonly options: StoreOptions) {
    this.display = maskStoreUrl(options.url);
  }

  /** The pool, with the schema checked (and migrated) on first use. */
  async db(): Promise<Pool> {
    this.pool ??= await createPool({ ...this.options, connectTimeoutMs: this.options.connectTimeoutMs }, this.options.poolSize);
    const pool = this.pool;
    this.ready ??= this.withRetryableReady(() => ensureSchema(pool));
    await this.ready;
    return pool;
  }

  /** A failed schema check is not remembered: the next call (the database is back) tries again. */
  private withRetryableReady(check: () => Promise<SchemaState>): Promise<SchemaState> {
    return check().catch((error: unknown) => {
      this.ready = undefined;
      throw storeError("open", this.options.url, error);
    });
  }

  log<T>(name: string, schema: RecordSchema<T>): PgLog<T> {
    return new PgLog(this, name, schema);
  }

  /** Calls `callback` when the log gets new records, and after a reconnection; returns the unwatch. */
  watch(log: string, callback: WatchCallback): () => void {
    this.listener ??= new Listener(this.options);
    return this.listener.watch(notifyChannel(log), callback);
  }

  listening(): boolean {
    return this.listener?.connected ?? false;
  }

  /** For health and doctor: does it answer, and with which schema (never migrates). */
  async reachability(): Promise<Reachability> {
    const report: Reachability = { store: this.display, reachable: false, schemaVersion: null, supportedSchemaVersion: SCHEMA_VERSION };
    try {
      this.pool ??= await createPool(this.options, this.options.poolSize);
      report.schemaVersion = (await readSchemaVersion(this.pool)) ?? null;
      report.reachable = true;
    } catch (error) {
      report.error = storeError("reach", this.options.url, error).message;
    }
    return report;
  }

  async close(): Promise<void> {
    await this.listener?.close();
    const pool = this.pool;
    this.pool = undefined;
    this.ready = undefined;
    await pool?.end().catch(() => undefined);
  }
}

export class PgLog<T> {
  readonly table: string;

  constructor(
    private readonly store: PostgresStore,
    readonly name: string,
    private readonly schema: RecordSchema<T>,
  ) {
    this.table = logTable(name);
  }

  get display(): string {
    return `${this.store.display} (${this.table})`;
  }

  async append(items: PgAppend<T>[]): Promise<PgEntry<T>[]> {
    return this.transact(() => items);
  }

  /**
   * In one transaction holding this log's advisory lock: asks `decide` what to append (its reads, on any
   * connection, see every append committed before; no other append can commit meanwhile), inserts it,
   * notifies watchers (sent at commit; a rolled-back append notifies no one) and commits.
   */
  async transact(decide: () => PgAppend<T>[] | Promise<PgAppend<T>[]>): Promise<PgEntry<T>[]> {
    const pool = await this.store.db();
    let client;
    try {
      client = await pool.connect();
    } catch (error) {
      throw storeError("connect to", this.store.options.url, error);
    }
    let failed = false;
    try {
      await client.query("BEGIN");
      await client.query(`SET LOCAL statement_timeout = ${Math.floor(this.store.options.statementTimeoutMs)}`);
      await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [LOCK_CLASS, this.name]);
      const items = await decide();
      const entries: PgEntry<T>[] = [];
      for (const item of items) {
        this.check(item.record);
        const inserted = await client.query<{ seq: string }>(`INSERT INTO ${this.table} (key, scopes, record) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING RETURNING seq`, [
          item.key ?? null,
          item.scopes ?? [],
          JSON.stringify(item.record),
        ]);
        const row = inserted.rows[0];
        if (row) entries.push({ seq: Number(row.seq), record: item.record });
      }
      if (entries.length > 0) await client.query("SELECT pg_notify($1, $2)", [notifyChannel(this.name), String(entries[entries.length - 1]!.seq)]);
      await client.query("COMMIT");
      return entries;
    } catch (error) {
      failed = true;
      await client.query("ROLLBACK").catch(() => undefined);
      throw storeError("append to", this.store.options.url, error);
    } finally {
      // A connection that failed mid-transaction is not given back to the pool.
      client.release(failed);
    }
  }

  private check(record: T): void {
    const checked = this.schema.safeParse(record);
    if (checked.success) return;
    const issue = checked.error.issues[0];
    throw new PeerpostError("internal_error", `Refusing to append a record its own log would not read back: ${issue?.path.map(String).join(".") ?? ""} ${issue?.message ?? ""}`.trim(), {
      details: { log: this.name, field: issue?.path.map(String).join(".") ?? null },
      hint: "This is a bug in peerpost; nothing was written.",
    });
  }

  /** Visits the valid records after `after` in order; invalid ones are reported, skipped and kept. */
  async readFrom(after: number, visit: (entry: PgEntry<T>) => void, options: PgReadOptions = {}): Promise<PgReadResult> {
    const pool = await this.store.db();
    const params: unknown[] = [after];
    let where = "seq > $1";
    if (options.scopes !== undefined) {
      params.push(options.scopes);
      where += ` AND scopes && $${params.length}::text[]`;
    }
    const limit = options.limit === undefined ? "" : ` LIMIT ${Math.max(1, Math.floor(options.limit))}`;
    let rows: Array<{ seq: string; record: string }>;
    try {
      rows = (await pool.query<{ seq: string; record: string }>(`SELECT seq, record::text AS record FROM ${this.table} WHERE ${where} ORDER BY seq${limit}`, params)).rows;
    } catch (error) {
      throw storeError("read", this.store.options.url, error);
    }
    const result: PgReadResult = { next: after, corrupt: [] };
    for (const row of rows) {
      const seq = Number(row.seq);
      result.next = seq;
      let value: unknown;
      try {
        value = JSON.parse(row.record);
      } catch {
        result.corrupt.push({ seq, reason: "not valid JSON" });
        continue;
      }
      const parsed = this.schema.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join(".")}` : "";
        result.corrupt.push({ seq, reason: `not a valid record${where}: ${issue?.message ?? "schema mismatch"}` });
        continue;
      }
      visit({ seq, record: parsed.data });
    }
    // Without a scope filter, the position can also move past records that were not returned (none were).
    return result;
  }

  /** The highest seq stored (0 for an empty log): where a reader that wants only new records starts. */
  async end(): Promise<number> {
    const pool = await this.store.db();
    try {
      const result = await pool.query<{ seq: string | null }>(`SELECT max(seq) AS seq FROM ${this.table}`);
      return Number(result.rows[0]?.seq ?? 0);
    } catch (error) {
      throw storeError("read", this.store.options.url, error);
    }
  }

  watch(callback: WatchCallback): () => void {
    return this.store.watch(this.name, callback);
  }
}
