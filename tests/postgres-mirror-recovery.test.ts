// A machine's mirror when things change under a running process: another process starts it over from
// another database, the database is dropped and made anew, the mirror's lock is busy right after a commit,
// the server's syncs fail while its LISTEN stays up. A mirror copies one database only, a committed write
// never reads as failed-and-not-stored, and hooks stop trusting a mirror nobody keeps current, nor one a
// follower vouches for that was started over from another database since. A mirror whose last line is torn
// (a sync that died mid-write) is cut back to its last whole line before the next sync appends.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";
import { hookBundle, runHook } from "./helpers/hooks.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { NO_POSTGRES, clusterScript, sql, testCluster, testDatabase } from "./helpers/postgres.js";
import { openPeerpost } from "../core/peerpost.js";
import { PeerpostError } from "../core/common/errors.js";
import { maskStoreUrl } from "../core/store/postgres/url.js";

function machine(t: TestContext, url: string) {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  return { home, stateDir, env: { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_STORE: url } };
}

/** A message from another machine of the same store. */
async function sendFrom(t: TestContext, url: string, from: string, body: string, to = "claude:me"): Promise<void> {
  const other = machine(t, url);
  const peerpost = openPeerpost({ env: other.env, home: other.home });
  try {
    await peerpost.mailbox.send({ from, fromVerified: true, to, body, anticipation: "reply" });
  } finally {
    await peerpost.backend.close();
  }
}

async function rows(url: string, query: string): Promise<Array<Record<string, unknown>>> {
  return ((await sql(url, query)) as { rows: Array<Record<string, unknown>> }).rows;
}

test("a server still on the old database copies none of its rows into the mirror another process started over from a new one", async (t) => {
  const first = await testDatabase(t);
  if (!first) return t.skip(NO_POSTGRES);
  const second = (await testDatabase(t))!;
  const laptop = machine(t, first);
  // A server started while PEERPOST_STORE named the first database follows it.
  const server = await connect(t, { ...laptop.env, PEERPOST_ADDRESS: "claude:laptop" });
  await server.call("health");
  await sendFrom(t, first, "codex:alpha", "alpha one");
  // PEERPOST_STORE now names the second database: a command there starts this machine's mirror over.
  await sendFrom(t, second, "codex:beta", "beta one");
  const now = openPeerpost({ env: { ...laptop.env, PEERPOST_STORE: second }, home: laptop.home });
  onCleanup(t, () => now.backend.close());
  assert.equal(await now.backend.sync(), true);
  // Mail in the first database: NOTIFY tells the old server, which syncs.
  await sendFrom(t, first, "codex:alpha", "alpha two");
  // The old server's sync after that NOTIFY finds the mirror started over, and stops.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await sendFrom(t, second, "codex:beta", "beta two");
  assert.equal(await now.backend.sync(), true);
  const mirror = readFileSync(join(laptop.stateDir, "mirror-mailbox.jsonl"), "utf8");
  assert.deepEqual(now.mailbox.inbox("claude:me").map((entry) => entry.body).sort(), ["beta one", "beta two"], `the mirror of the second database:\n${mirror}`);
  // The old server says why it shows nothing new, instead of mixing the two.
  const read = (await server.raw("read", {})).structuredContent as { warnings: Array<{ code: string; message: string }> };
  assert.ok(read.warnings.some((warning) => /started over from another database/.test(warning.message)), JSON.stringify(read));
});

test("a server running while its database is dropped and made anew starts its mirror over from the new one", { timeout: 120_000 }, async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const admin = (await testCluster())!.url;
  const name = new URL(url).pathname.slice(1);
  const laptop = machine(t, url);
  const server = await connect(t, { ...laptop.env, PEERPOST_ADDRESS: "claude:laptop" });
  await server.call("health");
  for (const body of ["old one", "old two", "old three", "before the drop"]) await sendFrom(t, url, "codex:alpha", body, "claude:laptop");
  await until(async () => JSON.stringify(await server.call("read")).includes("before the drop"), 20_000, "the server to show the old mail");
  // Dropped and made anew (a restore, a recreated container): its seqs start over.
  await sql(admin, `DROP DATABASE ${name} WITH (FORCE)`);
  await sql(admin, `CREATE DATABASE ${name}`);
  await sendFrom(t, url, "codex:beta", "after the recreate", "claude:laptop");
  let seen = "";
  await until(
    async () => {
      seen = JSON.stringify(await server.raw("read", {}));
      return seen.includes("after the recreate");
    },
    60_000,
    "the server to show the new database's mail",
  ).catch(() => undefined);
  const database = await rows(url, "SELECT seq, record::text AS record FROM peerpost_log_mailbox ORDER BY seq");
  assert.match(seen, /after the recreate/, `the new database:\n${database.map((row) => `${String(row.seq)} ${String(row.record)}`).join("\n")}`);
  assert.doesNotMatch(seen, /old one|before the drop/, "the old database's mail is gone with it");
  assert.deepEqual(database.map((row) => JSON.parse(String(row.record)).type), ["msg", "read"], "nothing of the old database was written into the new one");
});

