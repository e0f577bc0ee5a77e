// Role mail and compaction: mail sent to a role stays in the live log however old, so it reads after a
// compaction as before it. Every fold applies the live log's role events to the mail before them (a fold
// of the archive first would hand a moved request over by handovers older than it), and the first role
// message each holder gets carries the role's procedure (the next one would carry it again).
import { test } from "node:test";
import assert from "node:assert/strict";
import { handWrittenLog } from "./helpers/hand-written-log.js";
import { tempPeerpost } from "./helpers/temp.js";

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
