// Full validation of a mailbox-view snapshot before it is trusted: every field of every message, and
// consistency with itself (key = id, offsets before the snapshot's position, idempotency keys naming
// held messages, messages inside the scope). Hand-written rather than zod: a prompt hook loads a
// snapshot on every prompt and must not pay for building schemas. Returns the first problem found.
import { ADDRESS_PATTERN } from "./address.js";
import { ANTICIPATIONS, RESOLUTIONS, ULID_PATTERN } from "./schemas.js";

type Check = (value: unknown, where: string) => string | undefined;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const string: Check = (value, where) => (typeof value === "string" ? undefined : `${where} is not a string`);
const pattern = (regex: RegExp, what: string): Check => (value, where) => (typeof value === "string" && regex.test(value) ? undefined : `${where} is not ${what}`);
const address = pattern(ADDRESS_PATTERN, "an address");
const ulid = pattern(ULID_PATTERN, "a message id");
const time = pattern(ISO_TIME, "a UTC time");
const boolean: Check = (value, where) => (typeof value === "boolean" ? undefined : `${where} is not a boolean`);
const count = (min: number): Check => (value, where) => (Number.isSafeInteger(value) && (value as number) >= min ? undefined : `${where} is not an integer ≥ ${min}`);
const number: Check = (value, where) => (typeof value === "number" && Number.isFinite(value) ? undefined : `${where} is not a number`);
const oneOf = (options: readonly string[]): Check => (value, where) => (typeof value === "string" && options.includes(value) ? undefined : `${where} is not one of ${options.join(", ")}`);

/** An object with exactly these fields (those marked optional may be absent), each passing its check. */
function shape(fields: Record<string, Check>, optional: string[] = []): Check {
  return (value, where) => {
    if (!isObject(value)) return `${where} is not an object`;
    for (const key of Object.keys(value)) if (!(key in fields)) return `${where}.${key} is not a known field`;
    for (const [key, check] of Object.entries(fields)) {
      if (!(key in value)) {
        if (optional.includes(key)) continue;
        return `${where}.${key} is missing`;
      }
      const problem = check(value[key], `${where}.${key}`);
      if (problem) return problem;
    }
    return undefined;
  };
}

const messageShape = shape(
  {
    id: ulid,
    from: address,
    fromVerified: boolean,
    to: address,
    via: address,
    sentAt: time,
    anticipation: oneOf(ANTICIPATIONS),
    replyBy: time,
    inReplyTo: ulid,
    conversationId: ulid,
    hop: count(1),
    idempotencyKey: string,
    bodyBytes: count(0),
    offset: count(0),
    delivered: shape({ via: string, at: time }),
    read: shape({ by: address, at: time }),
    resolved: shape({ resolution: oneOf(RESOLUTIONS), replyId: ulid, reason: string, by: address, at: time }, ["replyId", "reason"]),
    reminders: shape({ count: count(0), lastAt: time }, ["lastAt"]),
  },
  ["via", "replyBy", "inReplyTo", "idempotencyKey", "delivered", "read", "resolved"],
);

const corruptLine = shape({ offset: count(0), length: count(1), reason: string });

const snapshotShape = shape({
  v: (value, where) => (value === 1 ? undefined : `${where} is not 1`),
  kind: (value, where) => (value === "mailbox-view" ? undefined : `${where} is not mailbox-view`),
  scope: (value, where) => (value === null ? undefined : address(value, where)),
  log: shape({ path: string, dev: number, ino: number, offset: count(0), tail: string }),
  state: shape({ messages: (value, where) => (isObject(value) ? undefined : `${where} is not an object`), idempotency: (value, where) => (isObject(value) ? undefined : `${where} is not an object`) }),
  corrupt: shape({ count: count(0), recent: (value, where) => (Array.isArray(value) ? value.map((line, index) => corruptLine(line, `${where}[${index}]`)).find(Boolean) : `${where} is not an array`) }),
});

/** The first reason not to trust `value` as the snapshot of `logPath` for `scope`, or undefined. */
export function snapshotProblem(value: unknown, logPath: string, scope: string | null): string | undefined {
  const problem = snapshotShape(value, "snapshot");
  if (problem) return problem;
  const snapshot = value as { scope: string | null; log: { path: string; offset: number }; state: { messages: Record<string, unknown>; idempotency: Record<string, unknown> }; corrupt: { count: number; recent: Array<{ offset: number }> } };
  if (snapshot.scope !== scope) return "snapshot is of another scope";
  if (snapshot.log.path !== logPath) return "snapshot is of another log";
  const end = snapshot.log.offset;
  for (const [key, message] of Object.entries(snapshot.state.messages)) {
    const where = `snapshot.state.messages.${key}`;
    const invalid = messageShape(message, where);
    if (invalid) return invalid;
    const held = message as { id: string; from: string; to: string; offset: number };
    if (held.id !== key) return `${where} holds message ${held.id}`;
    if (held.offset >= end) return `${where}.offset is past the snapshot's position`;
    if (scope !== null && held.to !== scope && held.from !== scope) return `${where} is outside the scope`;
  }
  for (const [key, id] of Object.entries(snapshot.state.idempotency)) {
    const message = typeof id === "string" ? (snapshot.state.messages[id] as { from: string; idempotencyKey?: string } | undefined) : undefined;
    if (!message || key !== `${message.from}\n${message.idempotencyKey}`) return `snapshot.state.idempotency names a message it does not hold`;
  }
  if (snapshot.corrupt.count < snapshot.corrupt.recent.length || snapshot.corrupt.recent.some((line) => line.offset >= end)) return "snapshot.corrupt does not match its position";
  return undefined;
}
