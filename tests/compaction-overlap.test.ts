// A compaction that outlives its lock, one killed after its rename, one that runs under a reader, and a log
// that is no file. A compaction runs synchronously and
// cannot renew its lock: past PEERPOST_LOCK_STALE_MS another process takes the lock over. A second
// compaction must then leave the running one's files alone, and every archived message must stay
// readable. A reader whose read a swap cut across reads again. A FIFO in place of a log is refused at once, not waited on.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, cpSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { monotonicFactory } from "ulid";
import { cliEnv, onCleanup, tempDir, tempPeerpost } from "./helpers/temp.js";
import { traffic } from "./helpers/old-traffic.js";
import { findMessage } from "../core/mail/lookup.js";
import type { MailboxLookups } from "../core/store/mailbox-lookups.js";
import { collect, spawnFixture, waitForOutput } from "./helpers/children.js";
import { cli, json } from "./helpers/cli.js";
import { heartbeats } from "./helpers/compacted-logs.js";
import { CLI } from "./helpers/mcp.js";

const DAY = 86_400_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A session registered by this process (a long-lived server, which keeps its descriptor on the file the
 * compaction replaces), then a compaction of the registry killed after its rename.
 */
async function registryCompactionKilledAfterRename(t: TestContext) {
  const { peerpost, clock, stateDir, home } = tempPeerpost(t);
  await heartbeats(peerpost, clock);
  const register = (name: string) => peerpost.sessions.register({ host: "claude-code", address: "claude:s1", sessionId: "s1", source: "cli", name });
  await register("zero");
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now), PEERPOST_LOCK_STALE_MS: "2000" };
  const killed = await collect(spawnFixture("log-compactor", [stateDir, "sessions"], { ...env, PEERPOST_FAULT: "compact-after-rename" }));
  assert.equal(killed.signal, "SIGKILL");
  return { register, env, stateDir };
}

test("a compaction that took over a stale lock from a running one refuses, and no archived message is lost", { timeout: 180_000 }, async (t) => {
  const { peerpost, clock, stateDir, home } = tempPeerpost(t);
  const now = clock.now;
  clock.now = now - 60 * DAY;
  const done = (await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "x", anticipation: "reply" })).message;
  await peerpost.mailbox.resolve({ id: done.id, by: "codex:b", resolution: "done" });
  // A corrupt line of 32 MiB, read in many chunks, which must stay in the live log byte for byte.
  appendFileSync(join(stateDir, "mailbox.jsonl"), "x".repeat(32 << 20) + "\n");
  await peerpost.backend.close();
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(now), PEERPOST_LOCK_STALE_MS: "2000" };
  // The first compaction stops just after writing its marker, holding the lock, as a long one is busy past the stale time.
  const first = spawn(process.execPath, [CLI, "compact", "--json"], { env: { ...env, PEERPOST_FAULT: "compact-stop-after-marker" }, stdio: ["ignore", "pipe", "pipe"] });
  const firstDone = collect(first);
  onCleanup(t, () => void (first.exitCode === null && first.kill("SIGKILL")));
  while (!/^\S+ \(.*\) T/.test(readFileSync(`/proc/${first.pid}/stat`, "utf8"))) await sleep(20);
  await sleep(2500);
  const second = await cli(env, "compact", "--json");
  assert.equal(second.code, 1, second.stdout);
  assert.match(second.stdout, /"code": "state_io_error"[^]*Another compaction of [^ ]*mailbox\.jsonl is still running/);
  first.kill("SIGCONT");
  const finished = await firstDone;
  assert.equal(finished.code, 0, finished.stdout.slice(0, 400) + finished.stderr);
  assert.equal((await cli(env, "compact")).code, 0, "a compaction after it recovers nothing and keeps the archive");
  const status = await cli(env, "status", done.id);
  assert.equal(status.code, 0, status.stderr);
  const kept = readFileSync(join(stateDir, "mailbox.jsonl"), "latin1").split("\n").filter((line) => line.length === 32 << 20 && /^x+$/.test(line));
  assert.equal(kept.length, 1, "the corrupt line stays");
});

test("the old tail of a compaction killed after its rename is brought over once, not again by every new process after newer records", async (t) => {
  const { register, env, stateDir } = await registryCompactionKilledAfterRename(t);
  await register("one");
  assert.equal((await cli(env, "name", "claude:s1", "two")).code, 0);
  const names: string[] = [];
  const lines: number[] = [];
  for (let i = 0; i < 3; i++) {
    names.push((json(await cli(env, "agents", "--all", "--json")) as { sessions: Array<{ address: string; name?: string }> }).sessions.find((session) => session.address === "claude:s1")!.name!);
    lines.push(readFileSync(join(stateDir, "sessions.jsonl"), "utf8").split("\n").length);
  }
  assert.deepEqual(names, ["two", "two", "two"], "the latest name stands");
  assert.equal(new Set(lines).size, 1, `later processes append nothing: ${lines.join(", ")} lines`);
});

