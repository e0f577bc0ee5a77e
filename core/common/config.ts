// Every PEERPOST_* variable, parsed once by a plain function each. A bad value is an error that names
// the variable. No zod here: every hook reads its settings, and loading a schema library for a handful
// of numbers and words would cost each prompt more than the rest of the hook.
import { PeerpostError } from "./errors.js";
import { ID_PATTERN } from "./address.js";
import { maskStoreUrl, storeUrlProblem } from "../store/postgres/url.js";
import { ULID_PATTERN } from "../records/record-values.js";

/** A variable's parser: its value, or what is wrong with the raw text. */
type Parser<T> = (raw: string) => { value: T } | { problem: string };

const TRUE_WORDS = ["1", "true", "yes", "on"];
const FALSE_WORDS = ["0", "false", "no", "off"];

const text = (): Parser<string> => (raw) => ({ value: raw });

const flag = (): Parser<boolean> => (raw) => {
  const word = raw.trim().toLowerCase();
  if (TRUE_WORDS.includes(word)) return { value: true };
  if (FALSE_WORDS.includes(word)) return { value: false };
  return { problem: `expected one of ${[...TRUE_WORDS, ...FALSE_WORDS].join("/")}` };
};

const wholeNumber = (min: number, max: number): Parser<number> => (raw) => {
  const trimmed = raw.trim();
  if (!/^\d+$/.test(trimmed)) return { problem: "expected a whole number" };
  const value = Number(trimmed);
  if (value < min) return { problem: `expected at least ${min}` };
  if (value > max) return { problem: `expected at most ${max}` };
  return { value };
};

const oneOf = <T extends string>(values: readonly T[]): Parser<T> => (raw) =>
  (values as readonly string[]).includes(raw) ? { value: raw as T } : { problem: `expected one of ${values.join(", ")}` };

const matching = (pattern: RegExp, problem: string): Parser<string> => (raw) => (pattern.test(raw) ? { value: raw } : { problem });

/** PEERPOST_NOW: a fixed clock for tests and reproductions, as epoch milliseconds or an ISO date. */
const instant = (): Parser<number> => (raw) => {
  const trimmed = raw.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) : Date.parse(trimmed);
  return Number.isFinite(ms) ? { value: ms } : { problem: "expected epoch milliseconds or an ISO 8601 date" };
};

const roleList = (): Parser<string[]> => (raw) => {
  const roles = raw.split(",").map((role) => role.trim()).filter(Boolean);
  const bad = roles.find((role) => !ID_PATTERN.test(role));
  return bad === undefined ? { value: roles } : { problem: `role ${JSON.stringify(bad)} may use only letters, digits, '.', '_' and '-'` };
};

/**
 * Fault points for crash tests: stop before an fsync, die mid-line, stop (SIGSTOP) between deciding and
 * writing, die at a compaction step or halfway through a mirror's start-over; and for the bench, appends that skip their fsync, or wait 50 µs
 * instead of it (a group commit whose fsync cost nothing: the most one could reach).
 */
export const FAULTS = ["pause-before-fsync", "partial-line", "stop-after-decide", "compact-after-marker", "compact-after-archive", "compact-after-rename", "compact-stop-after-marker", "start-over-after-archive", "skip-fsync", "wait-instead-of-fsync"] as const;
export type Fault = (typeof FAULTS)[number];

/** PEERPOST_STORE: `file` (the default) or a PostgreSQL URL. */
export type StoreChoice = { kind: "file" } | { kind: "postgres"; url: string };

const storeChoice = (): Parser<StoreChoice> => (raw) => {
  const trimmed = raw.trim();
  if (trimmed === "file") return { value: { kind: "file" } };
  const problem = storeUrlProblem(trimmed);
  return problem === undefined ? { value: { kind: "postgres", url: trimmed } } : { problem: `expected file or a postgres:// URL (${problem})` };
};

/** PEERPOST_ROLE_ENFORCEMENT: what happens when one role holder messages another by session address. */
export const ROLE_ENFORCEMENTS = ["off", "warn", "enforce"] as const;
export type RoleEnforcement = (typeof ROLE_ENFORCEMENTS)[number];

