// Record schemas for every log: mailbox events, receipts and the sessions registry. Each record has `v: 1`.
// zod/mini keeps the hook bundles small, and every schema is built on first use: a prompt hook that
// finds no new log lines never pays for building them.
import { z, type Zod } from "./zod.js";
import { ADDRESS_PATTERN, ID_PATTERN, NAME_PATTERN } from "../common/address.js";
import type { RecordSchema } from "../log/types.js";
import { MACHINE_PATTERN } from "../sessions/machine.js";
import { ANTICIPATIONS, DELIVERIES, MAX_BODY_BYTES, ORIGIN_SOURCES, RECEIPT_KINDS, RELEASE_WHYS, RESOLUTIONS, SESSION_HOSTS, SESSION_SOURCES, TASK_STATUSES, ULID_PATTERN } from "./record-values.js";
import { acceptsMailboxEvent, acceptsReceipt, acceptsSession } from "./record-check.js";

export { ANTICIPATIONS, MAX_BODY_BYTES, ORIGIN_SOURCES, RECEIPT_KINDS, RELEASE_WHYS, RESOLUTIONS, SESSION_HOSTS, TASK_STATUSES, ULID_PATTERN } from "./record-values.js";
export type { Anticipation, OriginSource, ReceiptKind, ReleaseWhy, Resolution, SessionHost, TaskStatus } from "./record-values.js";

const address = () => z.string().check(z.regex(ADDRESS_PATTERN));
const ulidId = () => z.string().check(z.regex(ULID_PATTERN));
const isoTime = () => z.iso.datetime();
const shortText = (max: number) => z.string().check(z.maxLength(max));
/** Peer-written text (bodies, decline reasons): at most 64 KiB of UTF-8. */
const bodyText = () => z.string().check(z.refine((text) => Buffer.byteLength(text, "utf8") <= MAX_BODY_BYTES, "over 64 KiB"));

/**
 * A schema that is built the first time something is parsed with it. `accepts` (record-check.ts) passes
 * the common records in the exact form peerpost writes without it; every other input goes to zod.
 */
function lazy<T>(build: () => RecordSchema<T>, accepts?: (input: unknown) => boolean): RecordSchema<T> & { zodOnly: RecordSchema<T> } {
  let schema: RecordSchema<T> | undefined;
  const zodOnly: RecordSchema<T> = { safeParse: (input) => (schema ??= build()).safeParse(input) };
  return { safeParse: (input) => (accepts?.(input) ? { success: true, data: input as T } : zodOnly.safeParse(input)), zodOnly };
}

const msgEvent = () =>
  z.strictObject({
  v: z.literal(1),
  type: z.literal("msg"),
  id: ulidId(),
  from: address(),
  fromVerified: z.boolean(),
  to: address(),
  /** The role the sender addressed, when `to` was resolved from one. */
  via: z.optional(address()),
  sentAt: isoTime(),
  anticipation: z.enum(ANTICIPATIONS),
  replyBy: z.optional(isoTime()),
  inReplyTo: z.optional(ulidId()),
  conversationId: ulidId(),
  hop: z.number().check(z.int(), z.gte(1)),
  body: bodyText(),
  idempotencyKey: z.optional(shortText(200)),
});

const deliveredEvent = () =>
  z.strictObject({
  v: z.literal(1),
  type: z.literal("delivered"),
  id: ulidId(),
  via: shortText(64),
  at: isoTime(),
});

/** A push that claimed delivery and then failed gives the claim back, so the message can be pushed later. */
const undeliveredEvent = () =>
  z.strictObject({
    v: z.literal(1),
    type: z.literal("undelivered"),
    id: ulidId(),
    via: shortText(64),
    at: isoTime(),
  });

/** A turn-end hook told the session about this unread request (once: it never blocks a stop for it again). */
const noticedEvent = () =>
  z.strictObject({
    v: z.literal(1),
    type: z.literal("noticed"),
    id: ulidId(),
    via: shortText(64),
    at: isoTime(),
  });

