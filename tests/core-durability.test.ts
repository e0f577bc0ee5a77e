// Real processes against one mailbox: concurrent appends, SIGKILL mid-write, fault injection between
// write and fsync and mid-line, and lock recovery after a holder died.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempPeerpost } from "./helpers/temp.js";
import { collect, spawnFixture, waitForOutput } from "./helpers/children.js";

function linesOf(path: string): string[] {
  const text = readFileSync(path, "utf8");
  return text.split("\n").slice(0, -1);
}

test("8 processes appending 1,000 messages each leave exactly 8,000 whole, unique records", { timeout: 300_000 }, async (t) => {
  const { stateDir, reopen } = tempPeerpost(t);
  const workers = Array.from({ length: 8 }, (_, i) => collect(spawnFixture("append-worker", [stateDir, `claude:w${i}`, "codex:sink", "1000"])));
  const results = await Promise.all(workers);
  for (const result of results) assert.equal(result.code, 0, result.stderr);
  const acknowledged = results.flatMap((result) => result.stdout.trim().split("\n"));
  assert.equal(acknowledged.length, 8000);
  const lines = linesOf(join(stateDir, "mailbox.jsonl"));
  assert.equal(lines.length, 8000);
  const ids = lines.map((line) => (JSON.parse(line) as { id: string }).id);
  assert.equal(new Set(ids).size, 8000, "ids are unique");
  assert.deepEqual(new Set(ids), new Set(acknowledged));
  const inbox = reopen().mailbox.inbox("codex:sink");
  assert.equal(inbox.length, 8000);
  for (let i = 0; i < 8; i++) assert.equal(inbox.filter((entry) => entry.message.from === `claude:w${i}`).length, 1000);
});

test("SIGKILL at random points while appending loses no acknowledged send and leaves a readable log", { timeout: 300_000 }, async (t) => {
  const { stateDir, reopen } = tempPeerpost(t, { PEERPOST_LOCK_STALE_MS: "2000" });
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const acknowledged: string[] = [];
  for (let round = 0; round < 6; round++) {
    const children = Array.from({ length: 3 }, (_, i) =>
      spawnFixture("append-worker", [stateDir, `claude:r${round}w${i}`, "codex:sink", "100000"], { PEERPOST_LOCK_STALE_MS: "2000" }),
    );
    const outputs = children.map((child) => collect(child));
    // Kill while all of them are mid-stream: after each acknowledged a send, at a random moment.
    await Promise.all(children.map((child) => waitForOutput(child, "\n")));
    await new Promise((resolve) => setTimeout(resolve, 20 + random() * 300));
    for (const child of children) child.kill("SIGKILL");
    for (const output of await Promise.all(outputs)) {
      assert.equal(output.signal, "SIGKILL");
      acknowledged.push(...output.stdout.split("\n").filter((line) => /^[0-9A-Z]{26}$/.test(line)));
    }
  }
  assert.ok(acknowledged.length > 50, `the workers got some sends done (${acknowledged.length})`);
  const store = reopen();
  // A later append repairs any torn tail; everything acknowledged is there, and nothing is corrupt.
  await store.mailbox.send({ from: "claude:after", fromVerified: true, to: "codex:sink", body: "after the crashes" });
  const view = store.mailbox.view("codex:sink");
  for (const id of acknowledged) assert.ok(view.state.messages[id], `acknowledged ${id} is in the mailbox`);
  assert.equal(view.tornTail, false);
  // A write cut short by the kill can leave a fragment of a send that was never acknowledged: the next
  // writer closes it off with a newline (never cutting anyone's line) and readers skip and report it.
  // So every line parses, except fragments, at most one per killed writer, each reported.
  const lines = linesOf(store.mailbox.log.path);
  const fragments = lines.filter((line) => {
    try {
      JSON.parse(line);
      return false;
    } catch {
      return true;
    }
  });
  assert.equal(view.corrupt.count, fragments.length, "every fragment is reported, nothing else is");
  assert.ok(fragments.length <= 6 * 3, `at most one fragment per killed writer (${fragments.length})`);
  assert.ok(store.mailbox.inbox("codex:sink").some((entry) => entry.body === "after the crashes"));
});

