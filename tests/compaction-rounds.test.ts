// A mailbox compaction in rounds: a round retires at most PEERPOST_COMPACT_ROUND_MESSAGES messages (its
// memory), and a larger log takes more rounds. Over random histories (replies, declines, losing
// resolutions and the replies they drop, repeated idempotency keys, read fyi mail, expired requests, late
// reads and reminders), compaction in rounds of 1, 2 and 5 messages leaves every read as it was, puts
// every line once in the archive or the live log, and moves about what a compaction at once moves. (Both
// move a subset of what the whole fold would allow: each keeps a message where it cannot tell.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tempPeerpost } from "./helpers/temp.js";
import { handWrittenLog } from "./helpers/hand-written-log.js";
import { seededRandom } from "./helpers/random.js";
import { openPeerpost, type Peerpost } from "../core/peerpost.js";

const DAY = 86_400_000;
const ADDRESSES = ["claude:a", "codex:b", "codex:c"];

interface Sent {
  id: string;
  from: string;
  to: string;
  fyi: boolean;
  resolved: boolean;
}

/** A random history of `steps` actions, most of them older than the 30-day retention, the last ones recent. */
function writeHistory(stateDir: string, now: number, steps: number, random: () => number): string[] {
  const log = handWrittenLog(stateDir);
  const sent: Sent[] = [];
  const keys: { from: string; to: string; key: string }[] = [];
  const pick = <T>(items: T[]): T | undefined => items[Math.floor(random() * items.length)];
  let at = now - 60 * DAY;
  const late: { step: number; line: () => void }[] = [];
  for (let step = 0; step < steps; step++) {
    for (const due of late.filter((line) => line.step <= step)) due.line();
    late.splice(0, late.length, ...late.filter((line) => line.step > step));
    at = step === Math.floor(steps * 0.75) ? now - 2 * DAY : at + Math.floor(random() * 3_600_000);
    const action = random();
    const open = sent.filter((message) => !message.fyi && !message.resolved);
    const resolved = sent.filter((message) => !message.fyi && message.resolved);
    if (action < 0.3 || sent.length < 3) {
      const [from, to] = [pick(ADDRESSES)!, pick(ADDRESSES)!];
      const fyi = random() < 0.3;
      const keyed = random() < 0.2 ? `job-${step}` : undefined;
      const replyBy = !fyi && random() < 0.15 ? at + DAY : undefined;
      const id = log.msg(at, { from, to, anticipation: fyi ? "fyi" : "reply", ...(keyed ? { idempotencyKey: keyed } : {}), ...(replyBy ? { replyBy } : {}) });
      if (keyed) keys.push({ from, to, key: keyed });
      sent.push({ id, from, to, fyi, resolved: false });
    } else if (action < 0.5 && open.length > 0) {
      // Answered with a reply, or declined or done.
      const request = pick(open)!;
      if (random() < 0.6) {
        const reply = log.msg(at, { from: request.to, to: request.from, anticipation: "fyi", inReplyTo: request.id });
        sent.push({ id: reply, from: request.to, to: request.from, fyi: true, resolved: false });
        log.event("resolved", request.id, at, { resolution: "reply", replyId: reply, by: request.to });
      } else log.event("resolved", request.id, at, { resolution: random() < 0.5 ? "decline" : "done", by: request.to });
      request.resolved = true;
    } else if (action < 0.6 && resolved.length > 0) {
      // A resolution that loses in log order: it names a new reply to the request (written now, the
      // resolution now or some steps later, when the reply may have been read or resolved), or any message.
      const request = pick(resolved)!;
      const named = random() < 0.6 ? log.msg(at, { from: request.to, to: request.from, anticipation: "fyi", inReplyTo: request.id }) : pick(sent)!.id;
      if (!sent.some((message) => message.id === named)) sent.push({ id: named, from: request.to, to: request.from, fyi: true, resolved: false });
      if (random() < 0.5) log.event("read", named, at, { by: request.from });
      late.push({ step: step + Math.floor(random() * 2) * Math.floor(random() * 10), line: () => log.event("resolved", request.id, at, { resolution: "reply", replyId: named, by: request.to }) });
    } else if (action < 0.7 && keys.length > 0) {
      // The same send again (one whose lock was taken over): no message.
      const { from, to, key } = pick(keys)!;
      log.msg(at, { from, to, anticipation: "fyi", idempotencyKey: key });
    } else if (action < 0.85) {
      const message = pick(sent)!;
      log.event("read", message.id, at, { by: message.to });
    } else if (action < 0.92) {
      log.event("reminder", pick(sent)!.id, at, { n: 1, via: "hook:user-prompt" });
    } else {
      // Any message resolved: a request again, a reply, a read fyi, an expired request; now and then by
      // someone who is not its recipient (the fold ignores that).
      const message = pick(sent)!;
      const byRecipient = random() < 0.8;
      log.event("resolved", message.id, at, { resolution: "done", by: byRecipient ? message.to : pick(ADDRESSES)! });
      message.resolved ||= byRecipient;
    }
  }
  for (const due of late) due.line();
  log.write();
  return log.lines.filter((line) => line.includes('"type":"msg"')).map((line) => (JSON.parse(line) as { id: string }).id);
}

