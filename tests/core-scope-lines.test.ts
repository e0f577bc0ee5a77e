// A scoped view passes over other addresses' lines without parsing them (scope-lines.ts). Whatever the
// lines hold (escapes, bodies that quote addresses and ids, role mail, handovers, hand-written records
// spelled with whitespace or \u escapes), it must fold exactly what parsing every line folds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import { tempPeerpost } from "./helpers/temp.js";
import { MailboxView, keptBy } from "../core/mail/view.js";
import { applyEvent, emptyState, type MailboxState } from "../core/mail/fold.js";
import { changeRole } from "../core/roles/roles.js";
import { scopeLineTest } from "../core/mail/scope-lines.js";
import type { Peerpost } from "../core/peerpost.js";

const ADDRESSES = ["claude:a", "codex:b", "copilot:c", "grok:d"];
const SCOPES = [...ADDRESSES, "claude:ab", "claude:never-seen", "role:reviewer"];

/** Every line parsed and folded with the scope's filter: what a view has to equal. */
function reference(peerpost: Peerpost, scope: string): MailboxState {
  const state = emptyState();
  peerpost.mailbox.log.scan(0, (entry) => applyEvent(state, entry.record, entry.offset, (message) => keptBy(scope, message)));
  return state;
}

/** A hand-written line: a record spelled the way JSON allows but JSON.stringify never writes. */
function handWritten(peerpost: Peerpost, text: string): void {
  appendFileSync(peerpost.mailbox.log.path, text + "\n");
}

test("a scoped view that passes over others' lines folds exactly what parsing every line folds", async (t) => {
  const { peerpost, clock, reopen } = tempPeerpost(t);
  const { mailbox } = peerpost;
  for (const address of [...ADDRESSES, "claude:ab"]) await peerpost.sessions.register({ host: "claude-code", address, sessionId: address.split(":")[1]!, source: "startup", roles: [] });
  // Views kept across the traffic, refreshed at every step: a line about a message is judged by what the view holds then.
  const live = SCOPES.map((scope) => new MailboxView(mailbox.log, scope, undefined));
  const refreshAll = () => live.forEach((view) => view.refresh());
  const tricky = [
    'quotes "claude:a" and {"id":"X"} and "via":"role:reviewer"',
    "a backslash \\u0063laude:a and \\/ and a newline\nand a tab\t",
    '"msg" "via" "role" "id" : "01ARZ3NDEKTSV4RRFFQ69G5FAV"',
  ];
  for (let i = 0; i < 60; i++) {
    const from = ADDRESSES[i % 4]!;
    const to = ADDRESSES[(i * 3 + 1) % 4]!;
    if (from === to) continue;
    // A turn's length (PEERPOST_WAKE_TIMEOUT_MS) apart: sends seconds apart between the same two sessions,
    // each closing a request and asking back, are one conversation, which the loop guard ends.
    clock.now += 11 * 60_000;
    const body = i % 4 === 0 ? tricky[i % 3]! : `#${i} for ${to}`;
    const { message } = await mailbox.send({ from, fromVerified: true, to, body, anticipation: i % 3 === 0 ? "reply" : i % 3 === 1 ? "action" : "fyi" });
    if (i % 2 === 0) await mailbox.markDelivered(to, message.id, i % 6 === 0 ? "role:reviewer" : "test");
    if (i % 5 === 0) await mailbox.releaseDelivery(to, message.id, "test");
    if (i % 3 === 0 && i % 6 !== 0) await mailbox.resolve({ id: message.id, by: to, resolution: "reply", text: `re ${body}` });
    if (i % 3 === 1 && i % 2 === 0) await mailbox.resolve({ id: message.id, by: to, resolution: "done", text: `did "${from}"` });
    if (i % 4 === 1) await mailbox.markRead(to, [message.id]);
    if (i % 7 === 0) await mailbox.markNoticed(to, [message.id], "stop-hook");
    if (i === 20) await changeRole(peerpost, { role: "reviewer", holder: "codex:b", by: "claude:a" });
    if (i >= 20 && i % 5 === 2) await mailbox.send({ from: "grok:d", fromVerified: true, to: "codex:b", via: "role:reviewer", body: `review #${i}`, anticipation: "reply" });
    if (i === 40) await changeRole(peerpost, { role: "reviewer", holder: "claude:ab", by: "claude:a" });
    if (i % 9 === 0) refreshAll();
  }

  // Records no peerpost writes, though JSON allows them: each reaches a view only through a token the
  // filter has to see through (whitespace between tokens, \u escapes, another key order, a via).
  const known = reference(peerpost, "claude:a");
  const aSent = Object.values(known.messages).find((message) => message.from === "claude:a" && message.to === "codex:b")!;
  const at = "2026-01-01T00:10:00.000Z";
  const id = (n: number) => `01KZZZZZZZZZZZZZZZZZZZZZ${String(n).padStart(2, "0")}`;
  handWritten(peerpost, `{ "v" : 1 , "type" : "read" , "id" : "${aSent.id}" , "by" : "codex:b" , "at" : "${at}" }`);
  handWritten(peerpost, `{"v":1,"type":"msg","id":"${id(1)}","from":"grok:d","fromVerified":false,"to":"\\u0063laude:a","sentAt":"${at}","anticipation":"reply","conversationId":"${id(1)}","hop":1,"body":"escaped recipient"}`);
  handWritten(peerpost, `{"v":1,"type":"resolved","\\u0069d":"${id(1)}","resolution":"done","by":"claude:a","at":"${at}"}`);
  handWritten(peerpost, `{"body":"via a non-role address","hop":1,"conversationId":"${id(2)}","anticipation":"fyi","sentAt":"${at}","via" : "copilot:c","to":"grok:d","fromVerified":true,"from":"codex:b","id":"${id(2)}","v":1,"type" : "msg" }`);
  // A key given twice: JSON.parse keeps the last, so every "id" in a line counts.
  handWritten(peerpost, `{"v":1,"type":"noticed","id":"${id(8)}","via":"hand","at":"${at}","id":"${aSent.id}"}`);
  // A second resolution loses in log order, and the reply it carried is dropped from every view holding the request.
  const resolvedRequest = Object.values(known.messages).find((message) => message.from === "claude:a" && message.to === "codex:b" && message.resolved)!;
  handWritten(peerpost, `{"v":1,"type":"msg","id":"${id(3)}","from":"codex:b","fromVerified":true,"to":"claude:a","sentAt":"${at}","anticipation":"fyi","conversationId":"${resolvedRequest.conversationId}","hop":2,"body":"a late answer","inReplyTo":"${resolvedRequest.id}"}`);
  handWritten(peerpost, `{"v":1,"type":"resolved","id":"${resolvedRequest.id}","resolution":"reply","replyId":"${id(3)}","by":"codex:b","at":"${at}"}`);
  handWritten(peerpost, `{"v":1,"type":"noticed","id":"${id(2)}","via":"stop-hook","at":"${at}"}`);
  handWritten(peerpost, "not json, and no token at all");
  handWritten(peerpost, `{"v":1,"type":"read","id":"${aSent.id}","by":"codex:b"}`);
  await mailbox.send({ from: "copilot:c", fromVerified: true, to: "claude:a", body: "after the hand-written lines" });

  refreshAll();
  const reopened = reopen();
  for (const [index, scope] of SCOPES.entries()) {
    const expected = reference(reopened, scope);
    assert.deepEqual(live[index]!.state, expected, `${scope}, refreshed along the way`);
    const fresh = new MailboxView(reopened.mailbox.log, scope, undefined);
    fresh.refresh();
    assert.deepEqual(fresh.state, expected, `${scope}, folded at once`);
    // Through the mailbox: started from the per-address index, then the lines after it.
    assert.deepEqual(reopened.mailbox.view(scope).state, expected, `${scope}, through the index`);
  }
  const a = reference(reopened, "claude:a");
  assert.ok(a.messages[id(1)]?.resolved, "the escaped recipient's message and its escaped resolution");
  assert.equal(a.messages[aSent.id]?.read?.by, "codex:b", "the read spelled with whitespace");
  assert.ok(reference(reopened, "claude:never-seen").messages[id(2)]?.noticed, "mail with a via is in every view, with its events");
  assert.equal(a.messages[aSent.id]?.noticed?.via, "hand", "the second of two ids");
  assert.equal(a.messages[id(3)], undefined, "the reply of the losing resolution");

  // Lines that cannot concern a scope are not even checked: a scoped view reports only the corrupt lines
  // it parsed (the mailbox's count comes from the index, which parses them all).
  const unscoped = new MailboxView(reopened.mailbox.log, undefined, undefined);
  unscoped.refresh();
  assert.equal(unscoped.corrupt.count, 2);
  const stranger = new MailboxView(reopened.mailbox.log, "grok:d", undefined);
  stranger.refresh();
  assert.equal(stranger.corrupt.count, 0, "neither corrupt line concerns grok:d");
  const sender = new MailboxView(reopened.mailbox.log, "claude:a", undefined);
  sender.refresh();
  assert.equal(sender.corrupt.count, 1, "the read without its time is about a message claude:a holds");
  assert.equal(reopened.mailbox.corruptLines().count, 2);
});