const readEvent = () =>
  z.strictObject({
  v: z.literal(1),
  type: z.literal("read"),
  id: ulidId(),
  by: address(),
  at: isoTime(),
});

const resolvedEvent = () =>
  z.strictObject({
  v: z.literal(1),
  type: z.literal("resolved"),
  id: ulidId(),
  resolution: z.enum(RESOLUTIONS),
  replyId: z.optional(ulidId()),
  reason: z.optional(bodyText()),
  by: address(),
  at: isoTime(),
});

const reminderEvent = () =>
  z.strictObject({
  v: z.literal(1),
  type: z.literal("reminder"),
  id: ulidId(),
  n: z.number().check(z.int(), z.gte(1)),
  via: shortText(64),
  at: isoTime(),
});

/** A role given to a holder (or cleared, without one) at run time, with the procedure that goes with it. */
const roleEvent = () =>
  z.strictObject({
    v: z.literal(1),
    type: z.literal("role"),
    id: ulidId(),
    role: z.string().check(z.regex(ID_PATTERN)),
    holder: z.optional(address()),
    by: address(),
    at: isoTime(),
    procedure: z.optional(
      z.strictObject({
        /** SHA-256 of the text, hex: the procedure's version. */
        version: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
        text: bodyText(),
        /** Where it was read from (a path), for people. */
        source: shortText(4096),
      }),
    ),
  });

/** Claimed paths in one repository (an absolute path), relative to it and normalised; all or nothing. */
const claimEvent = () =>
  z.strictObject({
    v: z.literal(1),
    type: z.literal("claim"),
    id: ulidId(),
    holder: address(),
    repo: shortText(4096),
    paths: z.array(shortText(1024)).check(z.minLength(1), z.maxLength(100)),
    shared: z.boolean(),
    reason: z.optional(shortText(2000)),
    at: isoTime(),
    until: isoTime(),
  });

/** Claims of one holder that end: released, forced by a person, expired, or their holder's session gone. */
const releaseEvent = () =>
  z.strictObject({
    v: z.literal(1),
    type: z.literal("release"),
    id: ulidId(),
    holder: address(),
    repo: shortText(4096),
    paths: z.array(shortText(1024)).check(z.minLength(1), z.maxLength(100)),
    why: z.enum(RELEASE_WHYS),
    by: address(),
    at: isoTime(),
  });

/** A task on the board; `messageId` opens its conversation (the creator's note that the result answers). */
const taskEvent = () =>
  z.strictObject({
    v: z.literal(1),
    type: z.literal("task"),
    id: ulidId(),
    title: shortText(200),
    body: bodyText(),
    by: address(),
    assignee: z.optional(address()),
    after: z.array(ulidId()).check(z.maxLength(100)),
    messageId: ulidId(),
    at: isoTime(),
  });

/** A task taken by a session (the first in log order wins), or its status changed by its taker. */
const taskStatusEvent = () =>
  z.strictObject({
    v: z.literal(1),
    type: z.literal("task_status"),
    id: ulidId(),
    task: ulidId(),
    status: z.enum(TASK_STATUSES),
    by: address(),
    note: z.optional(bodyText()),
    /** Tasks this one now waits on too (with status blocked). */
    after: z.optional(z.array(ulidId()).check(z.maxLength(100))),
    at: isoTime(),
  });

export type MsgEvent = Zod.infer<ReturnType<typeof msgEvent>>;
export type DeliveredEvent = Zod.infer<ReturnType<typeof deliveredEvent>>;
export type UndeliveredEvent = Zod.infer<ReturnType<typeof undeliveredEvent>>;
export type ReadEvent = Zod.infer<ReturnType<typeof readEvent>>;
export type NoticedEvent = Zod.infer<ReturnType<typeof noticedEvent>>;
export type ResolvedEvent = Zod.infer<ReturnType<typeof resolvedEvent>>;
export type ReminderEvent = Zod.infer<ReturnType<typeof reminderEvent>>;
export type RoleEvent = Zod.infer<ReturnType<typeof roleEvent>>;
export type ClaimEvent = Zod.infer<ReturnType<typeof claimEvent>>;
export type ReleaseEvent = Zod.infer<ReturnType<typeof releaseEvent>>;
export type TaskEvent = Zod.infer<ReturnType<typeof taskEvent>>;
export type TaskStatusEvent = Zod.infer<ReturnType<typeof taskStatusEvent>>;
/** Events about shared work (claims, tasks): in the mailbox log for its order, folded apart from the mail. */
export type WorkEvent = ClaimEvent | ReleaseEvent | TaskEvent | TaskStatusEvent;
export type MailboxEvent = MsgEvent | DeliveredEvent | UndeliveredEvent | NoticedEvent | ReadEvent | ResolvedEvent | ReminderEvent | RoleEvent | WorkEvent;

