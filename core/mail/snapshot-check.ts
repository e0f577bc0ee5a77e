// Full validation of a mailbox-view snapshot before it is trusted: every field of every message and
// role, and consistency with itself (key = id, offsets before the snapshot's position, idempotency keys
// naming held messages, messages inside the scope: to or from it, or role mail). Hand-written rather than zod: a prompt hook loads a
// snapshot on every prompt and must not pay for building schemas. Returns the first problem found.
import { ADDRESS_PATTERN, ID_PATTERN } from "../common/address.js";
import { ANTICIPATIONS, RESOLUTIONS, ULID_PATTERN } from "../records/schemas.js";
import { isPlainObject } from "../common/values.js";
import { idempotencySlot } from "./fold.js";

/** A problem relative to the value checked: "is not a string", or ".field is missing" / ".field is not …". */
type Check = (value: unknown) => string | undefined;

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** The problem of a field, seen from the object holding it. Paths are built only for a problem, never on the way. */
function at(key: string | number, problem: string): string {
  const step = typeof key === "number" ? `[${key}]` : `.${key}`;
  return problem.startsWith(".") || problem.startsWith("[") ? step + problem : `${step} ${problem}`;
}

const string: Check = (value) => (typeof value === "string" ? undefined : "is not a string");
const pattern = (regex: RegExp, what: string): Check => (value) => (typeof value === "string" && regex.test(value) ? undefined : `is not ${what}`);
const address = pattern(ADDRESS_PATTERN, "an address");
const name = pattern(ID_PATTERN, "a name");
const ulid = pattern(ULID_PATTERN, "a message id");
const time = pattern(ISO_TIME, "a UTC time");
const boolean: Check = (value) => (typeof value === "boolean" ? undefined : "is not a boolean");
const count = (min: number): Check => (value) => (Number.isSafeInteger(value) && (value as number) >= min ? undefined : `is not an integer ≥ ${min}`);
const number: Check = (value) => (typeof value === "number" && Number.isFinite(value) ? undefined : "is not a number");
const object: Check = (value) => (isPlainObject(value) ? undefined : "is not an object");
const oneOf = (options: readonly string[]): Check => (value) => (typeof value === "string" && options.includes(value) ? undefined : `is not one of ${options.join(", ")}`);
const arrayOf = (item: Check): Check => (value) => {
  if (!Array.isArray(value)) return "is not an array";
  for (let index = 0; index < value.length; index++) {
    const problem = item(value[index]);
    if (problem) return at(index, problem);
  }
  return undefined;
};

/** An object with exactly these fields (those marked optional may be absent), each passing its check. */
function shape(fields: Record<string, Check>, optional: string[] = []): Check {
  // Built once per shape: this runs for every message of a snapshot on every prompt hook.
  const checks = Object.entries(fields).map(([key, check]) => ({ key, check, optional: optional.includes(key) }));
  return (value) => {
    if (!isPlainObject(value)) return "is not an object";
    let present = 0;
    for (const { key, check, optional: mayBeAbsent } of checks) {
      const field = value[key];
      if (field === undefined) {
        if (mayBeAbsent && !(key in value)) continue;
        if (!mayBeAbsent) return at(key, "is missing");
      }
      present++;
      const problem = check(field);
      if (problem) return at(key, problem);
    }
    if (Object.keys(value).length !== present) return "has a field that is not known";
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
    noticed: shape({ via: string, at: time, count: count(1) }, ["count"]),
    resolved: shape({ resolution: oneOf(RESOLUTIONS), replyId: ulid, reason: string, by: address, at: time }, ["replyId", "reason"]),
    reminders: shape({ count: count(0), lastAt: time }, ["lastAt"]),
    handovers: arrayOf(shape({ from: address, to: address, at: time })),
    procedure: shape({ role: name, version: string, offset: count(0) }),
  },
  ["via", "replyBy", "inReplyTo", "idempotencyKey", "delivered", "read", "noticed", "resolved", "handovers", "procedure"],
);

const roleShape = shape(
  {
    holder: address,
    since: time,
    by: address,
    offset: count(0),
    procedure: shape({ version: string, bytes: count(0), source: string }),
    shown: arrayOf(string),
  },
  ["holder", "procedure"],
);

const corruptLine = shape({ offset: count(0), length: count(1), reason: string });

const snapshotShape = shape({
  v: count(1),
  kind: (value) => (value === "mailbox-view" ? undefined : "is not mailbox-view"),
  scope: (value) => (value === null ? undefined : address(value)),
  log: shape({ path: string, dev: number, ino: number, offset: count(0), tail: string }),
  state: shape({ messages: object, idempotency: object, roles: object }),
  corrupt: shape({ count: count(0), recent: arrayOf(corruptLine) }),
});

export interface SnapshotExpectation {
  logPath: string;
  scope: string | null;
  /** The snapshot format this build writes; any other is rebuilt. */
  version: number;
}

/** The first reason not to trust `value` as the snapshot of `logPath` for `scope`, or undefined. */
export function snapshotProblem(value: unknown, { logPath, scope, version }: SnapshotExpectation): string | undefined {
  const problem = snapshotShape(value);
  if (problem) return `snapshot${problem}`;
  const snapshot = value as { v: number; scope: string | null; log: { path: string; offset: number }; state: { messages: Record<string, unknown>; idempotency: Record<string, unknown>; roles: Record<string, unknown> }; corrupt: { count: number; recent: Array<{ offset: number }> } };
  if (snapshot.v !== version) return `snapshot is of format ${snapshot.v}, not ${version}`;
  if (snapshot.scope !== scope) return "snapshot is of another scope";
  if (snapshot.log.path !== logPath) return "snapshot is of another log";
  const end = snapshot.log.offset;
  const messages = snapshot.state.messages;
  for (const key in messages) {
    const invalid = messageShape(messages[key]);
    const held = messages[key] as { id: string; from: string; to: string; via?: string; offset: number; procedure?: { offset: number } };
    const problem =
      invalid ??
      (held.id !== key
        ? `holds message ${held.id}`
        : held.offset >= end || (held.procedure?.offset ?? 0) >= end
          ? "has an offset past the snapshot's position"
          : scope !== null && held.to !== scope && held.from !== scope && held.via === undefined
            ? "is outside the scope"
            : undefined);
    if (problem) return `snapshot.state.messages${at(key, problem)}`;
  }
  const roles = snapshot.state.roles;
  for (const key in roles) {
    const problem = (ID_PATTERN.test(key) ? undefined : "is not a role name") ?? roleShape(roles[key]) ?? ((roles[key] as { offset: number }).offset >= end ? "has an offset past the snapshot's position" : undefined);
    if (problem) return `snapshot.state.roles${at(key, problem)}`;
  }
  for (const [key, id] of Object.entries(snapshot.state.idempotency)) {
    const message = typeof id === "string" ? (snapshot.state.messages[id] as { from: string; idempotencyKey?: string } | undefined) : undefined;
    if (!message || message.idempotencyKey === undefined || key !== idempotencySlot(message.from, message.idempotencyKey)) return `snapshot.state.idempotency names a message it does not hold`;
  }
  if (snapshot.corrupt.count < snapshot.corrupt.recent.length || snapshot.corrupt.recent.some((line) => line.offset >= end)) return "snapshot.corrupt does not match its position";
  return undefined;
}