test("the line test looks at the tokens a fold acts on, not at text that only quotes them", () => {
  const held = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
  const mayConcern = scopeLineTest("claude:a", (id) => id === held);
  const line = (text: string) => Buffer.from(text);
  assert.equal(mayConcern(line(`{"type":"msg","from":"codex:b","to":"claude:a","body":"x"}`)), true);
  assert.equal(mayConcern(line(`{"type":"msg","from":"codex:b","to":"claude:ab","body":"x"}`)), false, "another address that starts the same");
  assert.equal(mayConcern(line(`{"type":"msg","from":"codex:b","to":"grok:d","body":"ask \\"claude:a\\" about \\"id\\":\\"${held}\\""}`)), false, "a body quoting the address and a held id");
  assert.equal(mayConcern(line(`{"type":"read","id":"${held}","by":"codex:b"}`)), true);
  assert.equal(mayConcern(line(`{"type":"read","id"\t:\t"${held}","by":"codex:b"}`)), true);
  assert.equal(mayConcern(line(`{"type":"read","id":"01ARZ3NDEKTSV4RRFFQ69G5FAW","by":"codex:b"}`)), false, "an event about a message the view does not hold");
  assert.equal(mayConcern(line(`{"type":"delivered","id":"01ARZ3NDEKTSV4RRFFQ69G5FAW","via":"test"}`)), false, "a delivery's via is not role mail");
  assert.equal(mayConcern(line(`{"type":"msg","from":"codex:b","to":"grok:d","via":"copilot:c"}`)), true, "a message with a via");
  assert.equal(mayConcern(line(`{"type":"role","role":"x","by":"codex:b"}`)), true);
  assert.equal(mayConcern(line(`{"type":"msg","from":"codex:b","to":"\\u0063laude:a"}`)), true);
  assert.equal(mayConcern(line(`{"type":"msg","body":"ends in a backslash\\\\","to":"claude:a"}`)), true, "an escaped backslash does not hide the quote after it");
  assert.equal(mayConcern(line(`{"type":"msg","from":"codex:b","to":"claude:a\\/"}`)), true);
});
