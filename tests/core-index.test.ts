// The per-address index: a view nobody folded before (a new session) starts from its own indexed lines
// and equals the fold of the whole log; interrupted extensions, replaced logs and other writers' lines
// change no result.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { tempPeerpost } from "./helpers/temp.js";
import { MailboxView, keptBy } from "../core/mail/view.js";
import { applyEvent, emptyState, type MailboxState } from "../core/mail/fold.js";
import { snapshotFileName } from "../core/mail/snapshots.js";
import { tailFingerprint } from "../core/log/log-snapshot.js";
import type { Peerpost } from "../core/peerpost.js";
import { changeRole, ROLES_SCOPE } from "../core/roles/roles.js";
import { CLI, connect } from "./helpers/mcp.js";
import { until } from "./helpers/poll.js";
import { oldLog } from "./helpers/old-log.js";
import { inspectState } from "../core/upkeep/health.js";

const ADDRESSES = ["claude:a", "codex:b", "copilot:c", "grok:d"];

/** A deterministic mix of sends, replies, read marks, delivery claims and reminders between the addresses. */
async function traffic(peerpost: Peerpost, rounds: number, clock: { now: number }): Promise<void> {
  const { mailbox } = peerpost;
  for (let i = 0; i < rounds; i++) {
    const from = ADDRESSES[i % 4]!;
    const to = ADDRESSES[(i * 3 + 1) % 4]!;
    if (from === to) continue;
    clock.now += 1000;
    const { message, created } = await mailbox.send({ from, fromVerified: true, to, body: `#${i}`, anticipation: i % 3 === 0 ? "reply" : "fyi", ...(i % 5 === 0 ? { idempotencyKey: `k${i % 7}` } : {}) });
    if (!created) continue;
    if (i % 2 === 0) await mailbox.markDelivered(to, message.id, "test");
    if (i % 3 === 0 && i % 6 !== 0) await mailbox.resolve({ id: message.id, by: to, resolution: "reply", text: `re #${i}` });
    if (i % 4 === 1) await mailbox.markRead(to, [message.id]);
  }
}

/** The reference: every line of the log parsed and folded with the scope's filter, as no view reads it. */
function folded(peerpost: Peerpost, scope: string): { state: MailboxState } {
  const state = emptyState();
  peerpost.mailbox.log.scan(0, (entry) => applyEvent(state, entry.record, entry.offset, (message) => keptBy(scope, message)));
  return { state };
}

test("views started from the index equal views folded from the whole log, and read only the tail after it", async (t) => {
  const { peerpost, stateDir, clock, reopen } = tempPeerpost(t);
  await traffic(peerpost, 120, clock);
  // Role events and role mail belong to every view: a handover moves mail to an address that never had it.
  for (const address of ADDRESSES) await peerpost.sessions.register({ host: "claude-code", address, sessionId: address.split(":")[1]!, source: "startup", roles: [] });
  await changeRole(peerpost, { role: "reviewer", holder: "codex:b", by: "claude:a" });
  await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", via: "role:reviewer", body: "review this", anticipation: "reply" });
  await changeRole(peerpost, { role: "reviewer", holder: "grok:d", by: "claude:a" });
  assert.ok(reopen().mailbox.indexAll()! > 0);
  await traffic(peerpost, 17, clock);
  for (const address of [...ADDRESSES, ROLES_SCOPE]) {
    const tailStart = reopen().mailbox.index.lookup(address)!.covered;
    rmSync(join(stateDir, "cache"), { recursive: true, force: true });
    const fresh = reopen();
    const view = new MailboxView(fresh.mailbox.log, address, undefined, fresh.mailbox.index);
    assert.equal(view.fromIndex, true);
    assert.equal(view.offset, tailStart, "the index covers everything before the tail");
    view.refresh();
    assert.deepEqual(view.state, folded(fresh, address).state, address);
    // Through the mailbox, a view with no snapshot extends the index on the way, then reads nothing more.
    const viaMailbox = reopen().mailbox.view(address);
    assert.equal(viaMailbox.fromIndex, true);
    assert.equal(viaMailbox.refresh(), 0);
    assert.deepEqual(viaMailbox.state, folded(fresh, address).state, address);
  }
  const stranger = reopen().mailbox.view("claude:never-seen");
  // It has no mail of its own; role mail is in every view.
  assert.deepEqual(stranger.state, folded(reopen(), "claude:never-seen").state);
  assert.ok(Object.values(stranger.state.messages).every((message) => message.via === "role:reviewer"));
  assert.equal(stranger.fromIndex, true);
});