test("status of a message reads it while another process compacts it into the archive", { timeout: 120_000 }, async (t) => {
  const { peerpost, clock, stateDir, home } = tempPeerpost(t);
  const now = clock.now;
  const send = async (body: string, ago: number) => {
    clock.now = now - ago * DAY;
    const m = (await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body, anticipation: "reply" })).message;
    await peerpost.mailbox.resolve({ id: m.id, by: "codex:b", resolution: "done" });
    clock.now = now;
    return m;
  };
  await send("a", 60);
  assert.equal((await cli({ HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(now) }, "compact")).code, 0);
  // A 40 MiB archive (its derived index deleted).
  const [msg, res] = readFileSync(join(stateDir, "mailbox.archive.jsonl"), "utf8").split("\n");
  const ulid = monotonicFactory();
  const lines: string[] = [];
  for (let i = 0; i < 19_000; i++) {
    const id = ulid(now - 70 * DAY);
    lines.push(JSON.stringify({ ...JSON.parse(msg!), id, conversationId: id, body: "x".repeat(2000) }), JSON.stringify({ ...JSON.parse(res!), id }));
  }
  appendFileSync(join(stateDir, "mailbox.archive.jsonl"), lines.join("\n") + "\n");
  rmSync(join(stateDir, "index"), { recursive: true, force: true });
  const m = await send("m", 50);
  await peerpost.backend.close();
  const failures: string[] = [];
  for (const delay of [100, 200, 300, 400, 500, 600]) {
    const copy = tempDir(t);
    cpSync(home, copy, { recursive: true });
    const env = { HOME: copy, PEERPOST_HOME: join(copy, "state"), PEERPOST_NOW: String(now) };
    const status = cli(env, "status", m.id);
    await sleep(delay);
    assert.equal((await cli(env, "compact")).code, 0);
    const shown = await status;
    if (shown.code !== 0) failures.push(`${delay} ms: ${shown.stderr.split("\n")[0]}`);
  }
  assert.deepEqual(failures, []);
});

test("a receipts page's cursor from before a compaction goes on after it: no receipt repeated, none skipped", async (t) => {
  const { peerpost, clock, stateDir, home } = tempPeerpost(t, { PEERPOST_LOG_RETENTION_DAYS: "30" });
  const ulid = monotonicFactory();
  // Three receipts past the retention (they move to the archive), twenty within it.
  const lines = Array.from({ length: 23 }, (_, i) => {
    const at = clock.now - (i < 3 ? 60 : 1) * DAY + i * 60_000;
    return JSON.stringify({ v: 1, type: "receipt", id: ulid(at), at: new Date(at).toISOString(), kind: "send", host: "claude-code", from: "claude:s1", to: "codex:sink", messageId: ulid(at), delivery: "queued", warnings: [], origin: { source: "host", pid: 1 } });
  });
  appendFileSync(peerpost.receipts.log.path, lines.join("\n") + "\n", { mode: 0o600 });
  const all = peerpost.receipts.query({ limit: 100 }).receipts.map((receipt) => receipt.id);
  const first = peerpost.receipts.query({ limit: 5 });
  assert.equal((await cli({ HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now), PEERPOST_LOG_RETENTION_DAYS: "30" }, "compact")).code, 0);
  const ids = [...first.receipts, ...peerpost.receipts.query({ limit: 100, cursor: first.nextCursor }).receipts].map((receipt) => receipt.id);
  assert.deepEqual(ids, all);
});

test("a FIFO in place of the mailbox is refused as no regular file by every reader, none waits on it", { timeout: 60_000 }, async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  mkdirSync(stateDir, { mode: 0o700 });
  execFileSync("mkfifo", ["-m", "600", join(stateDir, "mailbox.jsonl")]);
  const outcomes: Record<string, string> = {};
  for (const args of [["health"], ["inbox", "codex:b"], ["tail"]]) {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: "/usr/bin:/bin", HOME: home, PEERPOST_HOME: stateDir }, stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), 8000);
    const result = await collect(child);
    clearTimeout(timer);
    outcomes[args[0]!] = result.signal ? "hung" : /regular file/.test(result.stderr + result.stdout) ? "refused" : `exit ${result.code}: ${(result.stdout + result.stderr).split("\n")[0]}`;
  }
  assert.deepEqual(outcomes, { health: "refused", inbox: "refused", tail: "refused" });
});

