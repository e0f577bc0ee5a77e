// Records of the wakes log (wakes.jsonl): a claim made under the lock before anything starts, the
// runner that took it, and the outcome. A claim without an outcome holds until its deadline.
import { z, type Zod } from "../records/zod.js";
import { ADDRESS_PATTERN, ID_PATTERN } from "../common/address.js";
import { MAX_BODY_BYTES, SESSION_HOSTS, ULID_PATTERN } from "../records/schemas.js";
import type { RecordSchema } from "../log/types.js";

export const WAKE_OUTCOMES = ["ok", "failed", "timeout", "abandoned", "refused"] as const;
export type WakeOutcomeKind = (typeof WAKE_OUTCOMES)[number];

const ulid = () => z.string().check(z.regex(ULID_PATTERN));
const text = (max: number) => z.string().check(z.maxLength(max));
const tokens = () => z.number().check(z.int(), z.gte(0));

const claimRecord = () =>
  z.strictObject({
    v: z.literal(1),
    type: z.literal("wake"),
    id: ulid(),
    /** wake: resume a dormant session; launch: start a new one; fork: run a copy of a session's history. */
    kind: z.enum(["wake", "launch", "fork"]),
    /** Absent only for a launch on a host that picks the new session's id itself: `wake-bound` gives it. */
    address: z.optional(z.string().check(z.regex(ADDRESS_PATTERN))),
    host: z.enum(SESSION_HOSTS),
    sessionId: z.optional(z.string().check(z.regex(ID_PATTERN))),
    cwd: text(4096),
    /** The messages this run carries (for a launch: its first prompt). */
    messageIds: z.array(ulid()),
    /** Such a launch's first message, sent by the runner once the host names the session. */
    request: z.optional(
      z.strictObject({
        from: z.string().check(z.regex(ADDRESS_PATTERN)),
        fromVerified: z.boolean(),
        anticipation: z.enum(["reply", "action"]),
        body: text(MAX_BODY_BYTES),
      }),
    ),
    /** A fork's options: keep the fork session when it completes, and its id when peerpost chooses it. */
    fork: z.optional(z.strictObject({ keep: z.boolean(), sessionId: z.optional(z.string().check(z.regex(ID_PATTERN))) })),
    /** The model and reasoning effort this run passes with the host's own flags. */
    settings: z.optional(z.strictObject({ model: z.optional(text(64)), effort: z.optional(text(16)) })),
    at: z.iso.datetime(),
    /** Past this, a claim without an outcome is released (its runner died). */
    deadline: z.iso.datetime(),
    by: z.number().check(z.int()),
  });

const startedRecord = () =>
  z.strictObject({
    v: z.literal(1),
    type: z.literal("wake-started"),
    id: ulid(),
    runnerPid: z.number().check(z.int()),
    command: text(200),
    at: z.iso.datetime(),
  });

/** A launch's session as its host named it (Codex: the `thread.started` event), and its first message. */
const boundRecord = () =>
  z.strictObject({
    v: z.literal(1),
    type: z.literal("wake-bound"),
    id: ulid(),
    address: z.string().check(z.regex(ADDRESS_PATTERN)),
    sessionId: z.string().check(z.regex(ID_PATTERN)),
    messageIds: z.array(ulid()),
    at: z.iso.datetime(),
  });

/** The host process the runner started (its own process group), so a dead runner's orphan can be stopped. */
const hostRecord = () =>
  z.strictObject({
    v: z.literal(1),
    type: z.literal("wake-host"),
    id: ulid(),
    pid: z.number().check(z.int()),
    /** Its start time in clock ticks (Linux), so a reused pid is never taken for it. */
    pidStart: z.optional(z.number().check(z.int())),
    at: z.iso.datetime(),
  });

/** A fork's new session, once its host named it. */
const forkedRecord = () =>
  z.strictObject({
    v: z.literal(1),
    type: z.literal("wake-forked"),
    id: ulid(),
    address: z.string().check(z.regex(ADDRESS_PATTERN)),
    sessionId: z.string().check(z.regex(ID_PATTERN)),
    at: z.iso.datetime(),
  });

/** A fork's answer (or outcome), sent back to the forked session: once per run. */
const reconciledRecord = () =>
  z.strictObject({
    v: z.literal(1),
    type: z.literal("wake-reconciled"),
    id: ulid(),
    messageId: ulid(),
    at: z.iso.datetime(),
  });

const endedRecord = () =>
  z.strictObject({
    v: z.literal(1),
    type: z.literal("wake-ended"),
    id: ulid(),
    outcome: z.enum(WAKE_OUTCOMES),
    exitCode: z.optional(z.number().check(z.int())),
    signal: z.optional(text(32)),
    durationMs: z.optional(z.number().check(z.gte(0))),
    reason: z.optional(text(2000)),
    /** What the host said about the turn (its final result line), escaped on display. */
    report: z.optional(text(2000)),
    /** The run's tokens, where the host reports them (receipts carry them as tags). */
    usage: z.optional(z.strictObject({ input: tokens(), cachedInput: tokens(), output: tokens() })),
    logPath: z.optional(text(4096)),
    at: z.iso.datetime(),
  });

export type WakeClaim = Zod.infer<ReturnType<typeof claimRecord>>;
export type WakeStarted = Zod.infer<ReturnType<typeof startedRecord>>;
export type WakeBound = Zod.infer<ReturnType<typeof boundRecord>>;
export type WakeHost = Zod.infer<ReturnType<typeof hostRecord>>;
export type WakeEnded = Zod.infer<ReturnType<typeof endedRecord>>;
export type WakeForked = Zod.infer<ReturnType<typeof forkedRecord>>;
export type WakeReconciled = Zod.infer<ReturnType<typeof reconciledRecord>>;
export type WakeRecord = WakeClaim | WakeStarted | WakeBound | WakeHost | WakeEnded | WakeForked | WakeReconciled;

let schema: RecordSchema<WakeRecord> | undefined;
export const wakeRecordSchema: RecordSchema<WakeRecord> = {
  safeParse: (input) => (schema ??= z.discriminatedUnion("type", [claimRecord(), startedRecord(), boundRecord(), hostRecord(), endedRecord(), forkedRecord(), reconciledRecord()])).safeParse(input),
};
