// The PostgreSQL backend of the store seam (core/store/types.ts): one table per log in a shared database.
// Every append runs in a transaction that holds the log's advisory lock until commit, so sequence order
// is commit order: a reader that has seen seq N never later finds a smaller seq appear (no gap to miss).
// The lock makes the decide step exclusive for real, so a decision never meets a conflicting record
// between its `end` and its own records. Positions are sequence numbers as strings; "0" is the origin.
import type { Pool, PoolClient } from "pg";
import { PeerpostError } from "../../common/errors.js";
import type { RecordSchema } from "../../log/types.js";
import type { AppendItem, AppendOutcome, CorruptRecord, Decision, DecideContext, Position, ReadLimits, ReadResult, Store, StoreStats, StoredRecord, Visit } from "../types.js";
import { createPool, QUERY_GRACE_MS, releaseSockets, storeError, type ConnectOptions, type Queryable } from "./connect.js";
import { archiveTable, ensureSchema, LOCK_CLASS, logTable, notifyChannel, readSchemaVersion, SCHEMA_VERSION, type SchemaState } from "./schema.js";
import { Listener, type WatchCallback } from "./listener.js";
import { maskStoreUrl } from "./url.js";

export interface DatabaseOptions extends ConnectOptions {
  /** Connections this process may hold at once (a hook needs one). */
  poolSize: number;
  statementTimeoutMs: number;
}

export interface Reachability {
  store: string;
  reachable: boolean;
  schemaVersion: number | null;
  supportedSchemaVersion: number;
  listening: boolean;
  error?: string;
}

/** One database for a process: a pool, the schema checked once, and one LISTEN connection for all logs. */
export class PostgresDatabase {
  private pool: Pool | undefined;
  private ready: Promise<SchemaState> | undefined;
  private rechecking: Promise<void> | undefined;
  private listener: Listener | undefined;
  readonly display: string;

  constructor(readonly options: DatabaseOptions) {
    this.display = maskStoreUrl(options.url);
  }

  private async connectPool(): Promise<Pool> {
    return (this.pool ??= await createPool(this.options, this.options.poolSize, this.options.statementTimeoutMs + QUERY_GRACE_MS));
  }

  /** Which database this is (see SchemaState), known once the schema was checked. */
  async store(): Promise<string> {
    return (await this.checked()).state.store;
  }

  /** The pool, with the schema checked (and migrated) on first use. */
  async db(): Promise<Pool> {
    return (await this.checked()).pool;
  }

  private async checked(): Promise<{ pool: Pool; state: SchemaState }> {
    const pool = await this.connectPool();
    // A failed check is not remembered: the next call (the database is back) tries again.
    this.ready ??= ensureSchema(pool).catch((error: unknown) => {
      this.ready = undefined;
      throw storeError("open", this.options.url, error);
    });
    return { pool, state: await this.ready };
  }

  log<T>(name: string, schema: RecordSchema<T>): PostgresLog<T> {
    return new PostgresLog(this, name, schema);
  }

  /** Told whenever the LISTEN connection comes up (true) or is lost (false). */
  onListening: ((listening: boolean) => void) | undefined;

  /** Calls `callback` when the log gets new records, and after a reconnection; returns the unwatch. */
  watch(log: string, callback: WatchCallback): () => void {
    if (!this.listener) {
      this.listener = new Listener(this.options);
      let listened = false;
      this.listener.onConnection = (connected) => {
        // Back after an outage: the database may have been dropped and made anew meanwhile (a restore, a
        // new container), so which database this is gets checked again (mirrors start over from a new
        // one) before the mirrors catch up.
        if (connected && listened) return void this.recheck().finally(() => this.listener?.connected && this.onListening?.(true));
        listened ||= connected;
        this.onListening?.(connected);
      };
    }
    return this.listener.watch(notifyChannel(log), callback);
  }

  /**
   * Checks again which database this is. Callers keep the last answer until the new one is in: one inside
   * a transaction must not wait for a connection of its own pool, which others may hold waiting for it.
   */
  private recheck(): Promise<void> {
    const pool = this.pool;
    if (!pool) return Promise.resolve();
    const fresh = ensureSchema(pool);
    const done = fresh.then(
      () => {
        if (this.pool === pool) this.ready = fresh;
      },
      () => undefined, // Unreachable again: the next reconnection checks.
    );
    this.rechecking = done.finally(() => (this.rechecking = undefined));
    return this.rechecking;
  }

  /** Resolves once a check begun at a reconnection (if any) is in: a mirror's sync waits for it (see recheck). */
  rechecked(): Promise<void> {
    return this.rechecking ?? Promise.resolve();
  }

  /** For health and doctor: does it answer, and with which schema (never migrates). */
  async reachability(): Promise<Reachability> {
    const report: Reachability = { store: this.display, reachable: false, schemaVersion: null, supportedSchemaVersion: SCHEMA_VERSION, listening: this.listener?.connected ?? false };
    try {
      report.schemaVersion = (await readSchemaVersion(await this.connectPool())) ?? null;
      report.reachable = true;
    } catch (error) {
      report.error = storeError("reach", this.options.url, error).message;
    }
    return report;
  }

