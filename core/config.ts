// Every PEERPOST_* variable, parsed once with zod. A bad value is an error that names the variable.
// zod/mini keeps the hook bundles small: they start on every prompt.
import { z, type Zod } from "./zod.js";
import { PeerpostError } from "./errors.js";
import { ID_PATTERN } from "./address.js";
import { maskStoreUrl, storeUrlProblem } from "./store/postgres/url.js";
import { ULID_PATTERN } from "./schemas.js";

const TRUE_WORDS = ["1", "true", "yes", "on"];
const FALSE_WORDS = ["0", "false", "no", "off"];

const flag = () =>
  z.pipe(
  z.string(),
  z.transform((raw: string, ctx) => {
    const word = raw.trim().toLowerCase();
    if (TRUE_WORDS.includes(word)) return true;
    if (FALSE_WORDS.includes(word)) return false;
    ctx.issues.push({ code: "custom", input: raw, message: `expected one of ${[...TRUE_WORDS, ...FALSE_WORDS].join("/")}` });
    return z.NEVER;
  }),
);

const wholeNumber = (min: number, max: number) =>
  z.pipe(
    z.string().check(z.trim(), z.regex(/^\d+$/, { error: "expected a whole number" })),
    z.pipe(z.transform(Number), z.number().check(z.gte(min, { error: `expected at least ${min}` }), z.lte(max, { error: `expected at most ${max}` }))),
  );

/** PEERPOST_NOW: a fixed clock for tests and reproductions, as epoch milliseconds or an ISO date. */
const instant = () =>
  z.pipe(
  z.string().check(z.trim()),
  z.transform((raw: string, ctx) => {
    const ms = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
    if (!Number.isFinite(ms)) {
      ctx.issues.push({ code: "custom", input: raw, message: "expected epoch milliseconds or an ISO 8601 date" });
      return z.NEVER;
    }
    return ms;
  }),
);

/** Crash-test fault points: stop before an fsync, die mid-line, stop (SIGSTOP) between deciding and writing, die at a compaction step. */
export const FAULTS = ["pause-before-fsync", "partial-line", "stop-after-decide", "compact-after-marker", "compact-after-archive", "compact-after-rename"] as const;
export type Fault = (typeof FAULTS)[number];

/** PEERPOST_STORE: `file` (the default) or a PostgreSQL URL. */
export type StoreChoice = { kind: "file" } | { kind: "postgres"; url: string };

const storeChoice = () =>
  z.pipe(
    z.string().check(z.trim()),
    z.transform((raw: string, ctx): StoreChoice => {
      if (raw === "file") return { kind: "file" };
      const problem = storeUrlProblem(raw);
      if (problem === undefined) return { kind: "postgres", url: raw };
      ctx.issues.push({ code: "custom", input: raw, message: `expected file or a postgres:// URL (${problem})` });
      return z.NEVER;
    }),
  );

const HOSTS = ["claude-code", "codex", "copilot", "grok", "generic"] as const;
export type HostName = (typeof HOSTS)[number];

