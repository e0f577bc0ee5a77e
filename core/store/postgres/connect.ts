// Connections to the PostgreSQL store. The pg driver is loaded on first use, so processes on the file
// store never load it. Every failure becomes `state_io_error` with the URL masked and a hint.
import type { Client, ClientConfig, Pool, PoolClient } from "pg";
import { createRequire } from "node:module";
import { PeerpostError } from "../../common/errors.js";
import { maskSecretsIn, maskStoreUrl } from "./url.js";

type PgModule = typeof import("pg");
interface Driver {
  pg: PgModule;
  /** pg's Client, closing its socket when connecting fails (pg leaves it open until the server's auth timeout, ~60 s). */
  Client: typeof Client;
}
let driver: Promise<Driver> | undefined;

export function loadDriver(): Promise<Driver> {
  // By require, not import(): in a CommonJS hook bundle import() starts the ES module loader and lexes
  // the whole driver for its exports, a large part of a hook's budget. Literal names: the build points
  // them at the bundles' vendored copies.
  return (driver ??= Promise.resolve().then(() => {
    const pg = (typeof require === "function" ? require("pg") : createRequire(import.meta.url)("pg")) as PgModule;
    class ClosingClient extends pg.Client {
      override connect(): Promise<Client>;
      override connect(callback: (error: Error) => void): void;
      override connect(callback?: (error: Error) => void): Promise<Client> | void {
        const connected = super.connect().catch((error: unknown) => {
          (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
          throw error;
        });
        // SCRAM needs node:crypto as soon as the server answers: loaded (~7 ms) while the server starts
        // its backend, it is off a short-lived process's critical path.
        setImmediate(() => (typeof require === "function" ? require("node:crypto") : createRequire(import.meta.url)("node:crypto")));
        if (!callback) return connected;
        connected.then(() => callback(undefined as unknown as Error), callback);
      }
    }
    return { pg, Client: ClosingClient };
  }));
}

export interface ConnectOptions {
  url: string;
  /** Fail a connection attempt after this long (a down database must not hold a hook). */
  connectTimeoutMs: number;
  applicationName?: string;
}

export function clientConfig(options: ConnectOptions): ClientConfig {
  // TLS settings (sslmode, sslrootcert, sslcert, sslkey in the URL, or PGSSLMODE) are the driver's to read.
  return { connectionString: options.url, connectionTimeoutMillis: options.connectTimeoutMs, application_name: options.applicationName ?? "peerpost" };
}

/** PostgreSQL's code for a statement cancelled by statement_timeout (a lock another machine held too long). */
const STATEMENT_TIMEOUT = "57014";

/**
 * Wraps a driver or network error as state_io_error; the message never carries the password. `committing`:
 * it came while the transaction's COMMIT was under way, when the database may have stored the change.
 */
export function storeError(action: string, url: string, cause: unknown, committing = false): PeerpostError {
  if (cause instanceof PeerpostError) return cause;
  const code = (cause as { code?: string } | undefined)?.code;
  const text = maskSecretsIn(cause instanceof Error ? cause.message : String(cause), url);
  const busy = code === STATEMENT_TIMEOUT;
  const unreachable = !busy && (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "ETIMEDOUT" || code === "ECONNRESET" || code === "EHOSTUNREACH" || code === "57P01" || /timeout|terminat|Connection/i.test(text));
  const hint = committing
    ? "The connection was lost while the change was being committed: it may be stored. Look (status, receipts, claims, task list) before you do it again; a send with an idempotencyKey is safe to repeat."
    : busy
      ? "The database took longer than the statement timeout (another machine's compaction or a long transaction holding the log's lock): nothing was stored; try again in a moment."
      : unreachable
        ? "The database is not reachable: check that it runs and that this machine may connect (host, port, pg_hba.conf, TLS). Nothing was stored; try again once it answers. `peerpost doctor` checks the connection."
        : "Check the role's rights on the database and the credentials (URL, PG* variables or a 0600 ~/.pgpass). `peerpost doctor` checks the connection.";
  return new PeerpostError("state_io_error", `Could not ${action} the PostgreSQL store ${maskStoreUrl(url)}: ${text}`, {
    details: { store: maskStoreUrl(url), code: code ?? null, ...(committing ? { stored: "unknown" } : {}) },
    hint,
    cause,
  });
}

export async function connectClient(options: ConnectOptions): Promise<Client> {
  const { Client: ClosingClient } = await loadDriver();
  const client = new ClosingClient(clientConfig(options));
  // An idle client whose server goes away emits 'error'; without a listener that would crash the process.
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw storeError("connect to", options.url, error);
  }
  return client;
}

/** How much longer than its statement_timeout a query may go unanswered before the connection counts as dead. */
export const QUERY_GRACE_MS = 5000;

/**
 * `queryTimeoutMs`: a query unanswered that long fails (the statement_timeout is the server's to enforce,
 * which it cannot over a path that died without a FIN or RST: the call would wait forever).
 */
export async function createPool(options: ConnectOptions, max: number, queryTimeoutMs?: number): Promise<Pool> {
  const { pg, Client: ClosingClient } = await loadDriver();
  // allowExitOnIdle: a CLI command or hook that is done exits without closing the pool first.
  const pool = new pg.Pool({ ...clientConfig(options), query_timeout: queryTimeoutMs, Client: ClosingClient, max, idleTimeoutMillis: 30_000, allowExitOnIdle: true });
  // A server that goes away fails idle and checked-out clients alike; the query under way reports it.
  pool.on("error", () => undefined);
  const clients = new Set<PoolClient>();
  poolClients.set(pool, clients);
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
    clients.add(client);
  });
  pool.on("remove", (client) => clients.delete(client));
  return pool;
}

const poolClients = new WeakMap<Pool, Set<PoolClient>>();

/**
 * Lets the process exit without waiting for the server to close the pool's connections (after
 * `pool.end()` has written each its Terminate message): their sockets stop keeping the process alive.
 */
export function releaseSockets(pool: Pool): void {
  for (const client of poolClients.get(pool) ?? []) (client as unknown as { connection?: { stream?: { unref?(): void } } }).connection?.stream?.unref?.();
}

export type Queryable = Pick<PoolClient, "query">;