test("a dormant session's snapshot far behind the index is left for it: the view reads its own lines, not the mail that grew the log, and equals the full fold", async (t) => {
  const { peerpost, stateDir, clock, reopen } = tempPeerpost(t);
  await traffic(peerpost, 60, clock);
  await peerpost.mailbox.persist(peerpost.mailbox.view("claude:a"));
  // Others' mail, more than a reader reads on its way (written directly: a busy machine's weeks).
  oldLog(peerpost.mailbox.log.path, 10 * 1024 * 1024);
  await peerpost.mailbox.send({ from: "grok:d", fromVerified: true, to: "claude:a", body: "while you were away", anticipation: "reply" });
  assert.ok(reopen().mailbox.indexAll()! > 0);
  const { message: afterIndex } = await peerpost.mailbox.send({ from: "codex:b", fromVerified: true, to: "claude:a", body: "after the index", anticipation: "reply" });

  const fresh = reopen();
  const view = new MailboxView(fresh.mailbox.log, "claude:a", join(stateDir, "cache", snapshotFileName("claude:a")), fresh.mailbox.index);
  assert.equal(view.cacheState, "behind");
  assert.equal(view.fromIndex, true);
  assert.ok(view.refresh() < 10, "only the lines after the index");
  assert.deepEqual(view.state, folded(fresh, "claude:a").state);
  assert.ok(view.state.messages[afterIndex.id], "the mail after the index is in the view");
  // The stale snapshot is replaced at the next save, even a hook's (which saves only past 256 KiB of news),
  // and a snapshot close to the end is the start again.
  assert.equal(await fresh.mailbox.persist(fresh.mailbox.view("claude:a"), 256 * 1024), true);
  const again = new MailboxView(reopen().mailbox.log, "claude:a", join(stateDir, "cache", snapshotFileName("claude:a")), reopen().mailbox.index);
  assert.equal(again.cacheState, "loaded");
});

test("a compaction leaves the index of the new log built, not to the next hooks", async (t) => {
  const { peerpost, clock, reopen } = tempPeerpost(t);
  await traffic(peerpost, 60, clock);
  assert.ok(reopen().mailbox.indexAll()! > 0);
  clock.now += 40 * 86_400_000;
  await traffic(peerpost, 7, clock);
  const result = await peerpost.mailbox.compact();
  assert.ok(result.movedMessages > 0, "the compaction replaced the log");
  assert.equal(reopen().mailbox.indexLag().lagBytes, 0);
});

test("an interrupted extension, a stale extension lock and a replaced log change no view", async (t) => {
  const { peerpost, stateDir, clock, reopen } = tempPeerpost(t);
  await traffic(peerpost, 60, clock);
  reopen().mailbox.indexAll();
  await traffic(peerpost, 30, clock);
  const index = join(stateDir, "index", "mailbox");
  const log = join(stateDir, "mailbox.jsonl");
  const covered = reopen().mailbox.index.lookup("codex:b")!.covered;
  const indexFiles = () => ["ids", "scopes"].flatMap((dir) => readdirSync(join(index, dir)).map((name) => join(index, dir, name)));
  const before = new Map(indexFiles().map((file) => [file, readFileSync(file)]));
  reopen().mailbox.index.extend();
  // Put `covered` back, as if the extension died before its last rename: its offsets get appended twice.
  const meta = join(index, "meta.json");
  const parsed = JSON.parse(readFileSync(meta, "utf8")) as Record<string, unknown>;
  writeFileSync(meta, JSON.stringify({ ...parsed, covered, tail: tailFingerprint(log, covered) }));
  // And each file's new lines cut mid-way, as a crash while appending leaves them: the next extension cuts the torn line off.
  for (const file of indexFiles()) {
    const old = before.get(file) ?? Buffer.alloc(0);
    const now = readFileSync(file);
    if (now.length > old.length) writeFileSync(file, now.subarray(0, old.length + Math.ceil((now.length - old.length) / 2)));
  }
  // And a lock left by a process that died while extending.
  mkdirSync(join(index, "extending.lock"));
  const longAgo = new Date(Date.now() - 3_600_000);
  utimesSync(join(index, "extending.lock"), longAgo, longAgo);
  reopen().mailbox.index.extend();
  assert.equal(existsSync(join(index, "extending.lock")), false, "a stale extension lock is taken over");
  const ids = readFileSync(log, "utf8").split("\n").filter((line) => line.includes('"type":"msg"')).map((line) => (JSON.parse(line) as { id: string }).id);
  for (const id of ids) assert.ok(reopen().mailbox.index.message(id), `message ${id} is in the index`);
  for (const address of ADDRESSES) {
    const fresh = reopen();
    const view = new MailboxView(fresh.mailbox.log, address, undefined, fresh.mailbox.index);
    view.refresh();
    assert.deepEqual(view.state, folded(fresh, address).state, address);
  }
  // A log replaced by another file (a restore, a compaction) makes the index start over.
  const copy = readFileSync(log);
  rmSync(log);
  appendFileSync(log, copy.subarray(0, copy.indexOf(0x0a) + 1), { mode: 0o600 });
  assert.equal(reopen().mailbox.index.lookup("claude:a"), undefined, "the index no longer describes the log");
  rmSync(join(stateDir, "cache"), { recursive: true, force: true });
  for (const address of ADDRESSES) assert.deepEqual(reopen().mailbox.view(address).state, folded(reopen(), address).state);
});