test("a compaction's marker killed amid a rewrite is the old one or the new one, never torn (else read as no marker: moved lines counted twice)", async (t) => {
  const dir = tempDir(t);
  const live = join(dir, "mailbox.jsonl");
  const marker = `${live}.compacting.json`;
  for (let run = 0; run < 40; run++) {
    const child = spawnFixture("marker-writer", [live]);
    await waitForOutput(child, "ready");
    await sleep(run % 20);
    child.kill("SIGKILL");
    await collect(child);
    const text = readFileSync(marker, "utf8");
    const read = (() => {
      try {
        return JSON.parse(text) as { archiveBytes?: number };
      } catch {
        return undefined;
      }
    })();
    assert.equal(read?.archiveBytes, 1000, `run ${run}: the marker reads ${JSON.stringify(text)}`);
  }
});

test("a message acknowledged in the old file of a compaction killed after its rename is found by id, by `status` and by a lookup", async (t) => {
  const tp = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const { peerpost, clock, reopen, stateDir } = tp;
  await traffic(peerpost, clock);
  const killed = await collect(spawnFixture("compactor", [stateDir], { PEERPOST_NOW: String(clock.now), PEERPOST_RETENTION_DAYS: "30", PEERPOST_FAULT: "compact-after-rename" }));
  assert.equal(killed.signal, "SIGKILL", killed.stderr);
  // A line a plain appender wrote into the old file after the compactor's last copy (it checked the path
  // before the rename, so it does not write it again): acknowledged, and only in the old file.
  const elsewhere = tempPeerpost(t);
  const { message } = await elsewhere.peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "written to the old file", anticipation: "reply" });
  appendFileSync(join(stateDir, "mailbox.jsonl.old"), readFileSync(join(elsewhere.stateDir, "mailbox.jsonl"), "utf8").trim().split("\n").at(-1)! + "\n");
  const status = await cli(cliEnv(tp, { PEERPOST_RETENTION_DAYS: "30" }), "status", message.id, "--json");
  assert.equal(status.code, 0, status.stdout);
  assert.equal(reopen().mailbox.find(message.id)?.id, message.id);
});

test("a lookup by id whose reads a compaction cut across does not report the message it moved as missing", async (t) => {
  const { peerpost, clock, reopen } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const { mailbox } = peerpost;
  const { message } = await mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "old", anticipation: "reply" });
  await mailbox.resolve({ id: message.id, by: "codex:b", resolution: "done" });
  for (let i = 0; i < 5; i++) await mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: `other ${i}`, anticipation: "fyi" });
  clock.now += 40 * DAY;
  await mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "new", anticipation: "reply" });
  mailbox.indexAll();
  const lookups = (reopen().mailbox as unknown as { lookups: MailboxLookups }).lookups;
  assert.equal(lookups.indexesAnswer(), true);
  // The reader takes the store's generation and the extent of its reads of the message's lines...
  const generation = lookups.storeGeneration();
  const stale = lookups.messageLines()!;
  // ...when another process compacts (and indexes, as every compaction does at its end).
  assert.ok((await reopen().mailbox.compact()).movedMessages >= 1);
  let asked = 0;
  const raced = new Proxy(lookups, {
    get(target, key) {
      if (key === "storeGeneration") return () => (asked++ === 0 ? generation : target.storeGeneration());
      if (key === "messageLines") return () => stale;
      const value = Reflect.get(target, key) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  assert.equal(findMessage(raced, () => undefined, message.id)?.id, message.id, "found, not reported missing");
});

test("a registration written into the old file of a compaction killed after its rename is not replayed after a newer one", async (t) => {
  const { register, env, stateDir } = await registryCompactionKilledAfterRename(t);
  // Written into the old file, found replaced, written again into the new one; then a newer registration.
  await register("one");
  await register("two");
  const agents = json(await cli(env, "agents", "--all", "--json")) as { sessions: Array<{ address: string; name?: string }> };
  const recorded = readFileSync(join(stateDir, "sessions.jsonl"), "utf8").split("\n").filter((line) => line.includes('"claude:s1"')).map((line) => (JSON.parse(line) as { name?: string }).name);
  assert.equal(agents.sessions.find((session) => session.address === "claude:s1")?.name, "two", `the registry's lines for claude:s1 end: ${recorded.slice(-4).join(", ")}`);
  assert.deepEqual(recorded.slice(-2), ["one", "two"]);
});