export const mailboxEvent = lazy<MailboxEvent>(
  () => z.discriminatedUnion("type", [msgEvent(), deliveredEvent(), undeliveredEvent(), noticedEvent(), readEvent(), resolvedEvent(), reminderEvent(), roleEvent(), claimEvent(), releaseEvent(), taskEvent(), taskStatusEvent()]),
  acceptsMailboxEvent,
);

const receiptRecord = () =>
  z.strictObject({
  v: z.literal(1),
  type: z.literal("receipt"),
  id: ulidId(),
  kind: z.enum(RECEIPT_KINDS),
  at: isoTime(),
  host: shortText(32),
  from: address(),
  to: address(),
  messageId: ulidId(),
  delivery: z.enum(DELIVERIES),
  via: z.optional(shortText(64)),
  warnings: z.array(shortText(2000)),
  /** Marks for audit, e.g. `direct_coordination` (a role holder messaged another by session address). */
  tags: z.optional(z.array(shortText(64))),
  /** Where the sender's identity came from: an explicit argument, the host runtime, the environment, or nowhere. */
  origin: z.strictObject({
    source: z.enum(ORIGIN_SOURCES),
    detail: z.optional(shortText(200)),
    pid: z.number().check(z.int()),
    cwd: z.optional(shortText(4096)),
  }),
});
export type ReceiptRecord = Zod.infer<ReturnType<typeof receiptRecord>>;
export const receiptSchema = lazy<ReceiptRecord>(receiptRecord, acceptsReceipt);


const sessionRecord = () =>
  z.strictObject({
  v: z.literal(1),
  type: z.literal("session"),
  at: isoTime(),
  host: z.enum(SESSION_HOSTS),
  address: address(),
  sessionId: z.string().check(z.regex(ID_PATTERN)),
  /** The host CLI's process id: the common ancestor of its hooks and its MCP server. */
  hostPid: z.optional(z.number().check(z.int(), z.gte(1))),
  /** The host process's start time (clock ticks since boot), so a reused pid is not taken for the session. */
  hostStart: z.optional(z.number().check(z.int(), z.gte(0))),
  /** The process that wrote this record (a hook or a server). */
  writerPid: z.number().check(z.int(), z.gte(1)),
  cwd: z.optional(shortText(4096)),
  /** Free text from the host; untrusted. */
  title: z.optional(shortText(200)),
  source: z.enum(SESSION_SOURCES),
  /** A human name a person gave the session (`peerpost name`), or the host's own title for it. */
  name: z.optional(z.string().check(z.regex(NAME_PATTERN))),
  roles: z.optional(z.array(z.string().check(z.regex(ID_PATTERN)))),
    /** The live push transport the session's server can use ("none" when mail waits for read and hooks). */
    push: z.optional(shortText(32)),
  /** Set by the writer when the session's own host (this pid) was still running: the record is a claim, not a move. */
  claimFrom: z.optional(z.number().check(z.int(), z.gte(1))),
    /** The machine the session runs on (core/sessions/machine.ts); records written before machines existed have none. */
    machine: z.optional(z.string().check(z.regex(MACHINE_PATTERN))),
});
export type SessionRecord = Zod.infer<ReturnType<typeof sessionRecord>>;
export const sessionSchema = lazy<SessionRecord>(sessionRecord, acceptsSession);