const HOSTS = ["claude-code", "codex", "copilot", "grok", "generic"] as const;
export type HostName = (typeof HOSTS)[number];

/** The variables, their parsers and what they mean (the README lists the same table). */
export const VARIABLES = {
  PEERPOST_HOME: { parse: text(), help: "State directory (absolute or ~/…). Default ~/.peerpost." },
  PEERPOST_ADDRESS: { parse: text(), help: "This process's own address, e.g. claude:abc; overrides host detection." },
  PEERPOST_ROLES: { parse: roleList(), help: "Comma-separated roles this session takes (reachable as role:<name>)." },
  PEERPOST_USER: {
    parse: matching(ID_PATTERN, "may use only letters, digits, '.', '_' and '-' (up to 128), starting with a letter or digit"),
    help: "The person's name in user:<name>, the command line's default sender (default: the login name).",
  },
  PEERPOST_ROLE_ADMIN: { parse: flag(), help: "Give this server's agent the role tool, to set and clear roles (default off: only people change roles, with `peerpost role`)." },
  PEERPOST_ROLE_ENFORCEMENT: {
    parse: oneOf(ROLE_ENFORCEMENTS),
    help: "Direct coordination between role holders (one messaging another by session address, not role:<name>): off (default), warn (sent with a direct_coordination warning and receipt tag) or enforce (refused with permission_denied).",
  },
  PEERPOST_HOST: { parse: oneOf(HOSTS), help: "Host adapter for `peerpost serve` when --host is not given." },
  PEERPOST_MAX_HOPS: { parse: wholeNumber(1, 64), help: "Hop budget per conversation (default 4)." },
  PEERPOST_REMINDER_INTERVAL_MS: { parse: wholeNumber(1000, 86_400_000), help: "Least time between reminders for one open request (default 30000)." },
  PEERPOST_REMINDER_LIMIT: { parse: wholeNumber(0, 100), help: "Reminders per open request before it shows as unresolved (default 3)." },
  PEERPOST_LOCK_STALE_MS: { parse: wholeNumber(2000, 600_000), help: "Age after which a lock whose holder stopped updating it is taken over (default 10000)." },
  PEERPOST_LOCK_TIMEOUT_MS: { parse: wholeNumber(100, 600_000), help: "How long an append waits for the lock before state_io_error (default 15000: longer than the stale window, so a dead holder's lock is taken over first)." },
  PEERPOST_RETENTION_DAYS: { parse: wholeNumber(0, 36_500), help: "Days a resolved, expired or read fyi message stays in the live mailbox before compaction archives it (default 30)." },
  PEERPOST_COMPACT_AT_BYTES: { parse: wholeNumber(65_536, 2 ** 40), help: "Live mailbox size past which a server or the web view has it compacted, by a detached run (default 67108864, 64 MiB)." },
  PEERPOST_LOG_RETENTION_DAYS: { parse: wholeNumber(0, 36_500), help: "Days a receipt, or a wake run that ended, stays in its live log before compaction archives it (default 30)." },
  PEERPOST_COMPACT_ROUND_MESSAGES: { parse: wholeNumber(1, 2 ** 31), help: "Most finished messages one round of a mailbox compaction retires; a larger log takes more rounds, each in bounded memory (about 40 bytes a message; default 1000000)." },
  PEERPOST_LOG_COMPACT_AT_BYTES: { parse: wholeNumber(65_536, 2 ** 40), help: "Size of the receipts, sessions or wakes log past which a detached run compacts it (default 8388608, 8 MiB)." },
  PEERPOST_WAIT_POLL_MS: { parse: wholeNumber(10, 60_000), help: "Poll interval behind the file watch in `wait` (default 200)." },
  PEERPOST_PUSH: { parse: flag(), help: "Live push into the host session where the host has a transport (default on)." },
  PEERPOST_PUSH_CONFIRM_MS: { parse: wholeNumber(0, 60_000), help: "How long `message` waits for a live push of a request to be taken, so it can answer delivered or why not (default 2000)." },
  PEERPOST_WAKE_PER_HOUR: { parse: wholeNumber(0, 1000), help: "Wakes, launches and live pushes per session per hour (default 6)." },
  PEERPOST_WAKE_CONCURRENCY: { parse: wholeNumber(0, 64), help: "Woken or launched turns running at once on this machine (default 2)." },
  PEERPOST_WAKE_TIMEOUT_MS: { parse: wholeNumber(1000, 86_400_000), help: "Longest a woken or launched turn may run before it is stopped (default 600000)." },
  PEERPOST_WAKE_QUIET_MS: { parse: wholeNumber(0, 86_400_000), help: "A session known only from its host's files is woken only when its session file was not written for this long, and no process names it (default 600000)." },
  PEERPOST_LAUNCH_RUN: { parse: matching(ULID_PATTERN, "expected a run id"), help: "Set by peerpost on the server it gives a launched Codex session: its first tool call waits until the run knows the session's address and first message." },
  PEERPOST_STALE_MS: { parse: wholeNumber(1000, 2_592_000_000), help: "Age after which unread mail is stale: never woken for nor pushed, it waits for read (default 3600000)." },
  PEERPOST_CLAIMS_EDITS: { parse: oneOf(["block", "warn", "off"] as const), help: "What a host's edit hook does with an edit to a path another live session claimed exclusively: block (default), warn (allow, with a note to the agent) or off." },
  PEERPOST_GUARD: { parse: oneOf(["on", "off"] as const), help: "off lets the git hooks of `peerpost guard install` pass a commit or push that touches others' claims (default on)." },
  PEERPOST_NOW: { parse: instant(), help: "Fixed clock (epoch ms or ISO date), for tests and reproductions." },
  PEERPOST_STORE: { parse: storeChoice(), secret: true, help: "Where the logs live: file (default, the state dir) or postgres://user@host:port/db?sslmode=… (a database shared by several machines)." },
  PEERPOST_MIRROR_TRUST_MS: {
    parse: wholeNumber(0, 600_000),
    help: "With a PostgreSQL store and no server on this machine following it: how long after a process last found this machine's mirror current a prompt hook reads the mirror without connecting (default 30000; 0: always connect). New mail shows at the latest this long after it was sent.",
  },
  PEERPOST_FAULT: { parse: oneOf(FAULTS), help: "Fault injection for crash tests and the bench; never set it in normal use." },
} as const;

