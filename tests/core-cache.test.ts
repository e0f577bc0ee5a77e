// The view snapshot is derived data: results with and without it are identical on a random event
// sequence, and a truncated or replaced log invalidates it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, renameSync, rmSync, truncateSync, copyFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempPeerpost } from "./helpers/temp.js";
import type { Peerpost } from "../core/peerpost.js";
import { PeerpostError } from "../core/common/errors.js";

const ADDRESSES = ["claude:a", "codex:b", "copilot:c", "grok:d"];

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) % 2 ** 32;
    return state / 2 ** 32;
  };
}

/** Everything a reader can observe about an address, in a stable order. */
function observe(peerpost: Peerpost, address: string) {
  const view = peerpost.mailbox.view(address);
  const messages = Object.values(view.state.messages)
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((message) => ({ ...message, status: peerpost.mailbox.status(message) }));
  return { messages, unread: peerpost.mailbox.inbox(address).map((entry) => entry.body), idempotency: view.state.idempotency };
}

async function randomStep(peerpost: Peerpost, random: () => number, clock: { now: number }): Promise<void> {
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;
  clock.now += Math.floor(random() * 20_000);
  const from = pick(ADDRESSES);
  const roll = random();
  try {
    if (roll < 0.4) {
      const to = pick(ADDRESSES.filter((address) => address !== from));
      await peerpost.mailbox.send({ from, fromVerified: true, to, body: `m${Math.floor(random() * 1e6)}`, anticipation: pick(["reply", "action", "fyi"] as const), idempotencyKey: random() < 0.2 ? `k${Math.floor(random() * 5)}` : undefined });
      return;
    }
    const inbox = peerpost.mailbox.inbox(from, { unreadOnly: false });
    if (inbox.length === 0) return;
    const target = pick(inbox).message;
    if (roll < 0.55) await peerpost.mailbox.markDelivered(from, target.id, "test");
    else if (roll < 0.75) await peerpost.mailbox.markRead(from, [target.id]);
    else if (roll < 0.85) await peerpost.mailbox.remind(from, target.id, "test");
    else await peerpost.mailbox.resolve({ id: target.id, by: from, resolution: pick(["reply", "decline", "done"] as const), text: "r" });
  } catch (error) {
    if (!(error instanceof PeerpostError)) throw error;
  }
}

test("views from snapshots equal views folded from scratch, at every checkpoint of a random sequence", { timeout: 120_000 }, async (t) => {
  const { peerpost, stateDir, clock, reopen } = tempPeerpost(t, { PEERPOST_REMINDER_LIMIT: "2", PEERPOST_REMINDER_INTERVAL_MS: "5000" });
  const random = seeded(20261202);
  for (let checkpoint = 0; checkpoint < 8; checkpoint++) {
    for (let step = 0; step < 60; step++) await randomStep(peerpost, random, clock);
    // Views loaded from the previous checkpoint's snapshots catch up with only the new events...
    const fromSnapshot = reopen();
    const snapshotViews = ADDRESSES.map((address) => fromSnapshot.mailbox.view(address));
    for (const view of snapshotViews) {
      assert.equal(view.cacheState, checkpoint === 0 ? "none" : "loaded");
      await fromSnapshot.mailbox.persist(view);
    }
    // ...and must equal views folded from the whole log with no snapshot at all.
    renameSync(join(stateDir, "cache"), join(stateDir, "cache.aside"));
    const fromScratch = reopen();
    for (const address of ADDRESSES) assert.deepEqual(observe(fromSnapshot, address), observe(fromScratch, address), `checkpoint ${checkpoint}, ${address}`);
    rmSync(join(stateDir, "cache"), { recursive: true, force: true });
    renameSync(join(stateDir, "cache.aside"), join(stateDir, "cache"));
  }
});

test("a snapshot is not trusted after the log is truncated or replaced", async (t) => {
  const { peerpost, stateDir, reopen } = tempPeerpost(t);
  for (let i = 0; i < 5; i++) await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: `n${i}` });
  const writer = reopen();
  await writer.mailbox.persist(writer.mailbox.view("codex:b"));
  assert.equal(readdirSync(join(stateDir, "cache")).length, 1);
  assert.equal(reopen().mailbox.view("codex:b").cacheState, "loaded");

  // Replaced by a different file with the same length: the tail fingerprint or inode differs.
  const log = join(stateDir, "mailbox.jsonl");
  const backup = join(stateDir, "backup.jsonl");
  copyFileSync(log, backup);
  const oneMessageLess = reopen();
  truncateSync(log, 0);
  await oneMessageLess.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "only me" });
  const afterTruncate = reopen().mailbox;
  assert.equal(afterTruncate.view("codex:b").cacheState, "invalid");
  assert.deepEqual(afterTruncate.inbox("codex:b").map((entry) => entry.body), ["only me"]);

  renameSync(backup, log);
  const afterReplace = reopen().mailbox;
  assert.notEqual(afterReplace.view("codex:b").cacheState, "loaded");
  assert.deepEqual(afterReplace.inbox("codex:b").map((entry) => entry.body), ["n0", "n1", "n2", "n3", "n4"]);
  assert.ok(statSync(log).size > 0);
});

test("a corrupt snapshot file is ignored and rebuilt", async (t) => {
  const { peerpost, stateDir, reopen } = tempPeerpost(t);
  await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "hello" });
  await peerpost.mailbox.persist(peerpost.mailbox.view("codex:b"));
  const [file] = readdirSync(join(stateDir, "cache"));
  (await import("node:fs")).writeFileSync(join(stateDir, "cache", file!), "{ not json");
  const store = reopen();
  assert.equal(store.mailbox.view("codex:b").cacheState, "invalid");
  assert.deepEqual(store.mailbox.inbox("codex:b").map((entry) => entry.body), ["hello"]);
});
