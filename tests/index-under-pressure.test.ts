// The index is derived data: under a write cut short (a full disk, a quota, a file size limit), an extender
// stopped past its lock's stale time, or a start-over racing readers, no answer may change. A write cut short
// never moves `covered` over lines it did not write; a reader whose rebuild cannot be written reads the log;
// a resumed extender leaves the lock of the process that took it over; a reader that read the meta before a
// start-over emptied the key files reads again or reads the log, never the emptied files.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, rmSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { monotonicFactory } from "ulid";
import { tempDir, tempPeerpost } from "./helpers/temp.js";
import { collect, spawnFixture, waitForOutput } from "./helpers/children.js";
import { CLI } from "./helpers/mcp.js";
import { cli, json } from "./helpers/cli.js";
import { fnv1a64 } from "../core/common/hash.js";
import { openPeerpost } from "../core/peerpost.js";
import { setTimeout as delay } from "node:timers/promises";
import { oldLog } from "./helpers/old-log.js";
import { readersDuringRebuilds } from "./helpers/index-race.js";

/** The CLI in a child whose writes cannot grow a file past 512 bytes: as on a full disk, a write is cut short. */
function cliWithoutRoom(env: Record<string, string>, ...args: string[]) {
  const quoted = [process.execPath, CLI, ...args].map((word) => `'${word.replace(/'/g, "'\\''")}'`).join(" ");
  return collect(spawn("/bin/sh", ["-c", `ulimit -f 1; exec ${quoted}`], { env: { PATH: "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"] }));
}

test("an index extension whose bucket write is cut short leaves every message found, not answered as no such message", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  mkdirSync(stateDir, { mode: 0o700 });
  // Twelve messages whose ids share one ids/ bucket (its entries pass 512 bytes), each between two
  // addresses of its own (no offsets file comes near that size).
  const newId = monotonicFactory();
  const start = Date.parse("2026-11-01T00:00:00Z");
  const ids: string[] = [];
  const bucket = (id: string) => fnv1a64(id).slice(0, 3);
  for (let i = 0; ids.length < 12; i++) {
    const id = newId(start + i);
    if (ids.length === 0 || bucket(id) === bucket(ids[0]!)) ids.push(id);
  }
  const lines = ids.map((id, i) => JSON.stringify({ v: 1, type: "msg", id, from: `claude:sender-${i}`, fromVerified: true, to: `codex:reader-${i}`, sentAt: new Date(start + i).toISOString(), anticipation: "fyi", conversationId: id, hop: 1, body: `message ${i}` }) + "\n");
  appendFileSync(join(stateDir, "mailbox.jsonl"), lines.join(""), { mode: 0o600 });
  for (const id of ids) {
    const shown = await cli(env, "status", id, "--json");
    assert.equal(shown.code, 0, `before any index: ${shown.stderr}`);
  }

  // The detached build a server or hook starts; it may fail here (no room), but must not record what it did not write.
  await cliWithoutRoom(env, "index-run");

  const missing: string[] = [];
  for (const id of ids) {
    const shown = await cli(env, "status", id, "--json");
    if (shown.code !== 0 || (json(shown).message as { id?: string } | undefined)?.id !== id) missing.push(`${id}: ${shown.stdout.slice(0, 200)}${shown.stderr.slice(0, 200)}`);
  }
  assert.deepEqual(missing, [], "every message is still found");
});


const BOB = "claude:bob";
const ALICE = "codex:alice";