type Variables = typeof VARIABLES;
type ParsedValue<P> = P extends Parser<infer T> ? T : never;
type Parsed = { [K in keyof Variables]?: ParsedValue<Variables[K]["parse"]> };

export interface Config {
  home: string | undefined;
  address: string | undefined;
  roles: string[];
  user: string | undefined;
  roleAdmin: boolean;
  /** The role enforcement mode and where it came from (the variable, or the default). */
  roleEnforcement: { mode: RoleEnforcement; source: "PEERPOST_ROLE_ENFORCEMENT" | "default" };
  host: HostName | undefined;
  maxHops: number;
  reminderIntervalMs: number;
  reminderLimit: number;
  lockStaleMs: number;
  lockTimeoutMs: number;
  waitPollMs: number;
  retentionDays: number;
  compactAtBytes: number;
  compactRoundMessages: number;
  /** Days a receipt, or an ended wake run, stays in its live log. */
  logRetentionDays: number;
  /** Size of the receipts, sessions or wakes log past which a detached run compacts it. */
  logCompactAtBytes: number;
  push: boolean;
  /** How long `message` waits to learn whether a live push of a request was taken. */
  pushConfirmMs: number;
  wake: { perHour: number; concurrency: number; timeoutMs: number; quietMs: number };
  staleMs: number;
  launchRun: string | undefined;
  fault: Fault | undefined;
  store: StoreChoice;
  /** How long a prompt hook trusts a mirror found current (PostgreSQL store, no follower on the machine). */
  mirrorTrustMs: number;
  claimsEdits: "block" | "warn" | "off";
  guard: "on" | "off";
  /** The clock every time-dependent decision reads. */
  now: () => number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed: Parsed = {};
  for (const name of Object.keys(VARIABLES) as Array<keyof Variables>) {
    const raw = env[name];
    if (raw === undefined || raw === "") continue;
    const result = (VARIABLES[name].parse as Parser<unknown>)(raw);
    if ("problem" in result) {
      // A store URL may carry a password: it is shown masked, here as everywhere.
      const shown = "secret" in VARIABLES[name] ? maskStoreUrl(raw) : raw;
      throw new PeerpostError("invalid_arguments", `${name}=${JSON.stringify(shown)} is not valid: ${result.problem}`, {
        details: { variable: name, value: shown },
        hint: `${name}: ${VARIABLES[name].help}`,
      });
    }
    (parsed as Record<string, unknown>)[name] = result.value;
  }
  const fixedNow = parsed.PEERPOST_NOW;
  return {
    home: parsed.PEERPOST_HOME,
    address: parsed.PEERPOST_ADDRESS,
    roles: parsed.PEERPOST_ROLES ?? [],
    user: parsed.PEERPOST_USER,
    roleAdmin: parsed.PEERPOST_ROLE_ADMIN ?? false,
    roleEnforcement: parsed.PEERPOST_ROLE_ENFORCEMENT === undefined ? { mode: "off", source: "default" } : { mode: parsed.PEERPOST_ROLE_ENFORCEMENT, source: "PEERPOST_ROLE_ENFORCEMENT" },
    host: parsed.PEERPOST_HOST,
    maxHops: parsed.PEERPOST_MAX_HOPS ?? 4,
    reminderIntervalMs: parsed.PEERPOST_REMINDER_INTERVAL_MS ?? 30_000,
    reminderLimit: parsed.PEERPOST_REMINDER_LIMIT ?? 3,
    lockStaleMs: parsed.PEERPOST_LOCK_STALE_MS ?? 10_000,
    lockTimeoutMs: parsed.PEERPOST_LOCK_TIMEOUT_MS ?? 15_000,
    waitPollMs: parsed.PEERPOST_WAIT_POLL_MS ?? 200,
    retentionDays: parsed.PEERPOST_RETENTION_DAYS ?? 30,
    compactAtBytes: parsed.PEERPOST_COMPACT_AT_BYTES ?? 64 * 1024 * 1024,
    compactRoundMessages: parsed.PEERPOST_COMPACT_ROUND_MESSAGES ?? 1_000_000,
    logRetentionDays: parsed.PEERPOST_LOG_RETENTION_DAYS ?? 30,
    logCompactAtBytes: parsed.PEERPOST_LOG_COMPACT_AT_BYTES ?? 8 * 1024 * 1024,
    push: parsed.PEERPOST_PUSH ?? true,
    pushConfirmMs: parsed.PEERPOST_PUSH_CONFIRM_MS ?? 2000,
    wake: { perHour: parsed.PEERPOST_WAKE_PER_HOUR ?? 6, concurrency: parsed.PEERPOST_WAKE_CONCURRENCY ?? 2, timeoutMs: parsed.PEERPOST_WAKE_TIMEOUT_MS ?? 600_000, quietMs: parsed.PEERPOST_WAKE_QUIET_MS ?? 600_000 },
    staleMs: parsed.PEERPOST_STALE_MS ?? 3_600_000,
    launchRun: parsed.PEERPOST_LAUNCH_RUN,
    fault: parsed.PEERPOST_FAULT,
    store: parsed.PEERPOST_STORE ?? { kind: "file" },
    mirrorTrustMs: parsed.PEERPOST_MIRROR_TRUST_MS ?? 30_000,
    claimsEdits: parsed.PEERPOST_CLAIMS_EDITS ?? "block",
    guard: parsed.PEERPOST_GUARD ?? "on",
    now: fixedNow === undefined ? Date.now : () => fixedNow,
  };
}