test("a long-lived reader's index notices the log rewritten in place at the same size and modification time, as a new reader does", async (t) => {
  const { peerpost, stateDir, clock } = tempPeerpost(t);
  await traffic(peerpost, 20, clock);
  const log = join(stateDir, "mailbox.jsonl");
  const longAgo = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
  utimesSync(log, longAgo, longAgo);
  const { index } = peerpost.mailbox;
  index.extend();
  assert.ok(index.lookup("codex:b"), "the index describes the log");
  assert.ok(index.lookup("codex:b"), "and again, from what this reader found the first time");
  // Past the file system's clock step (a few ms at most), so the change below has a change time of its own.
  await delay(20);
  // One letter of the last body changed where it lies, and the modification time put back: the same file,
  // the same size, the same modification time; only the change time, which no tool can put back, differs.
  const bytes = readFileSync(log);
  const at = bytes.lastIndexOf('"body":"#') + '"body":"'.length;
  const fd = openSync(log, "r+");
  writeSync(fd, "$", at);
  closeSync(fd);
  utimesSync(log, longAgo, longAgo);
  assert.equal(statSync(log).size, bytes.length);
  assert.equal(statSync(log).mtimeMs, longAgo.getTime());
  assert.equal(index.lookup("codex:b"), undefined, "the index no longer describes the log");
});

for (const [name, entry, args] of [["peerpost serve", CLI, ["serve"]], ["a plugin's server.mjs", `${CLI.replace(/cli\.mjs$/, "")}claude-code/server.mjs`, []]] as const)
  test(`${name} started on an old log far ahead of its index builds the index detached; new sessions then start from it`, { timeout: 120_000 }, async (t) => {
    const { peerpost, stateDir, home, reopen } = tempPeerpost(t);
    await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "before the old traffic" });
    oldLog(peerpost.mailbox.log.path, 9 * 1024 * 1024);
    await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "after it", anticipation: "reply" });
    assert.equal(reopen().mailbox.indexLag().farBehind, true);
    assert.equal(reopen().mailbox.view("codex:b").fromIndex, false, "a new session folds the whole log");
    assert.equal(inspectState(reopen()).storage.index.farBehind, true, "health and doctor say so");
    const server = await connect(t, { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "grok:peer" }, entry, [...args]);
    assert.equal((await server.call("health")).ok, true, "the server answers while the index is built");
    await until(() => !reopen().mailbox.indexLag().farBehind, 60_000, "the detached index build");
    const view = reopen().mailbox.view("codex:b");
    assert.equal(view.fromIndex, true, "a new session starts from the index");
    assert.equal(inspectState(reopen()).storage.index.farBehind, false);
    assert.deepEqual(view.state.messages, folded(peerpost, "codex:b").state.messages);
    assert.deepEqual(reopen().mailbox.inbox("codex:b").map((entry) => entry.body), ["before the old traffic", "after it"]);
  });

test("a message whose ids line a damaged bucket lost is still found, by a scan, not answered as no such message", async (t) => {
  const { peerpost, clock, reopen, stateDir } = tempPeerpost(t);
  await traffic(peerpost, 40, clock);
  const { message } = await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "the one to find", anticipation: "reply" });
  assert.ok(reopen().mailbox.indexAll()! > 0);
  const ids = join(stateDir, "index", "mailbox", "ids");
  const bucket = readdirSync(ids).map((name) => join(ids, name)).find((file) => readFileSync(file, "utf8").includes(`"${message.id}"`))!;
  // Its line damaged, with a good line after it: the bucket cannot tell what it held.
  const lines = readFileSync(bucket, "utf8").split("\n");
  writeFileSync(bucket, [...lines.map((line) => (line.includes(`"${message.id}"`) ? `${line.slice(0, 20)}#` : line)).filter((line) => line !== ""), '["01ZZZZZZZZZZZZZZZZZZZZZZZZ",[1]]', ""].join("\n"));
  const found = reopen().mailbox.find(message.id);
  assert.deepEqual([found?.id, found?.from, found?.to], [message.id, "claude:a", "codex:b"]);
  assert.equal(reopen().mailbox.thread(message.id)[0]?.id, message.id);
});
