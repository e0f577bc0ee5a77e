// Exact-shape checks for the records written and read most (messages, read marks, deliveries,
// resolutions, receipts): plain comparisons that accept only what the zod schemas in schemas.ts surely
// accept, in the exact form peerpost writes. Anything else (another timestamp form, an unknown field, a
// bad value) is left to zod, which decides and explains. A send folds every other writer's new lines,
// so this is the cost that grows with traffic; tests/core-record-check compares both on mutated records.
import { ADDRESS_PATTERN } from "./address.js";
import { ANTICIPATIONS, DELIVERIES, MAX_BODY_BYTES, ORIGIN_SOURCES, RECEIPT_KINDS, RESOLUTIONS, ULID_PATTERN } from "./record-values.js";

type Check = (value: unknown) => boolean;

/** The form Date#toISOString writes; the round trip below rules out dates that do not exist. */
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const literal = (expected: unknown): Check => (value) => value === expected;
const ulid: Check = (value) => typeof value === "string" && ULID_PATTERN.test(value);
const address: Check = (value) => typeof value === "string" && ADDRESS_PATTERN.test(value);
const boolean: Check = (value) => typeof value === "boolean";
const isoTime: Check = (value) => {
  if (typeof value !== "string" || !ISO_MS.test(value)) return false;
  const time = Date.parse(value);
  return Number.isFinite(time) && new Date(time).toISOString() === value;
};
const text = (max: number): Check => (value) => typeof value === "string" && value.length <= max;
// Three UTF-8 bytes at most per UTF-16 unit: short texts skip the byte count.
const body: Check = (value) => typeof value === "string" && (value.length * 3 <= MAX_BODY_BYTES || Buffer.byteLength(value, "utf8") <= MAX_BODY_BYTES);
const oneOf = (values: readonly string[]): Check => (value) => typeof value === "string" && values.includes(value);
const counting: Check = (value) => Number.isSafeInteger(value) && (value as number) >= 1;
const integer: Check = (value) => Number.isSafeInteger(value);
const listOf = (item: Check): Check => (value) => Array.isArray(value) && value.every(item);

/** A plain object with every required field, no field outside the two lists, and each field passing its check. */
function shape(required: Record<string, Check>, optional: Record<string, Check> = {}): Check {
  const checks = new Map([...Object.entries(required), ...Object.entries(optional)]);
  const requiredCount = Object.keys(required).length;
  return (value) => {
    if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
    let present = 0;
    for (const key of Object.keys(value)) {
      const check = checks.get(key);
      if (!check || !check((value as Record<string, unknown>)[key])) return false;
      if (Object.hasOwn(required, key)) present++;
    }
    return present === requiredCount;
  };
}

/** A check for records told apart by `type`; a type without a check here is always left to zod. */
function byType(types: Record<string, Check>): Check {
  const checks = new Map(Object.entries(types));
  return (value) => {
    const type = (value as { type?: unknown } | null)?.type;
    const check = typeof type === "string" ? checks.get(type) : undefined;
    return check !== undefined && check(value);
  };
}

const event = (type: string) => ({ v: literal(1), type: literal(type), id: ulid });

export const acceptsMailboxEvent: Check = byType({
  msg: shape(
    { ...event("msg"), from: address, fromVerified: boolean, to: address, sentAt: isoTime, anticipation: oneOf(ANTICIPATIONS), conversationId: ulid, hop: counting, body },
    { via: address, replyBy: isoTime, inReplyTo: ulid, idempotencyKey: text(200) },
  ),
  read: shape({ ...event("read"), by: address, at: isoTime }),
  delivered: shape({ ...event("delivered"), via: text(64), at: isoTime }),
  resolved: shape({ ...event("resolved"), resolution: oneOf(RESOLUTIONS), by: address, at: isoTime }, { replyId: ulid, reason: body }),
});

export const acceptsReceipt: Check = byType({
  receipt: shape(
    {
      ...event("receipt"),
      kind: oneOf(RECEIPT_KINDS),
      at: isoTime,
      host: text(32),
      from: address,
      to: address,
      messageId: ulid,
      delivery: oneOf(DELIVERIES),
      warnings: listOf(text(2000)),
      origin: shape({ source: oneOf(ORIGIN_SOURCES), pid: integer }, { detail: text(200), cwd: text(4096) }),
    },
    { via: text(64) },
  ),
});
