// A message and its conversation looked up through the lines the index files under them (message-lines.ts)
// must read exactly as the fold of the sender's whole history does: repeats of an idempotency key, losing
// resolutions and the replies they carried, replies to those, role mail, late events in the live log
// about archived mail, before and after compaction, and with lines past the index's end.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { monotonicFactory } from "ulid";
import { tempPeerpost } from "./helpers/temp.js";
import { conversationOf, findMessage } from "../core/mail/lookup.js";
import type { MailboxLookups } from "../core/store/mailbox-lookups.js";
import type { Mailbox } from "../core/mail/mailbox.js";

const DAY = 86_400_000;

function lookupsOf(mailbox: Mailbox): MailboxLookups {
  return (mailbox as unknown as { lookups: MailboxLookups }).lookups;
}

/** The same lookups with the lines about a message out of reach: every answer comes from whole addresses' folds. */
function foldingWhole(lookups: MailboxLookups): MailboxLookups {
  return Object.create(lookups, { messageLines: { value: () => undefined } }) as MailboxLookups;
}

/** Lines written straight into the live log, ids in time order. */
function mailLines(stateDir: string, start: number) {
  const newId = monotonicFactory();
  let at = start;
  const iso = () => new Date((at += 1000)).toISOString();
  const append = (record: object) => appendFileSync(join(stateDir, "mailbox.jsonl"), `${JSON.stringify({ v: 1, ...record })}\n`, { mode: 0o600 });
  return {
    msg(from: string, to: string, fields: { anticipation?: string; inReplyTo?: string; conversationId?: string; idempotencyKey?: string; via?: string } = {}): string {
      const id = newId(at + 1000);
      const { conversationId, ...rest } = fields;
      append({ type: "msg", id, from, fromVerified: true, to, sentAt: iso(), anticipation: "reply", hop: 1, conversationId: conversationId ?? fields.inReplyTo ?? id, body: `body of ${id}`, ...rest });
      return id;
    },
    resolved(id: string, by: string, fields: { replyId?: string; resolution?: string } = {}): void {
      append({ type: "resolved", id, resolution: fields.replyId ? "reply" : "done", by, at: iso(), ...fields });
    },
    event(type: string, id: string, fields: Record<string, unknown>): void {
      append({ type, id, ...fields, at: iso() });
    },
    role(role: string, holder: string): void {
      append({ type: "role", id: newId(at + 1000), role, holder, by: "user:me", at: iso() });
    },
  };
}

/** Every message id and conversation id in the store's files. */
function idsIn(stateDir: string): { ids: string[]; conversations: string[] } {
  const ids = new Set<string>();
  const conversations = new Set<string>();
  for (const name of ["mailbox.archive.jsonl", "mailbox.jsonl"]) {
    let text = "";
    try {
      text = readFileSync(join(stateDir, name), "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").filter(Boolean)) {
      const record = JSON.parse(line) as { type: string; id: string; conversationId?: string };
      if (record.type !== "msg") continue;
      ids.add(record.id);
      conversations.add(record.conversationId!);
    }
  }
  return { ids: [...ids], conversations: [...conversations] };
}

/** Every message and conversation reads the same through its lines as through whole folds; returns how many were decided from lines alone. */
function assertSameAnswers(mailbox: Mailbox, stateDir: string, when: string): number {
  const lookups = lookupsOf(mailbox);
  const whole = foldingWhole(lookups);
  const { ids, conversations } = idsIn(stateDir);
  let decided = 0;
  for (const id of ids) {
    const sender = lookups.senderOf(id);
    if (typeof sender === "string" && lookups.messageLines()?.messageSeenBy(id, sender)) decided++;
    assert.deepEqual(findMessage(lookups, () => undefined, id), findMessage(whole, () => undefined, id), `${when}: message ${id}`);
  }
  for (const conversation of conversations) {
    const fast = conversationOf(lookups, (id) => findMessage(lookups, () => undefined, id), conversation);
    const slow = conversationOf(whole, (id) => findMessage(whole, () => undefined, id), conversation);
    assert.deepEqual(fast, slow, `${when}: conversation ${conversation}`);
  }
  return decided;
}

