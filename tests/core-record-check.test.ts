// The fast record checks (core/records/record-check.ts) against zod alone: whatever the fast path accepts, zod
// accepts too, on records as peerpost writes them and on tens of thousands of seeded mutations of them;
// and the records peerpost writes every day are accepted without zod.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mailboxEvent, receiptSchema, sessionSchema } from "../core/records/schemas.js";
import { acceptsMailboxEvent, acceptsReceipt, acceptsSession } from "../core/records/record-check.js";
import { JsonlLog } from "../core/log/log.js";
import { tempDir } from "./helpers/temp.js";
import { join } from "node:path";
import { appendFileSync } from "node:fs";

const ID = "01KBNZ5YQ8AXDHQ8T0Q5K3M2N1";
const AT = "2026-12-03T18:00:00.123Z";

const MAILBOX_EVENTS: Record<string, unknown>[] = [
  { v: 1, type: "msg", id: ID, from: "claude:a-1", fromVerified: true, to: "codex:b.2", sentAt: AT, anticipation: "fyi", conversationId: ID, hop: 1, body: "hello" },
  { v: 1, type: "msg", id: ID, from: "user:ann", fromVerified: false, to: "grok:x_y", via: "role:reviewer", sentAt: AT, anticipation: "reply", replyBy: "2026-12-04T00:00:00.000Z", inReplyTo: ID, conversationId: ID, hop: 3, body: "é😀\u0000", idempotencyKey: "k-1" },
  { v: 1, type: "read", id: ID, by: "codex:b", at: AT },
  { v: 1, type: "delivered", id: ID, via: "claude-channel", at: AT },
  { v: 1, type: "undelivered", id: ID, via: "claude-channel", at: AT },
  { v: 1, type: "noticed", id: ID, via: "claude-stop", at: AT },
  { v: 1, type: "reminder", id: ID, n: 2, via: "claude-stop", at: AT },
  { v: 1, type: "resolved", id: ID, resolution: "reply", replyId: ID, by: "codex:b", at: AT },
  { v: 1, type: "resolved", id: ID, resolution: "decline", reason: "not mine", by: "codex:b", at: AT },
];

const RECEIPTS: Record<string, unknown>[] = [
  { v: 1, type: "receipt", id: ID, kind: "send", at: AT, host: "claude-code", from: "claude:a", to: "codex:b", messageId: ID, delivery: "queued", warnings: [], origin: { source: "host", pid: 42 } },
  { v: 1, type: "receipt", id: ID, kind: "push", at: AT, host: "codex", from: "claude:a", to: "codex:b", messageId: ID, delivery: "delivered", via: "codex-turn", warnings: ["w"], origin: { source: "explicit", detail: "--from", pid: 1, cwd: "/tmp/x" } },
];

const SESSIONS: Record<string, unknown>[] = [
  { v: 1, type: "session", at: AT, host: "claude-code", address: "claude:s-1", sessionId: "s-1", writerPid: 10, source: "startup", machine: "box.1a2b3c4d" },
  { v: 1, type: "session", at: AT, host: "codex", address: "codex:t", sessionId: "t", hostPid: 9, hostStart: 0, writerPid: 11, cwd: "/w", title: "t", source: "server", name: "my task", roles: ["reviewer"], push: "codex-turn", claimFrom: 3 },
];

/** Values that break one rule or another (or none), tried in every field. */
const ODD_VALUES: unknown[] = [
  undefined, null, true, false, 0, 1, -1, 1.5, 2 ** 53, "", "x", " claude:a", "claude:a ", "claude:", "role:reviewer", "CLAUDE:a", "claude:a/b", "claude:a\n",
  ID, ID.toLowerCase(), ID.slice(1), `${ID}0`, "01KBNZ5YQ8AXDHQ8T0Q5K3M2NI", "01KBNZ5YQ8AXDHQ8T0Q5K3M2NU",
  AT, "2026-12-03T18:00:00Z", "2026-12-03T18:00:00.1234Z", "2026-02-29T00:00:00.000Z", "2028-02-29T00:00:00.000Z", "2026-02-30T00:00:00.000Z",
  "2026-13-01T00:00:00.000Z", "2026-12-03T24:00:00.000Z", "2026-12-03T18:60:00.000Z", "2026-12-03T18:00:00.000+01:00", "+012026-12-03T18:00:00.000Z",
  "reply", "action", "fyi", "done", "decline", "send", "queued", "host", "x".repeat(32), "x".repeat(33), "x".repeat(64), "x".repeat(65), "x".repeat(200), "x".repeat(201),
  "my task", "my/task", "reviewer", "startup", "codex", "box.1a2b3c4d", "box 1", [undefined], ["reviewer", "bad role"], "é".repeat(32768), "é".repeat(32769), "😀".repeat(16384), "😀".repeat(16385), [], ["x"], [1], {}, { source: "host", pid: 1 }, { source: "host", pid: 1, extra: 1 },
];

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Each base record with one or more fields replaced by odd values, removed, or joined by an unknown one. */
function* mutations(bases: Record<string, unknown>[], count: number, random: () => number): Generator<unknown> {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  for (const base of bases) yield base;
  for (let i = 0; i < count; i++) {
    const record: Record<string, unknown> = structuredClone(pick(bases));
    const keys = [...Object.keys(record), "extra", "__proto__", "constructor"];
    for (let changes = 1 + Math.floor(random() * 3); changes > 0; changes--) {
      const key = pick(keys);
      const roll = random();
      if (roll < 0.15) delete record[key];
      else if (key === "__proto__") Object.defineProperty(record, key, { value: pick(ODD_VALUES), enumerable: true, configurable: true, writable: true });
      else record[key] = pick(ODD_VALUES);
    }
    yield random() < 0.5 ? record : JSON.parse(JSON.stringify(record));
  }
}

