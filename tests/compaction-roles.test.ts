// Role mail and compaction: role mail moves only once no role event can change it, so it reads after a
// compaction as before it. Every fold applies the live log's role events to the mail before them (a fold
// of the archive first would hand a moved request over by handovers older than it, and not count a
// resolution by the holder it was handed to), and the first role message each holder gets carries the
// role's procedure (moved, the next one would carry it again).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { handWrittenLog } from "./helpers/hand-written-log.js";
import { tempPeerpost } from "./helpers/temp.js";
import type { MessageState } from "../core/mail/fold.js";

const DAY = 86_400_000;

test("an old, expired role request reads as before a compaction: no handovers by role events older than it, its delivery and read kept", async (t) => {
  const { clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  reopen().mailbox.view("claude:a");
  const log = handWrittenLog(stateDir);
  const old = clock.now - 60 * DAY;
  // The role went to alice, then to bob; a request came through it to bob, who read it and let it expire.
  log.event("role", "01KDRZZZZZZZZZZZZZZZZZZZZ1", old, { role: "reviewer", holder: "codex:alice", by: "claude:a" });
  log.event("role", "01KDRZZZZZZZZZZZZZZZZZZZZ2", old + 1000, { role: "reviewer", holder: "codex:bob", by: "claude:a" });
  const id = log.msg(old + 3000, { to: "codex:bob", replyBy: old + DAY });
  log.lines[log.lines.length - 1] = log.lines.at(-1)!.replace('"to":"codex:bob"', '"to":"codex:bob","via":"role:reviewer"');
  log.event("delivered", id, old + 4000, { via: "channel" });
  log.event("read", id, old + 5000, { by: "codex:bob" });
  // Plain mail as old, done with: it moves, so the compaction did run.
  const plain = log.msg(old + 6000, { anticipation: "fyi" });
  log.event("read", plain, old + 7000, { by: "codex:b" });
  log.write();
  const look = () => {
    const found = reopen().mailbox.find(id)!;
    return { to: found.to, delivered: found.delivered ?? null, read: found.read ?? null, handovers: found.handovers ?? [] };
  };
  const before = look();
  assert.deepEqual(before.handovers, []);
  assert.notEqual(before.read, null);
  assert.equal((await reopen().mailbox.compact()).movedMessages, 1, "the plain message moved, the role request stayed");
  assert.deepEqual(look(), before);
});

test("an open role message gains no procedure when the old role message that carried it is compacted, and that one keeps it", async (t) => {
  const { clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  reopen().mailbox.view("claude:a");
  const log = handWrittenLog(stateDir);
  const old = clock.now - 60 * DAY;
  const version = "a".repeat(64);
  log.event("role", "01JZZZZZZZZZZZZZZZZZZZZZZZ", old, { role: "reviewer", holder: "codex:b", by: "claude:a", procedure: { version, text: "Review every change twice.", source: "roles/reviewer.md" } });
  const viaRole = () => (log.lines[log.lines.length - 1] = log.lines.at(-1)!.replace('"to":"codex:b"', '"to":"codex:b","via":"role:reviewer"'));
  // The holder's first role message carries the procedure; it was resolved long ago.
  const first = log.msg(old + 1000);
  viaRole();
  log.event("resolved", first, old + 2000, { resolution: "done", by: "codex:b" });
  // A second one, recent and open: the holder has seen this version, so it carries none.
  const second = log.msg(clock.now - DAY);
  viaRole();
  log.write();
  const look = () => {
    const mailbox = reopen().mailbox;
    return { second: mailbox.view("codex:b").state.messages[second]?.procedure?.version ?? null, first: mailbox.find(first)?.procedure?.version ?? null };
  };
  const before = look();
  assert.deepEqual(before, { second: null, first: version });
  assert.equal((await reopen().mailbox.compact()).movedMessages, 0, "role mail stays");
  assert.deepEqual(look(), before);
});

test("resolved role mail never handed over moves and reads the same; handed over, or sent as the role moved, it stays", async (t) => {
  const { clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  reopen().mailbox.view("claude:a");
  const log = handWrittenLog(stateDir);
  const old = clock.now - 60 * DAY;
  const viaRole = (to: string) => (log.lines[log.lines.length - 1] = log.lines.at(-1)!.replace(`"to":"${to}"`, `"to":"${to}","via":"role:reviewer"`));
  log.event("role", "01KDRZZZZZZZZZZZZZZZZZZZZ1", old, { role: "reviewer", holder: "codex:bob", by: "claude:a" });
  // Settled: sent to the holder, read and resolved by it.
  const settled = log.msg(old + 1000, { to: "codex:bob" });
  viaRole("codex:bob");
  log.event("read", settled, old + 2000, { by: "codex:bob" });
  log.event("resolved", settled, old + 3000, { resolution: "done", by: "codex:bob" });
  // Sent as the role moved: its line names a former holder, the fold gives it to the holder.
  const stale = log.msg(old + 4000, { to: "codex:alice" });
  viaRole("codex:alice");
  log.event("resolved", stale, old + 5000, { resolution: "done", by: "codex:bob" });
  // Handed over to carol, who resolved it.
  const handed = log.msg(old + 6000, { to: "codex:bob" });
  viaRole("codex:bob");
  log.event("role", "01KDRZZZZZZZZZZZZZZZZZZZZ2", old + 7000, { role: "reviewer", holder: "codex:carol", by: "claude:a" });
  log.event("resolved", handed, old + 8000, { resolution: "done", by: "codex:carol" });
  log.write();
  // Where a line is (its offset) changes with a compaction; what it says must not.
  const withoutOffset = (message: MessageState | undefined) => message && { ...message, offset: undefined };
  const look = () => {
    const mailbox = reopen().mailbox;
    const open = (address: string) => mailbox.inbox(address).map((entry) => entry.message.id);
    return { found: [settled, stale, handed].map((id) => withoutOffset(mailbox.find(id))), thread: mailbox.thread(handed).map(withoutOffset), bob: open("codex:bob"), carol: open("codex:carol") };
  };
  const before = look();
  assert.deepEqual(before.found.map((message) => [message?.to, message?.resolved?.by]), [["codex:bob", "codex:bob"], ["codex:bob", "codex:bob"], ["codex:carol", "codex:carol"]]);
  assert.equal((await reopen().mailbox.compact()).movedMessages, 1, "only the settled one moved");
  const archive = readFileSync(join(stateDir, "mailbox.archive.jsonl"), "utf8");
  assert.ok(archive.includes(settled) && !archive.includes(stale) && !archive.includes(handed));
  const after = look();
  assert.deepEqual(after, before);
});
