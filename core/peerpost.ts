// Opens peerpost's stores over one state dir with one parsed config: the entry point for the server,
// the hooks and the CLI.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { loadConfig, type Config } from "./common/config.js";
import { prepareStateDir, resolveStateDirPath, type StateDirInfo } from "./security/state-dir.js";
import { Mailbox } from "./mail/mailbox.js";
import { Receipts } from "./mail/receipts.js";
import { Sessions } from "./sessions/registry.js";
import { Wakes } from "./wake/wakes.js";
import type { LogOptions } from "./log/types.js";
import type { Discover } from "./sessions/discovery.js";
import { machineId } from "./sessions/machine.js";
import { openBackend, type Backend } from "./store/open.js";
import type { ProcessKind } from "./store/postgres/open.js";

export interface Peerpost {
  config: Config;
  stateDir: StateDirInfo;
  mailbox: Mailbox;
  receipts: Receipts;
  sessions: Sessions;
  wakes: Wakes;
  /** The hosts' session-file readers, when the entry point provides them. */
  discover?: Discover;
  env: NodeJS.ProcessEnv;
  /** This machine's id, kept in the state dir. */
  machine: () => string;
  /** Where the logs live; `sync` brings a PostgreSQL store's local mirrors up to date before reading. */
  backend: Backend;
}

export interface OpenOptions {
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** When false, a missing state dir is not created and `openPeerpost` returns undefined. */
  create?: boolean;
  /** A clock to use instead of the configured one (tests). */
  now?: () => number;
  /** The lock wait to use unless PEERPOST_LOCK_TIMEOUT_MS sets one (hooks wait less than servers). */
  defaultLockTimeoutMs?: number;
  discover?: Discover;
  /** Which kind of process opens the store (a hook gives up on a database fastest). Default cli. */
  kind?: ProcessKind;
}

export function openPeerpost(options: OpenOptions & { create?: true }): Peerpost;
export function openPeerpost(options: OpenOptions): Peerpost | undefined;
export function openPeerpost(options: OpenOptions = {}): Peerpost | undefined {
  const config = loadConfig(options.env ?? process.env);
  if (options.now) config.now = options.now;
  const env = options.env ?? process.env;
  if (options.defaultLockTimeoutMs !== undefined && !env.PEERPOST_LOCK_TIMEOUT_MS) config.lockTimeoutMs = options.defaultLockTimeoutMs;
  const home = options.home ?? homedir();
  // Resolved once: the links of the state dir and of every host's config dir are followed on the way.
  const resolved = resolveStateDirPath(config.home, home);
  if (options.create === false && !existsSync(resolved.path)) return undefined;
  const stateDir = prepareStateDir(resolved);
  const logOptions: LogOptions = { lockStaleMs: config.lockStaleMs, lockTimeoutMs: config.lockTimeoutMs, fault: config.fault };
  let machine: string | undefined;
  const thisMachine = () => (machine ??= machineId(stateDir.path));
  const backend = openBackend(config, stateDir.path, logOptions, options.kind ?? "cli");
  // One clock for every part, read through config each time: setting config.now later reaches them all.
  const clock = () => config.now();
  const peerpost: Peerpost = {
    machine: thisMachine,
    backend,
    config,
    stateDir,
    env,
    mailbox: new Mailbox(stateDir.path, backend.open, logOptions, { maxHops: config.maxHops, askBackMs: config.wake.timeoutMs, intervalMs: config.reminderIntervalMs, limit: config.reminderLimit, now: clock, retentionMs: config.retentionDays * 86_400_000, compactAtBytes: config.compactAtBytes, roundMessages: config.compactRoundMessages }),
    receipts: new Receipts(backend.open, clock, join(stateDir.path, "index", "receipts"), logOptions),
    sessions: new Sessions(backend.open, clock, thisMachine, join(stateDir.path, "index", "sessions")),
    // Wakes start processes on this machine: their log stays in the state dir, whatever the store.
    wakes: new Wakes(stateDir.path, logOptions),
  };
  if (options.discover) peerpost.discover = options.discover;
  return peerpost;
}