test("a damaged index that cannot be rebuilt for want of disk space leaves the inbox to the log, not failing", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  const peerpost = openPeerpost({ env, home });
  t.after(() => peerpost.backend.close());
  const { mailbox } = peerpost;
  for (let i = 0; i < 400; i++) await mailbox.send({ from: "copilot:carol", fromVerified: true, to: i % 2 ? ALICE : BOB, body: `filler ${i} ${"x".repeat(300)}`, anticipation: "fyi" });
  // A few lines a hand edit or a dead writer left: the index's meta names the recent ones (so it is no tiny file).
  appendFileSync(mailbox.log.path, Array.from({ length: 12 }, (_, i) => `{"not a record": ${i}}\n`).join(""));
  await mailbox.send({ from: "copilot:carol", fromVerified: true, to: ALICE, body: "after them", anticipation: "fyi" });
  assert.ok(mailbox.indexAll()! > 64 * 1024);
  const offsets = join(stateDir, "index", "mailbox", "scopes", `${fnv1a64(BOB)}.offs`);
  assert.ok(existsSync(offsets));
  const before = await cli(env, "inbox", BOB, "--all", "--json");
  assert.equal(before.code, 0, before.stderr);
  const ids = (json(before).messages as Array<{ id: string }>).map((message) => message.id);
  assert.equal(ids.length, 200);

  // Damage (as a write cut short by the full disk leaves it), then a reader with no room to rebuild.
  rmSync(join(stateDir, "cache"), { recursive: true, force: true });
  rmSync(offsets);
  const after = await cliWithoutRoom(env, "inbox", BOB, "--all", "--json");
  assert.equal(after.code, 0, `the inbox fails: ${after.stderr}${after.stdout.slice(0, 500)}`);
  assert.deepEqual((json(after).messages as Array<{ id: string }>).map((message) => message.id), ids);
});


/** Polls every 2 ms: the lock must be seen before the extension it guards ends. */
async function soon(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  for (const end = Date.now() + ms; !check(); await delay(2)) if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
}

test("an extender resumed after its stale lock was taken over leaves the new holder's lock in place", { timeout: 180_000 }, async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  mkdirSync(stateDir, { mode: 0o700 });
  // An old log never indexed: its extension takes a while (seconds), during which the lock is held.
  oldLog(join(stateDir, "mailbox.jsonl"), 24 * 1024 * 1024);
  const lock = join(stateDir, "index", "mailbox", "extending.lock");

  const first = spawnFixture("index-extender", [stateDir]);
  const firstDone = collect(first);
  t.after(() => void first.kill("SIGKILL"));
  await waitForOutput(first, "extending");
  await soon(() => existsSync(lock), "the first extender's lock");
  first.kill("SIGSTOP");
  // As if it stayed stopped past the stale time.
  const longAgo = new Date(Date.now() - 120_000);
  utimesSync(lock, longAgo, longAgo);

  const second = spawnFixture("index-extender", [stateDir]);
  t.after(() => void second.kill("SIGKILL"));
  await waitForOutput(second, "extending");
  await soon(() => {
    try {
      return statSync(lock).mtimeMs > Date.now() - 60_000;
    } catch {
      return false;
    }
  }, "the second extender to take the lock over");
  second.kill("SIGSTOP");

  // The first wakes up and finishes while the second still holds the lock (stopped, as the first was).
  first.kill("SIGCONT");
  const ended = await firstDone;
  assert.equal(ended.code, 0, ended.stderr);
  assert.ok(existsSync(lock), "the second extender's lock is still there");
  // So a third process does not extend beside the second.
  const third = openPeerpost({ env: { HOME: home, PEERPOST_HOME: stateDir }, home });
  t.after(() => third.backend.close());
  assert.equal(third.mailbox.index.extend(), undefined, "a third extender waits for the second");
  second.kill("SIGKILL");
});


test("new views started from the live index while another process starts it over on the same log hold all their mail or read the log, never start from an emptied file", { timeout: 180_000 }, async (t) => {
  const { peerpost, stateDir, home } = tempPeerpost(t);
  for (let i = 0; i < 600; i++) await peerpost.mailbox.send({ from: i % 3 ? "codex:alice" : "grok:dan", fromVerified: true, to: "claude:bob", body: `#${i} ${"x".repeat(200)}`, anticipation: "fyi" });
  assert.ok(peerpost.mailbox.indexAll()! > 0);
  assert.equal(Object.keys(peerpost.mailbox.view("claude:bob").state.messages).length, 600);

  const { rebuilds, seen } = await readersDuringRebuilds(spawnFixture("live-index-rebuilder", [stateDir, "6000"], { HOME: home, PEERPOST_HOME: stateDir }), () =>
    spawnFixture("live-index-reader", [stateDir, "100", "claude:bob", "600"], { HOME: home, PEERPOST_HOME: stateDir }),
  );
  assert.ok(rebuilds > 20 && seen.answered > 20, JSON.stringify({ rebuilds, answered: seen.answered, missing: seen.missing }));
  assert.deepEqual(seen.wrong.slice(0, 5), [], `${seen.wrong.length} of ${seen.answered + seen.missing + seen.wrong.length} new views started from emptied files (${rebuilds} start-overs)`);
});