/** What readers see: each id looked up, with its status, resolution and thread, and each inbox's waiting mail. */
function reads(peerpost: Peerpost, ids: string[]): unknown {
  const { mailbox } = peerpost;
  const byId = ids.map((id) => {
    const message = mailbox.find(id);
    return message ? { id, status: mailbox.status(message), resolved: message.resolved ?? null, read: message.read ?? null, thread: mailbox.thread(message.conversationId).map((m) => m.id) } : { id, found: false };
  });
  // What inboxes and hooks flag: mail still waiting on its recipient (finished mail may move out).
  const waiting = ADDRESSES.map((address) => mailbox.inbox(address).filter((entry) => !["replied", "declined", "done", "expired"].includes(entry.status)).map((entry) => entry.message.id));
  return { byId, waiting };
}

function linesOf(path: string): string[] {
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : [];
}

test("compaction in rounds of 1, 2 and 5 messages: every read stays as it was, every line is kept or archived once, and about as much moves as at once", async (t) => {
  const random = seededRandom(20261206);
  let atOnceMoved = 0;
  let roundsMoved = 0;
  for (let history = 0; history < 40; history++) {
    const round = [1, 2, 5][history % 3]!;
    const { clock, reopen, stateDir, home } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30", PEERPOST_COMPACT_ROUND_MESSAGES: String(round) });
    const ids = writeHistory(stateDir, clock.now, 30 + Math.floor(random() * 50), random);
    const before = reads(reopen(), ids);
    const original = linesOf(join(stateDir, "mailbox.jsonl"));
    const atOnce = join(home, "at-once");
    cpSync(stateDir, atOnce, { recursive: true });
    const whole = await openPeerpost({ env: { PEERPOST_HOME: atOnce, PEERPOST_RETENTION_DAYS: "30" }, home, now: () => clock.now }).mailbox.compact();
    const inRounds = await reopen().mailbox.compact();
    const where = `history ${history}, rounds of ${round}`;
    assert.deepEqual(reads(reopen(), ids), before, `${where}: reads after the compaction in rounds`);
    assert.deepEqual(reads(openPeerpost({ env: { PEERPOST_HOME: atOnce }, home, now: () => clock.now }), ids), before, `${where}: reads after the compaction at once`);
    // Every line once, in the archive or the live log.
    const after = [...linesOf(join(stateDir, "mailbox.archive.jsonl")), ...linesOf(join(stateDir, "mailbox.jsonl"))];
    assert.deepEqual(after.sort(), [...original].sort(), `${where}: the lines after the rounds`);
    // Another compaction may move what a round kept where it could not tell; the reads stay.
    await reopen().mailbox.compact();
    assert.deepEqual(reads(reopen(), ids), before, `${where}: reads after another compaction`);
    atOnceMoved += whole.movedLines;
    roundsMoved += inRounds.movedLines;
  }
  // The rounds keep a line only where a resolution meets a message past a round's horizon: rarely.
  assert.ok(atOnceMoved > 500, `the histories give compaction work: ${atOnceMoved} lines moved at once`);
  assert.ok(roundsMoved >= atOnceMoved * 0.9, `rounds moved ${roundsMoved} lines, at once ${atOnceMoved}`);
});