test("a message and its conversation read through their own lines exactly as through the sender's whole fold, archived or live", async (t) => {
  const { clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const mail = mailLines(stateDir, clock.now - 60 * DAY);
  // A request answered twice: the second resolution lost in log order, and the reply it carried with it.
  const asked = mail.msg("claude:a", "codex:b");
  const answer = mail.msg("codex:b", "claude:a", { anticipation: "fyi", inReplyTo: asked });
  mail.resolved(asked, "codex:b", { replyId: answer });
  const lost = mail.msg("codex:b", "claude:a", { anticipation: "fyi", inReplyTo: asked });
  mail.resolved(asked, "codex:b", { replyId: lost });
  // A reply to the dropped reply, and its own answer.
  const onLost = mail.msg("claude:a", "codex:b", { inReplyTo: lost, conversationId: asked });
  mail.resolved(onLost, "codex:b");
  // One key sent twice by claude:a: the repeat goes to another recipient, in the same conversation, which a third address joins.
  const first = mail.msg("claude:a", "codex:b", { anticipation: "fyi", idempotencyKey: "k1" });
  const repeat = mail.msg("claude:a", "codex:c", { anticipation: "fyi", idempotencyKey: "k1", conversationId: asked });
  const joined = mail.msg("codex:c", "claude:a", { anticipation: "fyi", conversationId: asked });
  // The same key from another sender is another message.
  const otherSender = mail.msg("codex:b", "claude:a", { anticipation: "fyi", idempotencyKey: "k1" });
  // Done with, so that compaction moves them (a message moves once resolved).
  for (const [id, by] of [[answer, "claude:a"], [lost, "claude:a"], [first, "codex:b"], [repeat, "codex:c"], [joined, "claude:a"], [otherSender, "claude:a"]] as const) mail.resolved(id, by);
  // Reads, deliveries, reminders and a resolution by someone who is not the recipient.
  const busy = mail.msg("claude:a", "codex:b");
  mail.event("delivered", busy, { via: "hook" });
  mail.event("read", busy, { by: "codex:c" });
  mail.event("read", busy, { by: "codex:b" });
  mail.event("reminder", busy, { n: 1, via: "hook" });
  mail.resolved(busy, "codex:c");
  mail.resolved(busy, "codex:b", { resolution: "decline" });
  // Role mail, moved by the role's events.
  mail.role("reviewer", "codex:b");
  const viaRole = mail.msg("claude:a", "codex:b", { via: "role:reviewer" });
  mail.role("reviewer", "codex:c");
  mail.resolved(viaRole, "codex:c");
  // Still open, so it stays live when the rest moves.
  const open = mail.msg("claude:a", "codex:b");
  clock.now += DAY;

  // Before any index: lookups scan; then live, indexed.
  assertSameAnswers(reopen().mailbox, stateDir, "live, unindexed");
  const live = reopen().mailbox;
  lookupsOf(live).indexAll();
  assert.equal(assertSameAnswers(live, stateDir, "live, indexed"), 10, "every message but the role mail is decided from its own lines");

  // Role mail stays in the live log (compaction.ts).
  assert.ok((await reopen().mailbox.compact()).movedMessages >= 7);
  const archived = reopen().mailbox;
  assert.equal(assertSameAnswers(archived, stateDir, "archived"), 10);
  assert.equal(findMessage(lookupsOf(archived), () => undefined, lost), undefined, "the reply of the losing resolution is no mail");
  assert.equal(findMessage(lookupsOf(archived), () => undefined, repeat), undefined, "the repeat of a key is no mail");
  assert.equal(findMessage(lookupsOf(archived), () => undefined, first)?.idempotencyKey, "k1");

  // Late events in the live log about archived mail, some past the index's end, some indexed.
  mail.resolved(asked, "codex:b", { resolution: "done" });
  mail.event("reminder", busy, { n: 2, via: "hook" });
  mail.event("read", open, { by: "codex:b" });
  assertSameAnswers(reopen().mailbox, stateDir, "late events past the index");
  const extended = reopen().mailbox;
  lookupsOf(extended).indexAll();
  assertSameAnswers(extended, stateDir, "late events indexed");
  assert.equal(findMessage(lookupsOf(extended), () => undefined, open)?.read?.by, "codex:b");
  assert.equal(findMessage(lookupsOf(extended), () => undefined, viaRole)?.to, "codex:c", "role mail follows its role");
});

/** Counts the archive lines `mailbox` reads by offset from now on (every indexed read of the archive goes through readLinesAt). */
function countArchiveReads(mailbox: Mailbox): { lines: number } {
  const count = { lines: 0 };
  const readLinesAt = mailbox.archive.readLinesAt.bind(mailbox.archive);
  mailbox.archive.readLinesAt = (offsets, visit) => {
    count.lines += offsets.length;
    readLinesAt(offsets, visit);
  };
  return count;
}

test("a status of an archived message reads its own lines from the archive, not its sender's history", async (t) => {
  const { clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const mail = mailLines(stateDir, clock.now - 60 * DAY);
  const sent: string[] = [];
  for (let i = 0; i < 500; i++) {
    const id = mail.msg("claude:a", `codex:b${i % 7}`);
    mail.event("read", id, { by: `codex:b${i % 7}` });
    mail.resolved(id, `codex:b${i % 7}`);
    sent.push(id);
  }
  assert.equal((await reopen().mailbox.compact()).movedMessages, 500);
  const { mailbox } = reopen();
  const archiveReads = countArchiveReads(mailbox);
  const message = mailbox.find(sent[250]!)!;
  assert.equal(message.resolved?.resolution, "done");
  assert.deepEqual(mailbox.thread(message.conversationId).map((other) => other.id), [message.id]);
  assert.equal(archiveReads.lines, 3, "its msg, read and resolved lines");
});

test("a send repeating an archived idempotency key reads the archive's sends with that key, not its sender's history", async (t) => {
  const { clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const mail = mailLines(stateDir, clock.now - 60 * DAY);
  for (let i = 0; i < 300; i++) mail.resolved(mail.msg("claude:a", `codex:b${i % 5}`), `codex:b${i % 5}`);
  const first = await reopen().mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b1", body: "nightly", anticipation: "fyi", idempotencyKey: "nightly-42" });
  await reopen().mailbox.markRead("codex:b1", [first.message.id]);
  clock.now += 40 * DAY;
  assert.equal((await reopen().mailbox.compact()).movedMessages, 301);
  const { mailbox } = reopen();
  const archiveReads = countArchiveReads(mailbox);
  const again = await mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b1", body: "nightly", anticipation: "fyi", idempotencyKey: "nightly-42" });
  assert.deepEqual([again.created, again.message.id], [false, first.message.id]);
  assert.ok(archiveReads.lines <= 4, `the archived send with the key, then its own lines for the answer, not the sender's 600 archived lines: read ${archiveReads.lines}`);
});