  /**
   * Ends the connections. With `wait: false` (a hook about to exit) it says goodbye to the server but does
   * not wait for the server to close its side: the sockets no longer keep the process alive.
   */
  async close(options: { wait?: boolean } = {}): Promise<void> {
    await this.listener?.close();
    const pool = this.pool;
    this.pool = undefined;
    this.ready = undefined;
    // Released before end(), which forgets the clients it closes.
    if (pool && options.wait === false) releaseSockets(pool);
    const ended = pool?.end().catch(() => undefined);
    if (options.wait !== false) await ended;
  }
}

/** An item with a key unique in its log: appending the same key again stores nothing (how `migrate` copies once). */
export interface KeyedItem<T> extends AppendItem<T> {
  key?: string | undefined;
}

function seqOf(position: Position): string {
  if (!/^\d{1,19}$/.test(position))
    throw new PeerpostError("invalid_arguments", `${JSON.stringify(position.slice(0, 40))} is not a position in a PostgreSQL log.`, {
      details: { position: position.slice(0, 40) },
      hint: "Pass back a cursor or position exactly as peerpost returned it.",
    });
  return position;
}

export class PostgresLog<T> implements Store<T> {
  readonly origin: Position = "0";
  readonly table: string;
  /** Where a compaction moved this log's old rows (retention.ts), when the log has one: read as part of the log. */
  readonly archive: string | undefined;

  constructor(
    private readonly database: PostgresDatabase,
    readonly name: string,
    private readonly schema: RecordSchema<T>,
  ) {
    this.table = logTable(name);
    this.archive = archiveTable(name);
  }

  /** Inserts a row unless its key is taken, in the log or in its archive (a compaction moved it): the row's seq, or no row. */
  private get insertKeyed(): string {
    const archived = this.archive === undefined ? "" : ` WHERE $1::text IS NULL OR NOT EXISTS (SELECT 1 FROM ${this.archive} WHERE key = $1)`;
    return `INSERT INTO ${this.table} (key, scopes, record) SELECT $1::text, $2::text[], $3::json${archived} ON CONFLICT (key) DO NOTHING RETURNING seq`;
  }

  /** The rows of the log, live and archived, as one relation for a query's FROM. */
  private rows(columns: string, where: string): string {
    const live = `SELECT ${columns} FROM ${this.table} WHERE ${where}`;
    return this.archive === undefined ? `(${live}) log` : `(${live} UNION ALL SELECT ${columns} FROM ${this.archive} WHERE ${where}) log`;
  }

  append(items: KeyedItem<T>[]): Promise<AppendOutcome<T>> {
    return this.appendDeciding(() => ({ items }));
  }

  /**
   * In one transaction holding this log's advisory lock: asks `decide` what to append (its reads see every
   * append committed before), inserts it, notifies watchers (sent at commit; a rolled-back append notifies
   * no one) and commits. Even plain appends take the lock: it is what keeps sequence order = commit order.
   */
  appendDeciding(decide: (context: DecideContext<T>) => Decision<T> | Promise<Decision<T>>): Promise<AppendOutcome<T>> {
    return this.exclusive("append to", async (client) => {
      const end = await this.endOn(client);
      const decision = await decide({ end, read: (from, visit, limits) => this.readOn(client, from, visit, limits) });
      const entries: StoredRecord<T>[] = [];
      for (const item of decision.items) {
        this.check(item.record);
        const key = (item as KeyedItem<T>).key ?? null;
        const inserted = await client.query<{ seq: string }>(this.insertKeyed, [key, [...(item.scopes ?? [])], JSON.stringify(item.record)]);
        const seq = inserted.rows[0]?.seq;
        if (seq !== undefined) entries.push({ position: seq, next: seq, record: item.record });
      }
      if (entries.length > 0) await client.query("SELECT pg_notify($1, $2)", [notifyChannel(this.name), entries[entries.length - 1]!.position]);
      return { entries };
    });
  }