/** The variables, their parsers and what they mean (the README lists the same table). */
export const VARIABLES = {
  PEERPOST_HOME: { schema: () => z.string().check(z.minLength(1)), help: "State directory (absolute or ~/…). Default ~/.peerpost." },
  PEERPOST_ADDRESS: { schema: () => z.string().check(z.minLength(1)), help: "This process's own address, e.g. claude:abc; overrides host detection." },
  PEERPOST_ROLES: {
    schema: () =>
      z.pipe(
      z.string(),
      z.transform((raw: string, ctx) => {
        const roles = raw.split(",").map((role) => role.trim()).filter(Boolean);
        const bad = roles.find((role) => !ID_PATTERN.test(role));
        if (bad !== undefined) {
          ctx.issues.push({ code: "custom", input: raw, message: `role ${JSON.stringify(bad)} may use only letters, digits, '.', '_' and '-'` });
          return z.NEVER;
        }
        return roles;
      }),
    ),
    help: "Comma-separated roles this session takes (reachable as role:<name>).",
  },
  PEERPOST_USER: {
    schema: () => z.string().check(z.regex(ID_PATTERN, { error: "may use only letters, digits, '.', '_' and '-' (up to 128), starting with a letter or digit" })),
    help: "The person's name in user:<name>, the command line's default sender (default: the login name).",
  },
  PEERPOST_ROLE_ADMIN: { schema: () => flag(), help: "Give this server's agent the role tool, to set and clear roles (default off: only people change roles, with `peerpost role`)." },
  PEERPOST_HOST: { schema: () => z.enum(HOSTS, { error: `expected one of ${HOSTS.join(", ")}` }), help: "Host adapter for `peerpost serve` when --host is not given." },
  PEERPOST_MAX_HOPS: { schema: () => wholeNumber(1, 64), help: "Hop budget per conversation (default 4)." },
  PEERPOST_REMINDER_INTERVAL_MS: { schema: () => wholeNumber(1000, 86_400_000), help: "Least time between reminders for one open request (default 30000)." },
  PEERPOST_REMINDER_LIMIT: { schema: () => wholeNumber(0, 100), help: "Reminders per open request before it shows as unresolved (default 3)." },
  PEERPOST_LOCK_STALE_MS: { schema: () => wholeNumber(2000, 600_000), help: "Age after which a lock whose holder stopped updating it is taken over (default 10000)." },
  PEERPOST_LOCK_TIMEOUT_MS: { schema: () => wholeNumber(100, 600_000), help: "How long an append waits for the lock before state_io_error (default 15000: longer than the stale window, so a dead holder's lock is taken over first)." },
  PEERPOST_RETENTION_DAYS: { schema: () => wholeNumber(0, 36_500), help: "Days a resolved, expired or read fyi message stays in the live mailbox before compaction archives it (default 30)." },
  PEERPOST_COMPACT_AT_BYTES: { schema: () => wholeNumber(65_536, 2 ** 40), help: "Live mailbox size past which a server compacts it by itself (default 67108864, 64 MiB)." },
  PEERPOST_WAIT_POLL_MS: { schema: () => wholeNumber(10, 60_000), help: "Poll interval behind the file watch in `wait` (default 200)." },
  PEERPOST_PUSH: { schema: () => flag(), help: "Live push into the host session where the host has a transport (default on)." },
  PEERPOST_WAKE_PER_HOUR: { schema: () => wholeNumber(0, 1000), help: "Wakes (and launches) per session per hour (default 6)." },
  PEERPOST_WAKE_CONCURRENCY: { schema: () => wholeNumber(0, 64), help: "Woken or launched turns running at once on this machine (default 2)." },
  PEERPOST_WAKE_TIMEOUT_MS: { schema: () => wholeNumber(1000, 86_400_000), help: "Longest a woken or launched turn may run before it is stopped (default 600000)." },
  PEERPOST_WAKE_QUIET_MS: { schema: () => wholeNumber(0, 86_400_000), help: "A session known only from its host's files is woken only when its session file was not written for this long, and no process names it (default 600000)." },
  PEERPOST_LAUNCH_RUN: { schema: () => z.string().check(z.regex(ULID_PATTERN, { error: "expected a run id" })), help: "Set by peerpost on the server it gives a launched Codex session: its first tool call waits until the run knows the session's address and first message." },
  PEERPOST_STALE_MS: { schema: () => wholeNumber(1000, 2_592_000_000), help: "Age after which unread mail is stale: never woken for nor pushed, it waits for read (default 3600000)." },
  PEERPOST_NOW: { schema: () => instant(), help: "Fixed clock (epoch ms or ISO date), for tests and reproductions." },
  PEERPOST_STORE: { schema: () => storeChoice(), secret: true, help: "Where the logs live: file (default, the state dir) or postgres://user@host:port/db?sslmode=… (a database shared by several machines)." },
  PEERPOST_FAULT: { schema: () => z.enum(FAULTS, { error: `expected one of ${FAULTS.join(", ")}` }), help: "Fault injection for crash tests; never set it in normal use." },
} as const;