test("a send committed while the mirror's lock is busy fails as stored, not as lost: a caller told so does not send it twice", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const lockfile = (await import("proper-lockfile")).default;
  const laptop = machine(t, url);
  const peerpost = openPeerpost({ env: { ...laptop.env, PEERPOST_LOCK_TIMEOUT_MS: "300" }, home: laptop.home });
  onCleanup(t, () => peerpost.backend.close());
  await peerpost.mailbox.send({ from: "claude:laptop", fromVerified: true, to: "codex:devbox", body: "first" });
  // Another process of this machine holds the mirror's lock (compacting it, copying a batch).
  const release = await lockfile.lock(join(laptop.stateDir, "mirror-mailbox.jsonl"), { realpath: false, stale: 60_000 });
  let error: unknown;
  try {
    await peerpost.mailbox.send({ from: "claude:laptop", fromVerified: true, to: "codex:devbox", body: "important" });
  } catch (caught) {
    error = caught;
  } finally {
    await release();
  }
  assert.ok(error instanceof PeerpostError, String(error));
  assert.equal(error.code, "state_io_error");
  assert.equal(error.details?.stored, true, error.message);
  assert.match(String(error.hint), /stored in the database: do not write them again/);
  assert.match(error.message, /not in this machine's mirror yet: Timed out/);
  const stored = await rows(url, "SELECT count(*)::int AS n FROM peerpost_log_mailbox WHERE record->>'body' = 'important'");
  assert.equal(stored[0]!.n, 1);
  // The next sync brings it here, once.
  assert.equal(await peerpost.backend.sync(), true);
  const devbox = openPeerpost({ env: laptop.env, home: laptop.home });
  onCleanup(t, () => devbox.backend.close());
  assert.deepEqual(devbox.mailbox.inbox("codex:devbox").map((entry) => entry.body), ["first", "important"]);
});

test("a server whose syncs fail while its LISTEN stays up stops telling hooks to trust its mirror", { timeout: 120_000 }, async (t) => {
  const script = await clusterScript();
  if (!script.serverBinDir()) return t.skip(NO_POSTGRES);
  // A cluster of its own: the test changes the role's password.
  const cluster = (await script.startCluster()) as { url: string };
  onCleanup(t, () => script.stopCluster(cluster));
  const oldUrl = cluster.url;
  const rotated = new URL(oldUrl);
  rotated.password = "rotated-password";
  const newUrl = rotated.toString();
  const laptop = machine(t, oldUrl);
  const env = { ...laptop.env, PEERPOST_MIRROR_TRUST_MS: "1000" };
  const server = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:laptop" });
  await server.call("health");
  await sendFrom(t, oldUrl, "codex:elsewhere", "first");
  const started = await runHook("claude-code", "session-start", { session_id: "me", cwd: "/work", hook_event_name: "SessionStart", source: "startup" }, env);
  assert.match(started.stdout, /1 new message/, started.stderr);
  const followers = join(laptop.stateDir, "followers");
  await until(() => existsSync(followers) && readdirSync(followers).length > 0, 20_000, "the server to mark itself as following");
  assert.equal(readFileSync(join(followers, readdirSync(followers)[0]!), "utf8").split("\n")[0], `postgres://${new URL(oldUrl).username}:***@${new URL(oldUrl).host}${new URL(oldUrl).pathname}`, "a follower names the store it follows");
  // The role's password changes: the server's LISTEN connection stays up, its pool's new connections fail
  // (its idle ones are ended here, as the pool's idle timeout would end them).
  await sql(oldUrl, "ALTER ROLE CURRENT_USER PASSWORD 'rotated-password'");
  await sql(newUrl, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'peerpost-server'");
  await sendFrom(t, newUrl, "codex:elsewhere", "second");
  await until(() => readdirSync(followers).length === 0, 20_000, "the server to unmark itself once its sync failed");
  // Past PEERPOST_MIRROR_TRUST_MS, the hook (with the new password) connects and finds the new mail.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const hook = await runHook("claude-code", "user-prompt", { session_id: "me", hook_event_name: "UserPromptSubmit", prompt: "hi" }, { ...env, PEERPOST_STORE: newUrl });
  assert.match(hook.stdout, /2 new messages/, hook.stdout + hook.stderr);
});

test("a prompt hook is not held by a FIFO among the followers' marks: it is no follower, and the hook connects", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const laptop = machine(t, url);
  // Not trusting the mirror for its age either: the hook connects unless a follower vouches for it.
  const env = { ...laptop.env, PATH: process.env.PATH ?? "", PEERPOST_MIRROR_TRUST_MS: "1" };
  const started = await runHook("claude-code", "session-start", { session_id: "me", cwd: laptop.home, hook_event_name: "SessionStart", source: "startup" }, env);
  assert.equal(started.code, 0, started.stderr);
  await sendFrom(t, url, "codex:elsewhere", "for the hook", "claude:me");
  mkdirSync(join(laptop.stateDir, "followers"), { recursive: true, mode: 0o700 });
  // A live pid's mark that is a FIFO: a plain read of it waited for a writer, past the hook's own deadline.
  execFileSync("mkfifo", [join(laptop.stateDir, "followers", String(process.pid))]);
  const child = spawn(process.execPath, [hookBundle("claude-code"), "user-prompt"], { env, stdio: ["pipe", "pipe", "pipe"] });
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const done = collect(child);
  child.stdin.end(JSON.stringify({ session_id: "me", hook_event_name: "UserPromptSubmit", prompt: "hi" }));
  const prompted = await done;
  clearTimeout(timer);
  assert.equal(prompted.signal, null, "the prompt hook hung on the FIFO");
  assert.match(prompted.stdout, /1 new message/, prompted.stdout + prompted.stderr);
});