function assertSubset(name: string, accepts: (value: unknown) => boolean, zodOnly: { safeParse(value: unknown): { success: boolean } }, bases: Record<string, unknown>[]): void {
  let accepted = 0;
  let total = 0;
  for (const value of mutations(bases, 30_000, seeded(7))) {
    total++;
    if (!accepts(value)) continue;
    accepted++;
    assert.equal(zodOnly.safeParse(value).success, true, `${name}: the fast check accepted what zod refuses: ${JSON.stringify(value)?.slice(0, 300)}`);
  }
  // Both outcomes occur: the mutations do reach the accepting branch, not only the refusals.
  assert.ok(accepted > bases.length && accepted < total, `${name}: ${accepted} of ${total} accepted`);
}

test("every mailbox event the fast check accepts, zod accepts too", () => {
  for (const base of MAILBOX_EVENTS) assert.equal(acceptsMailboxEvent(base), true, `not accepted fast: ${JSON.stringify(base)}`);
  assertSubset("mailbox", acceptsMailboxEvent, mailboxEvent.zodOnly, MAILBOX_EVENTS);
});

test("every receipt the fast check accepts, zod accepts too", () => {
  for (const base of RECEIPTS) assert.equal(acceptsReceipt(base), true, `not accepted fast: ${JSON.stringify(base)}`);
  assertSubset("receipt", acceptsReceipt, receiptSchema.zodOnly, RECEIPTS);
});

test("every session record the fast check accepts, zod accepts too", () => {
  for (const base of SESSIONS) assert.equal(acceptsSession(base), true, `not accepted fast: ${JSON.stringify(base)}`);
  assertSubset("session", acceptsSession, sessionSchema.zodOnly, SESSIONS);
  assert.equal(acceptsSession({ ...SESSIONS[1], roles: [, "reviewer"] }), false, "a hole in a list is a missing item");
});

test("the fast check keeps exactly the times a round trip through Date keeps (leap years, month ends, 24:00, 60 s)", () => {
  const pad = (value: number, width: number) => String(value).padStart(width, "0");
  const disagree: string[] = [];
  for (const year of [0, 4, 100, 400, 1900, 2000, 2024, 2026, 2100, 9999])
    for (let month = 0; month <= 13; month++)
      for (let day = 0; day <= 32; day++)
        for (const [hour, minute, second] of [[0, 0, 0], [23, 59, 59], [24, 0, 0], [12, 60, 0], [12, 0, 60], [99, 99, 99]] as const) {
          const sentAt = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}.${pad(day * 31, 3)}Z`;
          const time = Date.parse(sentAt);
          const roundTrip = Number.isFinite(time) && new Date(time).toISOString() === sentAt;
          if (acceptsMailboxEvent({ ...MAILBOX_EVENTS[0], sentAt }) !== roundTrip) disagree.push(sentAt);
        }
  assert.deepEqual(disagree, []);
  assert.equal(acceptsMailboxEvent({ ...MAILBOX_EVENTS[0], sentAt: "2024-02-29T00:00:00.000Z" }), true);
  assert.equal(acceptsMailboxEvent({ ...MAILBOX_EVENTS[0], sentAt: "2100-02-29T00:00:00.000Z" }), false);
});

test("what the fast check leaves to zod is still read when valid and reported when not", async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, "mailbox.jsonl");
  const secondsOnly = { ...MAILBOX_EVENTS[0], sentAt: "2026-12-03T18:00:00Z" };
  const badDate = { ...MAILBOX_EVENTS[0], sentAt: "2026-02-30T00:00:00.000Z" };
  const extraField = { ...MAILBOX_EVENTS[2], extra: 1 };
  assert.equal(acceptsMailboxEvent(secondsOnly), false);
  appendFileSync(path, [MAILBOX_EVENTS[0], secondsOnly, badDate, extraField].map((record) => JSON.stringify(record) + "\n").join(""));
  const log = new JsonlLog(path, mailboxEvent, { lockStaleMs: 5000, lockTimeoutMs: 1000 });
  const read: unknown[] = [];
  const result = log.scan(0, (entry) => read.push(entry.record));
  assert.deepEqual(read, [MAILBOX_EVENTS[0], secondsOnly]);
  assert.deepEqual(result.corrupt.map((line) => line.reason), ["not a valid record at sentAt: Invalid input", "not a valid record: Invalid input"]);
});