type Variables = typeof VARIABLES;
type Parsed = { [K in keyof Variables]?: Zod.output<ReturnType<Variables[K]["schema"]>> };

export interface Config {
  home: string | undefined;
  address: string | undefined;
  roles: string[];
  user: string | undefined;
  roleAdmin: boolean;
  host: HostName | undefined;
  maxHops: number;
  reminderIntervalMs: number;
  reminderLimit: number;
  lockStaleMs: number;
  lockTimeoutMs: number;
  waitPollMs: number;
  retentionDays: number;
  compactAtBytes: number;
  push: boolean;
  wake: { perHour: number; concurrency: number; timeoutMs: number; quietMs: number };
  staleMs: number;
  launchRun: string | undefined;
  fault: Fault | undefined;
  store: StoreChoice;
  /** The clock every time-dependent decision reads. */
  now: () => number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed: Parsed = {};
  for (const name of Object.keys(VARIABLES) as Array<keyof Variables>) {
    const raw = env[name];
    if (raw === undefined || raw === "") continue;
    // Built only for the variables that are set: most processes set none, and hooks start on every prompt.
    const result = VARIABLES[name].schema().safeParse(raw);
    if (!result.success) {
      // A store URL may carry a password: it is shown masked, here as everywhere.
      const shown = "secret" in VARIABLES[name] ? maskStoreUrl(raw) : raw;
      throw new PeerpostError("invalid_arguments", `${name}=${JSON.stringify(shown)} is not valid: ${result.error.issues.map((issue) => issue.message).join("; ")}`, {
        details: { variable: name, value: shown },
        hint: `${name}: ${VARIABLES[name].help}`,
      });
    }
    (parsed as Record<string, unknown>)[name] = result.data;
  }
  const fixedNow = parsed.PEERPOST_NOW;
  return {
    home: parsed.PEERPOST_HOME,
    address: parsed.PEERPOST_ADDRESS,
    roles: parsed.PEERPOST_ROLES ?? [],
    user: parsed.PEERPOST_USER,
    roleAdmin: parsed.PEERPOST_ROLE_ADMIN ?? false,
    host: parsed.PEERPOST_HOST,
    maxHops: parsed.PEERPOST_MAX_HOPS ?? 4,
    reminderIntervalMs: parsed.PEERPOST_REMINDER_INTERVAL_MS ?? 30_000,
    reminderLimit: parsed.PEERPOST_REMINDER_LIMIT ?? 3,
    lockStaleMs: parsed.PEERPOST_LOCK_STALE_MS ?? 10_000,
    lockTimeoutMs: parsed.PEERPOST_LOCK_TIMEOUT_MS ?? 15_000,
    waitPollMs: parsed.PEERPOST_WAIT_POLL_MS ?? 200,
    retentionDays: parsed.PEERPOST_RETENTION_DAYS ?? 30,
    compactAtBytes: parsed.PEERPOST_COMPACT_AT_BYTES ?? 64 * 1024 * 1024,
    push: parsed.PEERPOST_PUSH ?? true,
    wake: { perHour: parsed.PEERPOST_WAKE_PER_HOUR ?? 6, concurrency: parsed.PEERPOST_WAKE_CONCURRENCY ?? 2, timeoutMs: parsed.PEERPOST_WAKE_TIMEOUT_MS ?? 600_000, quietMs: parsed.PEERPOST_WAKE_QUIET_MS ?? 600_000 },
    staleMs: parsed.PEERPOST_STALE_MS ?? 3_600_000,
    launchRun: parsed.PEERPOST_LAUNCH_RUN,
    fault: parsed.PEERPOST_FAULT,
    store: parsed.PEERPOST_STORE ?? { kind: "file" },
    now: fixedNow === undefined ? Date.now : () => fixedNow,
  };
}