/** One sync of the laptop's mirror in a new process, and the laptop session's inbox after it. */
async function syncOnce(laptop: ReturnType<typeof machine>, unreadOnly = false): Promise<string[]> {
  const peerpost = openPeerpost({ env: laptop.env, home: laptop.home });
  try {
    assert.equal(await peerpost.backend.sync(), true);
    return peerpost.mailbox.inbox("claude:me", { unreadOnly }).map((entry) => entry.body);
  } finally {
    await peerpost.backend.close();
  }
}

function mirroredSeqs(stateDir: string): string[] {
  return readFileSync(join(stateDir, "mirror-mailbox.jsonl"), "utf8").split("\n").flatMap((line) => {
    const seq = /"_seq":"(\d+)"}$/.exec(line)?.[1];
    return seq === undefined ? [] : [seq];
  });
}

/** A laptop whose mirror holds one message and then part of a line, as a sync that died mid-write leaves it. */
async function tornMirror(t: TestContext) {
  const url = await testDatabase(t);
  if (!url) return undefined;
  const laptop = machine(t, url);
  await sendFrom(t, url, "codex:elsewhere", "one");
  assert.deepEqual(await syncOnce(laptop), ["one"]);
  appendFileSync(join(laptop.stateDir, "mirror-mailbox.jsonl"), '{"type":"msg","id":"01J');
  return { url, laptop };
}

test("after a torn last line in the mirror, the next syncs copy each row once and in seq order", async (t) => {
  const torn = await tornMirror(t);
  if (!torn) return t.skip(NO_POSTGRES);
  const { url, laptop } = torn;
  for (const body of ["two", "three", "four"]) await sendFrom(t, url, "codex:elsewhere", body);
  await syncOnce(laptop);
  const inbox = await syncOnce(laptop);
  const seqs = mirroredSeqs(laptop.stateDir);
  assert.deepEqual(seqs, [...new Set(seqs)], `no row is mirrored twice: ${seqs.join(",")}`);
  assert.deepEqual(seqs, [...seqs].sort((a, b) => Number(a) - Number(b)), `rows are mirrored in seq order: ${seqs.join(",")}`);
  assert.deepEqual(inbox.sort(), ["four", "one", "three", "two"]);
});

