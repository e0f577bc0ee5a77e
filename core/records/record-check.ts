// Exact-shape checks for the records written and read most (messages, read marks, deliveries, notices,
// reminders, resolutions, receipts, session registrations): plain comparisons that accept only what the zod
// schemas in schemas.ts surely accept, in the exact form peerpost writes. Anything else (another timestamp form, an unknown field, a
// bad value) is left to zod, which decides and explains. A send folds every other writer's new lines,
// so this is the cost that grows with traffic; tests/core-record-check compares both on mutated records.
import { ADDRESS_PATTERN, ID_PATTERN, NAME_PATTERN } from "../common/address.js";
import { MACHINE_PATTERN } from "../sessions/machine.js";
import { ANTICIPATIONS, DELIVERIES, MAX_BODY_BYTES, ORIGIN_SOURCES, RECEIPT_KINDS, RELEASE_WHYS, RESOLUTIONS, SESSION_HOSTS, SESSION_SOURCES, ULID_PATTERN } from "./record-values.js";

type Check = (value: unknown) => boolean;

/** The form Date#toISOString writes for years 0000 to 9999; `existingTime` rules out dates that do not exist. */
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number written at `start` (digits only, as ISO_MS checked). */
function digitsAt(text: string, start: number, length: number): number {
  let value = 0;
  for (let index = start; index < start + length; index++) value = value * 10 + text.charCodeAt(index) - 48;
  return value;
}

/**
 * Whether an ISO_MS text names a time that exists: what a round trip through Date keeps unchanged (the
 * proleptic Gregorian calendar, hours 00 to 23), without building two Dates for every line a fold reads.
 */
function existingTime(text: string): boolean {
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  return days !== undefined && day >= 1 && day <= days && digitsAt(text, 11, 2) < 24 && digitsAt(text, 14, 2) < 60 && digitsAt(text, 17, 2) < 60;
}

const literal = (expected: unknown): Check => (value) => value === expected;
const boolean: Check = (value) => typeof value === "boolean";
const isoTime: Check = (value) => typeof value === "string" && ISO_MS.test(value) && existingTime(value);
const text = (max: number): Check => (value) => typeof value === "string" && value.length <= max;
// Three UTF-8 bytes at most per UTF-16 unit: short texts skip the byte count.
const body: Check = (value) => typeof value === "string" && (value.length * 3 <= MAX_BODY_BYTES || Buffer.byteLength(value, "utf8") <= MAX_BODY_BYTES);
const oneOf = (values: readonly string[]): Check => (value) => typeof value === "string" && values.includes(value);
const counting: Check = (value) => Number.isSafeInteger(value) && (value as number) >= 1;
const integer: Check = (value) => Number.isSafeInteger(value);
const nonNegative: Check = (value) => Number.isSafeInteger(value) && (value as number) >= 0;
const matching = (pattern: RegExp): Check => (value) => typeof value === "string" && pattern.test(value);
const ulid = matching(ULID_PATTERN);
/** A list of 1 to 100 items (claimed paths). */
const someOf = (item: Check): Check => (value) => Array.isArray(value) && value.length >= 1 && value.length <= 100 && listOf(item)(value);
const address = matching(ADDRESS_PATTERN);
const listOf = (item: Check): Check => (value) => {
  if (!Array.isArray(value)) return false;
  // Indexed, not every(): a hole in an array is a missing item, not a skipped one.
  for (let index = 0; index < value.length; index++) if (!item(value[index])) return false;
  return true;
};

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

/** A standing claim as the claims snapshot stores it (core/claims/snapshot.ts): [holder, path, shared, since, until, claimId, reason?]. */
const claimPath = text(1024);
const claimReason = text(2000);
/**
 * Times in the form only: the fold copied them from records that passed isoTime, and a hook checks a thousand
 * rows (the calendar check was a third of that). A date that does not exist only shifts that claim's own times.
 */
const claimTime = matching(ISO_MS);
export const acceptsClaimRow: Check = (row) =>
  Array.isArray(row) && (row.length === 6 || (row.length === 7 && claimReason(row[6]))) && address(row[0]) && claimPath(row[1]) && boolean(row[2]) && claimTime(row[3]) && claimTime(row[4]) && ulid(row[5]);

export const acceptsMailboxEvent: Check = byType({
  msg: shape(
    { ...event("msg"), from: address, fromVerified: boolean, to: address, sentAt: isoTime, anticipation: oneOf(ANTICIPATIONS), conversationId: ulid, hop: counting, body },
    { via: address, replyBy: isoTime, inReplyTo: ulid, idempotencyKey: text(200) },
  ),
  read: shape({ ...event("read"), by: address, at: isoTime }),
  delivered: shape({ ...event("delivered"), via: text(64), at: isoTime }),
  undelivered: shape({ ...event("undelivered"), via: text(64), at: isoTime }),
  noticed: shape({ ...event("noticed"), via: text(64), at: isoTime }),
  reminder: shape({ ...event("reminder"), n: counting, via: text(64), at: isoTime }),
  resolved: shape({ ...event("resolved"), resolution: oneOf(RESOLUTIONS), by: address, at: isoTime }, { replyId: ulid, reason: body }),
  // An edit hook folds every claim event: without these it would load zod for them.
  claim: shape({ ...event("claim"), holder: address, repo: text(4096), paths: someOf(text(1024)), shared: boolean, at: isoTime, until: isoTime }, { reason: text(2000) }),
  release: shape({ ...event("release"), holder: address, repo: text(4096), paths: someOf(text(1024)), why: oneOf(RELEASE_WHYS), by: address, at: isoTime }),
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
    { via: text(64), tags: listOf(text(64)) },
  ),
});

export const acceptsSession: Check = byType({
  session: shape(
    { v: literal(1), type: literal("session"), at: isoTime, host: oneOf(SESSION_HOSTS), address, sessionId: matching(ID_PATTERN), writerPid: counting, source: oneOf(SESSION_SOURCES) },
    {
      hostPid: counting,
      hostStart: nonNegative,
      cwd: text(4096),
      title: text(200),
      name: matching(NAME_PATTERN),
      roles: listOf(matching(ID_PATTERN)),
      push: text(32),
      claimFrom: counting,
      machine: matching(MACHINE_PATTERN),
    },
  ),
});