test("a losing resolution that meets a message sent past a round's horizon keeps the message it names, and the next round moves both", async (t) => {
  const { clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30", PEERPOST_COMPACT_ROUND_MESSAGES: "1" });
  const old = clock.now - 40 * DAY;
  const log = handWrittenLog(stateDir);
  // The round's one retired message; the next one done fills the table (the horizon).
  const first = log.msg(old);
  log.event("resolved", first, old, { resolution: "done", by: "codex:b" });
  const atHorizon = log.msg(old + 1);
  log.event("resolved", atHorizon, old + 1, { resolution: "done", by: "codex:b" });
  // A known request, and a reply to it sent past the horizon and done with (left the fold), which a losing resolution names.
  const laterReply = log.msg(old + 2, { from: "codex:b", to: "claude:a", anticipation: "fyi", inReplyTo: first });
  log.event("resolved", laterReply, old + 2, { resolution: "done", by: "claude:a" });
  log.event("resolved", first, old + 3, { resolution: "reply", replyId: laterReply, by: "codex:b" });
  // A request sent past the horizon and done with, and a reply to it the fold knows (read fyi), named by a losing resolution.
  const laterRequest = log.msg(old + 4);
  log.event("resolved", laterRequest, old + 4, { resolution: "done", by: "codex:b" });
  const knownReply = log.msg(old + 5, { from: "codex:b", to: "claude:a", anticipation: "fyi", inReplyTo: laterRequest });
  log.event("read", knownReply, old + 5, { by: "claude:a" });
  log.event("resolved", laterRequest, old + 6, { resolution: "reply", replyId: knownReply, by: "codex:b" });
  log.write();
  const ids = [first, atHorizon, laterReply, laterRequest, knownReply];
  const found = () => ids.map((id) => reopen().mailbox.find(id)?.id ?? null);
  assert.deepEqual(found(), [first, atHorizon, null, laterRequest, null], "the fold drops both named replies");
  const result = await reopen().mailbox.compact();
  assert.deepEqual(found(), [first, atHorizon, null, laterRequest, null], "and still does after the rounds");
  assert.equal(result.movedMessages, 3, "every request moves, each reply with its request");
  assert.deepEqual(linesOf(log.path), [], "nothing is left live");
});

test("a request that retired expired and is resolved later: only its recipient's resolution counts, and one since the cutoff keeps it live", async (t) => {
  const { clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const old = clock.now - 40 * DAY;
  const log = handWrittenLog(stateDir);
  // Expired at once (its reply-by long past): it retires on its msg line.
  const expired = log.msg(old, { replyBy: old + 1000 });
  log.event("resolved", expired, old + 2000, { resolution: "done", by: "codex:c" });
  const reply = log.msg(old + 3000, { from: "codex:b", to: "claude:a", anticipation: "fyi", inReplyTo: expired });
  log.event("resolved", expired, old + 3000, { resolution: "reply", replyId: reply, by: "codex:b" });
  const resolvedLately = log.msg(old, { replyBy: old + 1000 });
  log.event("resolved", resolvedLately, clock.now - DAY, { resolution: "done", by: "codex:b" });
  log.write();
  const waiting = () => reopen().mailbox.inbox("claude:a").filter((entry) => entry.status !== "done").map((entry) => entry.message.id);
  assert.deepEqual(waiting(), [reply], "the reply is mail: codex:c's resolution did not count, codex:b's did");
  assert.equal(reopen().mailbox.find(expired)?.resolved?.replyId, reply);
  await reopen().mailbox.compact();
  assert.deepEqual(waiting(), [reply], "and it still is");
  assert.equal(reopen().mailbox.find(expired)?.resolved?.replyId, reply);
  const live = linesOf(log.path).join("\n");
  assert.ok(!live.includes(`"id":"${expired}"`), "the expired request moved");
  assert.ok(live.includes(`"type":"msg","id":"${reply}"`), "its unread reply stayed");
  assert.ok(live.includes(`"type":"msg","id":"${resolvedLately}"`), "the request resolved since the cutoff stayed");
});