test("after a torn last line in the mirror, a message read on another machine does not show unread here", async (t) => {
  const torn = await tornMirror(t);
  if (!torn) return t.skip(NO_POSTGRES);
  const { url, laptop } = torn;
  // Another machine: a message to claude:me, which claude:me reads there (its msg, then its read mark).
  const devbox = machine(t, url);
  const there = openPeerpost({ env: devbox.env, home: devbox.home });
  try {
    await there.mailbox.send({ from: "codex:elsewhere", fromVerified: true, to: "claude:me", body: "read elsewhere", anticipation: "fyi" });
    const id = there.mailbox.inbox("claude:me").find((entry) => entry.body === "read elsewhere")!.message.id;
    await there.mailbox.markRead("claude:me", [id]);
  } finally {
    await there.backend.close();
  }
  // One sync here (a prompt hook's): the unread mail is "one" alone.
  assert.deepEqual(await syncOnce(laptop, true), ["one"]);
});

test("a follower's mark does not vouch for a mirror another process started over from another database", async (t) => {
  const first = await testDatabase(t);
  if (!first) return t.skip(NO_POSTGRES);
  const second = (await testDatabase(t))!;
  const laptop = machine(t, first);
  // Only a follower's mark can spare this hook its connection.
  const env = { ...laptop.env, PEERPOST_MIRROR_TRUST_MS: "0" };
  await sendFrom(t, first, "codex:elsewhere", "unread in the first database");
  const started = await runHook("claude-code", "session-start", { session_id: "me", cwd: "/work", hook_event_name: "SessionStart", source: "startup" }, env);
  assert.match(started.stdout, /1 new message/, started.stderr);
  const server = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:laptop" });
  await server.call("health");
  const followers = join(laptop.stateDir, "followers");
  await until(() => existsSync(followers) && readdirSync(followers).length > 0, 20_000, "the server to mark itself as following");
  // A command run with PEERPOST_STORE naming the second database starts this machine's mirror over.
  const other = openPeerpost({ env: { ...env, PEERPOST_STORE: second }, home: laptop.home });
  onCleanup(t, () => other.backend.close());
  assert.equal(await other.backend.sync(), true);
  // The session's next prompt, on the first database: its unread message is still there.
  const prompt = await runHook("claude-code", "user-prompt", { session_id: "me", hook_event_name: "UserPromptSubmit", prompt: "hi" }, env);
  assert.match(prompt.stdout, /1 new message/, `the hook read the second database's mirror as the first's: ${JSON.stringify(prompt.stdout)} ${prompt.stderr}`);
});

test("a process on the old database never takes a mirror started over from another one as caught up with its own", async (t) => {
  const first = await testDatabase(t);
  if (!first) return t.skip(NO_POSTGRES);
  const second = (await testDatabase(t))!;
  const laptop = machine(t, first);
  const env = { ...laptop.env, PEERPOST_MIRROR_TRUST_MS: "30000" };
  await sendFrom(t, first, "codex:elsewhere", "alpha one");
  // The other database is further on: its seqs pass the first's.
  for (let i = 1; i <= 6; i++) await sendFrom(t, second, "codex:elsewhere", `b${i}`, "codex:someone");
  const started = await runHook("claude-code", "session-start", { session_id: "me", cwd: "/work", hook_event_name: "SessionStart", source: "startup" }, env);
  assert.match(started.stdout, /1 new message/, started.stderr);
  // A long-running process (a server, `peerpost ui`, `tail`) opened while PEERPOST_STORE named the first database.
  const old = openPeerpost({ env, home: laptop.home, kind: "server" });
  onCleanup(t, () => old.backend.close());
  assert.equal(await old.backend.sync(), true);
  // A command with PEERPOST_STORE naming the second database starts the mirror over from it.
  const other = openPeerpost({ env: { ...env, PEERPOST_STORE: second }, home: laptop.home });
  onCleanup(t, () => other.backend.close());
  assert.equal(await other.backend.sync(), true);
  // New mail in the first database, then the old process syncs (as its NOTIFY would make it).
  await sendFrom(t, first, "codex:elsewhere", "alpha two");
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await assert.rejects(old.backend.sync(), /started over from another database/, "the old process's sync says its mirror copies another database");
  const record = JSON.parse(readFileSync(join(laptop.stateDir, "mirror-mailbox.current.json"), "utf8")) as { store: string };
  assert.notEqual(record.store, maskStoreUrl(first), "the old process recorded the second database's copy current for the first");
  // The session's next prompt, on the first database, shows both of its messages.
  const prompt = await runHook("claude-code", "user-prompt", { session_id: "me", hook_event_name: "UserPromptSubmit", prompt: "hi" }, env);
  assert.match(prompt.stdout, /2 new messages/, `the prompt hook read the second database's copy: ${JSON.stringify(prompt.stdout)}`);
});