  /**
   * Runs `work` in one transaction holding this log's advisory lock, and commits: no append of this log
   * commits meanwhile. A failure rolls everything back and is reported as a failure to `action` the store.
   */
  exclusive<R>(action: string, work: (client: PoolClient) => Promise<R>): Promise<R> {
    return this.transaction(action, "BEGIN", async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [LOCK_CLASS, this.name]);
      return work(client);
    });
  }

  /** Runs `work` in a read-only transaction that sees one snapshot of the database throughout, without the lock: appends go on. */
  snapshot<R>(action: string, work: (client: PoolClient) => Promise<R>, statementTimeoutMs?: number): Promise<R> {
    return this.transaction(action, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", work, statementTimeoutMs);
  }

  private async transaction<R>(action: string, begin: string, work: (client: PoolClient) => Promise<R>, statementTimeoutMs = this.database.options.statementTimeoutMs): Promise<R> {
    const pool = await this.database.db();
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw storeError("connect to", this.database.options.url, error);
    }
    let broken = false;
    let committing = false;
    // This transaction's statement timeout, enforced on this side too (see createPool): pg reads the
    // client's query_timeout at each query, so a pooled client takes the one of the transaction it serves.
    (client as unknown as { connectionParameters: { query_timeout?: number } }).connectionParameters.query_timeout = statementTimeoutMs + QUERY_GRACE_MS;
    try {
      await client.query(begin);
      await client.query(`SET LOCAL statement_timeout = ${Math.floor(statementTimeoutMs)}`);
      const result = await work(client);
      committing = true;
      await client.query("COMMIT");
      return result;
    } catch (error) {
      broken = !(error instanceof PeerpostError);
      // A connection that stopped answering would not answer the ROLLBACK either: it is dropped, which rolls back.
      if (!(error instanceof Error && error.message === "Query read timeout")) await client.query("ROLLBACK").catch(() => undefined);
      throw storeError(action, this.database.options.url, error, committing);
    } finally {
      // A connection that failed mid-transaction is not given back to the pool.
      client.release(broken);
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

  async read(from: Position, visit: Visit<T>, limits?: ReadLimits): Promise<ReadResult> {
    return this.readOn(await this.database.db(), from, visit, limits);
  }

  async readScope(scope: string, from: Position, visit: Visit<T>, limits?: ReadLimits): Promise<ReadResult> {
    return this.readOn(await this.database.db(), from, visit, limits, scope);
  }

  private async readOn(db: Queryable, from: Position, visit: Visit<T>, limits: ReadLimits = {}, scope?: string): Promise<ReadResult> {
    const params: unknown[] = [seqOf(from)];
    let where = "seq > $1";
    if (scope !== undefined) {
      params.push([scope]);
      where += " AND scopes && $2::text[]";
    }
    const limit = limits.maxRecords === undefined ? "" : ` LIMIT ${Math.max(1, Math.floor(limits.maxRecords))}`;
    let rows: Array<{ seq: string; record: string }>;
    try {
      rows = (await db.query<{ seq: string; record: string }>(`SELECT seq, record FROM ${this.rows("seq, record::text AS record", where)} ORDER BY seq${limit}`, params)).rows;
    } catch (error) {
      throw storeError("read", this.database.options.url, error);
    }
    const result: ReadResult = { next: from, corrupt: [], tornTail: false };
    for (const row of rows) {
      result.next = row.seq;
      const parsed = this.parse(row.record);
      if (typeof parsed === "string") result.corrupt.push({ position: row.seq, bytes: Buffer.byteLength(row.record), reason: parsed } satisfies CorruptRecord);
      else visit({ position: row.seq, next: row.seq, record: parsed.record });
    }
    return result;
  }

  /** The record a row holds, or why it is not one. */
  parse(text: string): { record: T } | string {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return "not valid JSON";
    }
    const parsed = this.schema.safeParse(value);
    if (parsed.success) return { record: parsed.data };
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join(".")}` : "";
    return `not a valid record${where}: ${issue?.message ?? "schema mismatch"}`;
  }

  async readAt(position: Position): Promise<T | undefined> {
    const pool = await this.database.db();
    try {
      const row = (await pool.query<{ record: string }>(`SELECT record FROM ${this.rows("record::text AS record", "seq = $1")}`, [seqOf(position)])).rows[0];
      if (!row) return undefined;
      const parsed = this.parse(row.record);
      return typeof parsed === "string" ? undefined : parsed.record;
    } catch (error) {
      throw storeError("read", this.database.options.url, error);
    }
  }

  async end(): Promise<Position> {
    return this.endOn(await this.database.db());
  }

  private async endOn(db: Queryable): Promise<Position> {
    try {
      const result = await db.query<{ seq: string | null }>(`SELECT max(seq)::text AS seq FROM ${this.rows("max(seq) AS seq", "true")}`);
      return result.rows[0]?.seq ?? this.origin;
    } catch (error) {
      throw storeError("read", this.database.options.url, error);
    }
  }

  compare(a: Position, b: Position): number {
    const x = BigInt(seqOf(a));
    const y = BigInt(seqOf(b));
    return x < y ? -1 : x > y ? 1 : 0;
  }

  watch(onData: () => void): () => void {
    return this.database.watch(this.name, onData);
  }

  async stats(): Promise<StoreStats> {
    const pool = await this.database.db();
    try {
      const result = await pool.query<{ bytes: string | null }>("SELECT pg_total_relation_size(to_regclass($1))::text AS bytes", [this.table]);
      const bytes = result.rows[0]?.bytes;
      return { bytes: Number(bytes ?? 0), exists: bytes !== null && bytes !== undefined };
    } catch (error) {
      throw storeError("inspect", this.database.options.url, error);
    }
  }

  /** The database is shared by this process's logs: closing one log leaves it open; close the database instead. */
  async close(): Promise<void> {}
}
