// Chooses the backend for every log of one state dir: the file store (the default), or PostgreSQL with
// a per-machine mirror in the state dir (PEERPOST_STORE=postgres://…). The pg driver loads on first use.
import type { Config } from "../common/config.js";
import type { LogOptions, RecordSchema } from "../log/types.js";
import { FileStore, type ScopeFilter } from "./file/file-store.js";
import type { LocalStore, StoreFactory } from "./local.js";
import { openDatabase, type ProcessKind } from "./postgres/open.js";
import { MirroredStore } from "./postgres/mirror.js";
import type { PostgresDatabase } from "./postgres/store.js";
import { isFollowed, markFollowing } from "./postgres/followers.js";
import { mirrorCurrentWithin } from "./postgres/mirror-age.js";
import { recordedStore } from "./postgres/mirror-record.js";
import { logError } from "../common/error-log.js";

export interface Backend {
  open: StoreFactory;
  /**
   * Brings local mirrors up to the shared store (nothing to do for the file store). With `trust`, a hook
   * takes the mirrors as they are, without connecting: "followed" while a live process on this machine
   * follows the database, "recent" also when they were found current within PEERPOST_MIRROR_TRUST_MS
   * (prompt hooks: mail may show that much later). `only` names the logs to sync (a prompt hook reads only
   * the mailbox); `budget` caps the records each mirror copies. Resolves false when a mirror is still
   * behind the database (its budget ran out).
   */
  sync(options?: { trust?: "followed" | "recent"; only?: string[]; budget?: number }): Promise<boolean>;
  /**
   * Keeps the mirrors current while this process runs (a server): follows NOTIFY, and re-reads after
   * every reconnection. Returns the stop function.
   */
  follow(): () => void;
  /** Ends the connections; `wait: false` does not wait for the database to close them (a hook about to exit). */
  close(options?: { wait?: boolean }): Promise<void>;
  /** The database, when the store is PostgreSQL. */
  database?: PostgresDatabase;
}

const FIRST_CATCH_UP_RETRY_MS = 500;
const MAX_CATCH_UP_RETRY_MS = 30_000;

export function openBackend(config: Config, stateDir: string, logOptions: LogOptions, kind: ProcessKind): Backend {
  if (config.store.kind === "file")
    return {
      open: (name, schema, scopeFilter) => new FileStore(stateDir, name, schema, logOptions, scopeFilter),
      sync: async () => true,
      follow: () => () => undefined,
      close: async () => undefined,
    };
  const database = openDatabase(config.store.url, kind);
  const mirrors: Array<MirroredStore<unknown>> = [];
  return {
    database,
    open: <T>(name: string, schema: RecordSchema<T>, scopeFilter: ScopeFilter<T>): LocalStore<T> => {
      const store = new MirroredStore<T>(database, stateDir, name, schema, logOptions, scopeFilter);
      mirrors.push(store as MirroredStore<unknown>);
      return store;
    },
    sync: async (options = {}) => {
      const chosen = mirrors.filter((mirror) => options.only === undefined || options.only.includes(mirror.name));
      const recent = () => chosen.every((mirror) => mirrorCurrentWithin(stateDir, mirror.name, database.display, config.mirrorTrustMs));
      // A follower vouches only for mirrors that still copy the database it follows (another process here
      // may have started them over from another one since).
      const copied = (identity: string) => chosen.every((mirror) => recordedStore(stateDir, mirror.name) === identity);
      if (options.trust !== undefined && (isFollowed(stateDir, database.display, copied) || (options.trust === "recent" && recent()))) return true;
      const synced = await Promise.all(chosen.map((mirror) => mirror.sync(undefined, options.budget)));
      return synced.every((mirror) => mirror.caughtUp);
    },
    follow: () => {
      // Hooks on this machine trust the mirrors while a follower's LISTEN is up, but only once the mirrors
      // hold what was committed before it came up: a new machine's first server may be copying a large store.
      let listenings = 0;
      let listening = false;
      let retry: NodeJS.Timeout | undefined;
      let marked = false;
      const mark = (following: boolean, copies?: string) => {
        marked = following;
        markFollowing(stateDir, database.display, following, copies);
      };
      const current = (listenedAt: number) => listening && listenedAt === listenings;
      // Tried again with a growing delay while this LISTEN stays up (a busy lock, a brief database error).
      const catchUp = (listenedAt: number, retryMs: number): void => {
        if (!current(listenedAt)) return;
        // The mark names the database the mirrors copy: one started over from another since is not vouched for.
        void Promise.all(mirrors.map((mirror) => mirror.sync()))
          .then(() => database.store())
          .then(
            (copies) => current(listenedAt) && mark(true, copies),
            (error: unknown) => {
              if (!current(listenedAt)) return;
              if (retryMs === FIRST_CATCH_UP_RETRY_MS) logError(stateDir, "follow", error);
              retry = setTimeout(() => catchUp(listenedAt, Math.min(2 * retryMs, MAX_CATCH_UP_RETRY_MS)), retryMs).unref();
            },
          );
      };
      database.onListening = (up) => {
        listening = up;
        clearTimeout(retry);
        if (!up) return mark(false);
        catchUp(++listenings, FIRST_CATCH_UP_RETRY_MS);
      };
      // A sync that failed while LISTEN stays up (the pool's connections refused, a password changed): the
      // mirror may lag the database from now on, so hooks stop trusting it until a catch-up succeeds again.
      // Unmarked already, a catch-up (or its retry) is under way.
      const lagging = () => {
        if (!listening || !marked) return;
        mark(false);
        clearTimeout(retry);
        catchUp(listenings, FIRST_CATCH_UP_RETRY_MS);
      };
      const stops = mirrors.map((mirror) => mirror.follow(undefined, lagging));
      return () => {
        stops.forEach((stop) => stop());
        listening = false;
        clearTimeout(retry);
        mark(false);
      };
    },
    close: (options) => database.close(options),
  };
}
