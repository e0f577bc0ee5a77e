// The push loop with a transport that fails: the delivery claim is given back, the failure is a receipt,
// and the message is pushed once the transport works again — exactly once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tempPeerpost } from "./helpers/temp.js";
import { testEachBackend } from "./helpers/backends.js";
import { until } from "./helpers/poll.js";
import { PushLoop } from "../core/server/push.js";
import { DeliveryUnsure, type Identity, type PushTransport } from "../core/server/adapter.js";

testEachBackend("a failed push releases its claim and is retried later; a working one delivers once", async (t, backend) => {
  const { peerpost, reopen, clock } = tempPeerpost(t, backend);
  // Fresh mail: what is older than the staleness limit is never pushed.
  clock.now = Date.now();
  peerpost.config.now = Date.now;
  const me: Identity = { address: "claude:pushed", sessionId: "pushed", source: "host-env", detail: "test", verified: true };
  let failing = true;
  const delivered: string[] = [];
  const transport: PushTransport = {
    name: "test-push",
    availability: () => ({ available: true, reason: "always" }),
    deliver: async (message) => {
      if (failing) throw new Error("transport down");
      delivered.push(message.id);
    },
  };
  const reachability: string[] = [];
  const loop = new PushLoop(peerpost, transport, "generic", { onReachability: async (_identity, push) => void reachability.push(push) });
  t.after(() => loop.stop());
  const { message } = await reopen().mailbox.send({ from: "codex:sender", fromVerified: true, to: me.address, body: "hello" });
  loop.start(me);

  const receipts = () => peerpost.receipts.query({ kind: "push" }).receipts;
  await until(() => receipts().length === 1, 5000, "the failed push's receipt");
  assert.equal(receipts()[0]!.delivery, "failed");
  assert.match(receipts()[0]!.warnings[0]!, /transport down/);
  const afterFailure = reopen().mailbox.view(me.address).state.messages[message.id]!;
  assert.equal(afterFailure.delivered, undefined, "the claim was given back");
  assert.equal(loop.state().failed, 1);

  failing = false;
  await until(() => delivered.length === 1, 10_000, "the retried push");
  loop.kick();
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(delivered, [message.id], "pushed once");
  assert.deepEqual(reopen().mailbox.view(me.address).state.messages[message.id]!.delivered?.via, "test-push");
  assert.deepEqual(receipts().map((receipt) => receipt.delivery), ["delivered", "failed"]);
  assert.deepEqual(reachability, ["test-push"], "reachability reported once");
});

test("stale mail is never pushed: past its replyBy or older than PEERPOST_STALE_MS it waits for read", { timeout: 120_000 }, async (t) => {
  const { peerpost, reopen, clock } = tempPeerpost(t);
  const me: Identity = { address: "claude:stale", sessionId: "stale", source: "host-env", detail: "test", verified: true };
  const delivered: string[] = [];
  const transport: PushTransport = { name: "test-push", availability: () => ({ available: true, reason: "always" }), deliver: async (message) => void delivered.push(message.id) };
  clock.now = Date.now() - 3_600_001;
  const old = await reopen().mailbox.send({ from: "codex:sender", fromVerified: true, to: me.address, body: "an hour ago" });
  clock.now = Date.now() - 10_000;
  const expired = await reopen().mailbox.send({ from: "codex:sender", fromVerified: true, to: me.address, body: "too late", anticipation: "reply", replyBy: new Date(Date.now() - 5000).toISOString() });
  clock.now = Date.now();
  const fresh = await reopen().mailbox.send({ from: "codex:sender", fromVerified: true, to: me.address, body: "now" });
  peerpost.config.now = Date.now;
  const loop = new PushLoop(peerpost, transport, "generic");
  t.after(() => loop.stop());
  loop.start(me);
  await until(() => delivered.length === 1, 5000, "the fresh push");
  loop.kick();
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(delivered, [fresh.message.id]);
  const state = reopen().mailbox.view(me.address).state.messages;
  assert.equal(state[old.message.id]!.delivered, undefined);
  assert.equal(state[expired.message.id]!.delivered, undefined);
});

test("a push loop wakes for the logs it reads, not for every file written in the state dir", async (t) => {
  // The poll behind the watch is a minute away: every pass here is one a watch event started.
  const { peerpost, reopen, clock } = tempPeerpost(t, { PEERPOST_WAIT_POLL_MS: "60000" });
  clock.now = Date.now();
  peerpost.config.now = Date.now;
  const me: Identity = { address: "claude:quiet", sessionId: "quiet", source: "host-env", detail: "test", verified: true };
  const delivered: string[] = [];
  const transport: PushTransport = { name: "test-push", availability: () => ({ available: true, reason: "always" }), deliver: async (message) => void delivered.push(message.id) };
  let passes = 0;
  const loop = new PushLoop(peerpost, transport, "generic", { refreshIdentity: async () => void passes++ });
  t.after(() => loop.stop());
  const receipt = () => reopen().receipts.record({ kind: "send", host: "codex", from: "codex:sender", to: "codex:other", messageId: "01HZZZZZZZZZZZZZZZZZZZZZZZ", delivery: "queued", warnings: [], origin: { source: "host", pid: 1 } });
  await receipt();
  loop.start(me);
  await until(() => passes >= 1, 5000, "the first pass");
  await new Promise((resolve) => setTimeout(resolve, 300));
  const settled = passes;

  // Others' sends write receipts all the time: no pass for them.
  for (let i = 0; i < 5; i++) await receipt();
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(passes, settled, "a receipt woke the push loop");

  const { message } = await reopen().mailbox.send({ from: "codex:sender", fromVerified: true, to: me.address, body: "for you" });
  await until(() => delivered.includes(message.id), 5000, "the push of new mail, woken by the mailbox's change");
  assert.ok(passes > settled);
});

test("a delivery that may have happened keeps its claim: never delivered twice, recorded with why", async (t) => {
  const { peerpost, reopen, clock } = tempPeerpost(t);
  clock.now = Date.now();
  peerpost.config.now = Date.now;
  const me: Identity = { address: "claude:unsure", sessionId: "unsure", source: "host-env", detail: "test", verified: true };
  let attempts = 0;
  const transport: PushTransport = {
    name: "test-push",
    availability: () => ({ available: true, reason: "always" }),
    deliver: async () => {
      attempts++;
      throw new DeliveryUnsure("the terminal took the typing and did not answer");
    },
  };
  const loop = new PushLoop(peerpost, transport, "generic");
  t.after(() => loop.stop());
  const { message } = await reopen().mailbox.send({ from: "codex:sender", fromVerified: true, to: me.address, body: "once" });
  loop.start(me);
  const receipts = () => peerpost.receipts.query({ kind: "push" }).receipts;
  await until(() => receipts().length === 1, 5000, "the push receipt");
  for (let i = 0; i < 3; i++) {
    loop.kick();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.equal(attempts, 1, "not delivered again");
  assert.equal(receipts().length, 1);
  assert.equal(receipts()[0]!.delivery, "delivered");
  assert.match(receipts()[0]!.warnings[0]!, /did not answer; not delivered again/);
  const state = reopen().mailbox.view(me.address).state.messages[message.id]!;
  assert.equal(state.delivered?.via, "test-push", "the claim stays");
  assert.equal(state.read, undefined, "still unread, for read and the hooks");
});