test("a writer killed between write and fsync leaves a whole line that readers accept", { timeout: 60_000 }, async (t) => {
  const { stateDir, reopen } = tempPeerpost(t);
  await reopen().mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "first" });
  const child = spawnFixture("append-worker", [stateDir, "claude:paused", "codex:b", "1"], { PEERPOST_FAULT: "pause-before-fsync" });
  const done = collect(child);
  await waitForOutput(child, "paused before fsync", "stderr");
  child.kill("SIGKILL");
  const output = await done;
  assert.equal(output.stdout, "", "the send never returned");
  // Reading needs no lock: the killed writer's line is there for readers at once.
  const store = reopen();
  const bodies = store.mailbox.inbox("codex:b").map((entry) => entry.body);
  assert.deepEqual(bodies, ["first", "claude:paused #0"], "the written line is whole and readable");
});

test("a writer killed mid-line leaves a torn tail that readers ignore and the next writer closes off", { timeout: 60_000 }, async (t) => {
  const { stateDir, reopen } = tempPeerpost(t, { PEERPOST_LOCK_STALE_MS: "2000" });
  await reopen().mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "first" });
  const output = await collect(spawnFixture("append-worker", [stateDir, "claude:torn", "codex:b", "1"], { PEERPOST_FAULT: "partial-line", PEERPOST_LOCK_STALE_MS: "2000" }));
  assert.equal(output.signal, "SIGKILL");
  assert.equal(output.stdout, "");
  const reader = reopen();
  const view = reader.mailbox.view("codex:b");
  assert.equal(view.tornTail, true);
  assert.deepEqual(reader.mailbox.inbox("codex:b").map((entry) => entry.body), ["first"]);
  // The next send closes the fragment off with a newline instead of gluing onto it; the fragment stays, reported.
  await reader.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "second" });
  assert.deepEqual(reopen().mailbox.inbox("codex:b").map((entry) => entry.body), ["first", "second"]);
  const after = reopen().mailbox.view("codex:b");
  assert.equal(after.corrupt.count, 1);
  assert.equal(after.tornTail, false);
});

test("a lock held by a killed process is recovered within the stale window; a live holder is never stolen from", { timeout: 60_000 }, async (t) => {
  const { stateDir, reopen } = tempPeerpost(t, { PEERPOST_LOCK_STALE_MS: "3000", PEERPOST_LOCK_TIMEOUT_MS: "20000" });
  // A live holder for 4.5 s: longer than the stale window, but it keeps its lock fresh.
  const live = spawnFixture("lock-holder", [stateDir, "4500"]);
  const liveDone = collect(live);
  await waitForOutput(live, "locked");
  // A send with an idempotency key decides under the lock (plain sends take none).
  await reopen().mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "after the live holder", idempotencyKey: "k1" });
  const sentAt = Date.now();
  const holderRun = await liveDone;
  assert.equal(holderRun.code, 0);
  const releasedAt = Number(/released (\d+)/.exec(holderRun.stdout)?.[1]);
  assert.ok(sentAt >= releasedAt, `the send finished only after the live holder released its lock (${sentAt - releasedAt} ms after)`);

  const dead = spawnFixture("lock-holder", [stateDir]);
  const deadDone = collect(dead);
  await waitForOutput(dead, "locked");
  dead.kill("SIGKILL");
  await deadDone;
  const recovering = Date.now();
  await reopen().mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "after the dead holder", idempotencyKey: "k2" });
  const recoveredIn = Date.now() - recovering;
  assert.ok(recoveredIn < 10_000, `recovered after the 3 s stale window, long before the 20 s lock timeout (${recoveredIn} ms)`);
  assert.equal(reopen().mailbox.inbox("codex:b").length, 2);
});

test("a lock that is never released fails the append with state_io_error after the timeout", { timeout: 60_000 }, async (t) => {
  const { stateDir, reopen } = tempPeerpost(t, { PEERPOST_LOCK_TIMEOUT_MS: "800" });
  const holder = spawnFixture("lock-holder", [stateDir]);
  const done = collect(holder);
  t.after(() => holder.kill("SIGKILL"));
  await waitForOutput(holder, "locked");
  await assert.rejects(reopen().mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "x", idempotencyKey: "k" }), (error: { code?: string; hint?: string }) => {
    assert.equal(error.code, "state_io_error");
    assert.match(error.hint ?? "", /lock/);
    return true;
  });
  holder.kill("SIGKILL");
  await done;
});
