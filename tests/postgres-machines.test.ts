// Two machines on one PostgreSQL store: two state dirs (two machine ids), each with its own MCP server,
// exchange a message and its answer, woken by LISTEN/NOTIFY. Then a real outage: the database server is
// stopped (a crash) and started again while both servers run; sends fail state_io_error meanwhile, hooks
// stay silent and fast, and afterwards nothing is missing from either side's view.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { connect, type Session } from "./helpers/mcp.js";
import { runHook } from "./helpers/hooks.js";
import { clusterScript, NO_POSTGRES, sql, testDatabase } from "./helpers/postgres.js";
import { openPeerpost, type Peerpost } from "../core/peerpost.js";
import { SYNC_BATCH } from "../core/store/postgres/mirror.js";
import { SCHEMA_VERSION } from "../core/store/postgres/schema.js";
import lockfile from "proper-lockfile";
import { until } from "./helpers/poll.js";

interface Machine {
  home: string;
  stateDir: string;
  env: Record<string, string>;
}

function machine(t: TestContext, url: string): Machine {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  return { home, stateDir, env: { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_STORE: url } };
}

/** A peerpost on `on` (or on another store, by `env`), closed when the test ends. */
function peerpostOn(t: TestContext, on: Machine, env = on.env): Peerpost {
  const peerpost = openPeerpost({ env, home: on.home });
  t.after(() => peerpost.backend.close());
  return peerpost;
}

/** The prompt hook of session `claude:me`, with `env`. */
function promptMe(env: Record<string, string>) {
  return runHook("claude-code", "user-prompt", { session_id: "me", hook_event_name: "UserPromptSubmit", prompt: "hi" }, env);
}

/** What a hook told the session. */
function contextOf(hook: { stdout: string }): string {
  return (JSON.parse(hook.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
}

/** Whether a server on `on` tells its hooks to trust the mirrors (a live follower's mark). */
function followed(on: Machine): boolean {
  const followers = join(on.stateDir, "followers");
  return existsSync(followers) && readdirSync(followers).length > 0;
}

async function server(t: TestContext, on: Machine, address: string): Promise<Session> {
  const session = await connect(t, { ...on.env, PEERPOST_ADDRESS: address });
  await session.call("health");
  return session;
}

async function exchange(laptop: Session, devbox: Session, question: string): Promise<string> {
  const sent = await laptop.call("message", { to: "codex:devbox", message: question, anticipation: "reply" });
  assert.equal(sent.ok, true, JSON.stringify(sent));
  const messageId = sent.messageId as string;
  const answer = laptop.call("wait", { messageId, timeoutMs: 30_000 });
  const incoming = await devbox.call("wait", { timeoutMs: 20_000 });
  assert.equal(incoming.outcome, "message", JSON.stringify(incoming));
  assert.equal((incoming.message as { id: string }).id, messageId);
  const replied = await devbox.call("reply", { messageId, resolution: "reply", message: `answer to ${question}` });
  assert.equal(replied.ok, true, JSON.stringify(replied));
  const waited = await answer;
  assert.equal(waited.outcome, "reply", JSON.stringify(waited));
  assert.match((waited.reply as { envelope: string }).envelope, new RegExp(`answer to ${question}`));
  return messageId;
}

test("two state dirs sharing one database exchange a message and its answer; agents shows each machine", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const laptopDir = machine(t, url);
  const devboxDir = machine(t, url);
  const laptop = await server(t, laptopDir, "claude:laptop");
  const devbox = await server(t, devboxDir, "codex:devbox");
  await exchange(laptop, devbox, "ping");
  const agents = await laptop.call("agents");
  const rows = agents.sessions as Array<{ address: string; machine: string; local: boolean; alive: boolean }>;
  const other = rows.find((row) => row.address === "codex:devbox")!;
  const self = rows.find((row) => row.address === "claude:laptop")!;
  assert.equal(other.local, false);
  assert.equal(other.alive, false, "another machine's pid is never checked here");
  assert.notEqual(other.machine, self.machine);
  assert.equal(self.local, true);
  // The state dir keeps only machine-local things: the machine id, mirrors (caches), followers, logs.
  for (const dir of [laptopDir.stateDir, devboxDir.stateDir]) {
    assert.ok(!existsSync(join(dir, "mailbox.jsonl")) && !existsSync(join(dir, "sessions.jsonl")), readdirSync(dir).join(", "));
    assert.ok(existsSync(join(dir, "machine-id")));
  }
  // A session on the laptop that only has hooks: registered by SessionStart, told of mail from the devbox by
  // its prompt hook, which reads the mirror the laptop's server keeps (it does not connect while one follows).
  const start = await runHook("claude-code", "session-start", { session_id: "hooked", cwd: "/work", hook_event_name: "SessionStart", source: "startup" }, laptopDir.env);
  assert.equal(start.code, 0, start.stderr);
  const sent = await devbox.call("message", { to: "claude:hooked", message: "for the hook" });
  assert.equal(sent.ok, true, JSON.stringify(sent));
  await until(async () => /1 new message/.test((await runHook("claude-code", "user-prompt", { session_id: "hooked", hook_event_name: "UserPromptSubmit", prompt: "hi" }, laptopDir.env)).stdout), 10_000, "the prompt hook to flag the devbox's message");
  const health = await laptop.call("health");
  const store = health.store as { kind: string; reachable: boolean; schemaVersion: number; location: string };
  assert.equal(store.kind, "postgres");
  assert.equal(store.reachable, true);
  assert.equal(store.schemaVersion, SCHEMA_VERSION);
  assert.ok(!JSON.stringify(health).includes(new URL(url).password), "the password is never shown");
});

test("a database outage: sends fail state_io_error with a hint, hooks stay silent, and after the restart nothing is missed", async (t) => {
  const script = await clusterScript();
  if (!script.serverBinDir()) return t.skip(NO_POSTGRES);
  const cluster = (await script.startCluster()) as { url: string };
  t.after(() => script.stopCluster(cluster));
  const laptopDir = machine(t, cluster.url);
  const devboxDir = machine(t, cluster.url);
  const laptop = await server(t, laptopDir, "claude:laptop");
  const devbox = await server(t, devboxDir, "codex:devbox");
  const before = await exchange(laptop, devbox, "before");
  // What a prompt hook of another session on the laptop costs here while the database is up: the yardstick below.
  const prompt = { session_id: "other", hook_event_name: "UserPromptSubmit", prompt: "hi" };
  const upStarted = Date.now();
  assert.equal((await runHook("claude-code", "user-prompt", prompt, laptopDir.env)).code, 0);
  const upMs = Date.now() - upStarted;

  script.stopServer(cluster, "immediate");
  const failed = await laptop.call("message", { to: "codex:devbox", message: "while down" });
  assert.equal(failed.ok, false);
  const error = failed.error as { code: string; hint: string; message: string };
  assert.equal(error.code, "state_io_error");
  assert.match(error.hint, /not reachable/);
  assert.ok(!error.message.includes(new URL(cluster.url).password));
  // A prompt hook of another session on the laptop (no server follows the database now): silent, exit 0, quick.
  const started = Date.now();
  const hook = await runHook("claude-code", "user-prompt", prompt, laptopDir.env);
  assert.equal(hook.code, 0);
  assert.equal(hook.stdout, "");
  // Refused at once, not held until the hook's 5 s deadline.
  const downMs = Date.now() - started;
  assert.ok(downMs < upMs + 3000, `the hook gave up quickly: ${downMs} ms, against ${upMs} ms with the database up`);

  script.startServer(cluster);
  // Sent from the devbox right after the restart: the laptop's server must see it though its LISTEN was down.
  await until(async () => (await devbox.call("message", { to: "claude:laptop", message: "after the outage" })).ok === true, 30_000, "a send to succeed after the restart");
  await until(async () => ((await laptop.call("read")).count as number) >= 1 || false, 30_000, "the laptop to read the message sent after the restart");
  const status = await laptop.call("status", { messageId: before });
  assert.equal((status.message as { status: string }).status, "replied", JSON.stringify(status));
  await exchange(laptop, devbox, "after");
});

/**
 * A large shared store and a machine new to it: a first message (schema and tables), `batches` sync
 * batches of other sessions' traffic planted as rows straight into the database (no peerpost writes that
 * much that fast), then `newest` for claude:me.
 */
async function newMachineOnLargeStore(t: TestContext, url: string, batches: number, newest: string) {
  const sender = peerpostOn(t, machine(t, url));
  await sender.mailbox.send({ from: "codex:a", fromVerified: true, to: "codex:b", body: "schema and tables" });
  await sql(url, `INSERT INTO peerpost_log_mailbox (scopes, record)
    SELECT ARRAY['claude:old-' || (i % 300)], json_build_object('v', 1, 'type', 'msg', 'id', '01J' || lpad(i::text, 23, '0'), 'from', 'claude:old-' || (i % 300),
      'fromVerified', true, 'to', 'codex:old-' || (i % 300), 'sentAt', '2026-01-01T00:00:00.000Z', 'anticipation', 'fyi', 'conversationId', '01J' || lpad(i::text, 23, '0'), 'hop', 1, 'body', 'old message ' || i)
    FROM generate_series(1, ${batches * SYNC_BATCH}) AS i`);
  await sender.mailbox.send({ from: "codex:a", fromVerified: true, to: "claude:me", body: newest, anticipation: "reply" });
  const devbox = machine(t, url);
  return { devbox, mirror: join(devbox.stateDir, "mirror-mailbox.jsonl") };
}

test("a machine new to a large shared store: its first hook copies one batch and says nothing, a detached run catches the mirror up, and the next hook flags the mail", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  // Years of other sessions' traffic (five sync batches), then the one message for this session.
  const { devbox, mirror } = await newMachineOnLargeStore(t, url, 5, "the one for me");
  const lines = () => (existsSync(mirror) ? readFileSync(mirror, "utf8").split("\n").length - 1 : 0);
  // A catch-up under way already (this live process, named in the run file): hooks start no other.
  const runFile = join(devbox.stateDir, "index-run.pid");
  mkdirSync(devbox.stateDir, { recursive: true, mode: 0o700 });
  writeFileSync(runFile, `${process.pid}\n`, { mode: 0o600 });
  const start = await runHook("claude-code", "session-start", { session_id: "me", hook_event_name: "SessionStart", source: "startup" }, devbox.env);
  assert.deepEqual([start.code, start.stdout], [0, ""], start.stderr);
  assert.ok(lines() <= SYNC_BATCH, `the hook copied at most one batch: ${lines()} lines`);
  assert.equal(existsSync(`${mirror}.lock`), false, "and left no lock");
  assert.equal((await promptMe(devbox.env)).stdout, "");
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.equal(readFileSync(runFile, "utf8"), `${process.pid}\n`, "no other index-run started (each writes its pid there)");
  assert.ok(lines() <= 2 * SYNC_BATCH, `no catch-up started beside the running one: ${lines()} lines`);
  // That run gone: the next hook starts the detached `server.mjs index-run`, which copies the rest and clears its run file.
  rmSync(runFile);
  assert.equal((await promptMe(devbox.env)).stdout, "");
  await until(() => readFileSync(mirror, "utf8").includes("the one for me") && !existsSync(runFile), 60_000, "the detached catch-up to reach the newest row and finish");
  const flagged = await promptMe(devbox.env);
  assert.equal(flagged.code, 0, flagged.stderr);
  assert.match(contextOf(flagged), /1 new message from other AI agents on this machine \(codex:a\)/);
  assert.equal(lines(), 5 * SYNC_BATCH + 2, "every row once");
});

test("a new machine's server tells hooks to trust its mirror only once the mirror holds the store", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const { devbox, mirror } = await newMachineOnLargeStore(t, url, 10, "the newest one");
  // The server follows the database from its start, before any tool call.
  await connect(t, { ...devbox.env, PEERPOST_ADDRESS: "codex:devbox" });
  const deadline = Date.now() + 60_000;
  while (!followed(devbox)) {
    assert.ok(Date.now() < deadline, "the server never marked itself as following");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  // What a prompt hook reads from now on, without connecting: it must already hold the newest message.
  assert.match(readFileSync(mirror, "utf8"), /the newest one/);
  assert.match(contextOf(await promptMe(devbox.env)), /1 new message from other AI agents on this machine \(codex:a\)/);
});

test("rows this peerpost cannot read (a newer one's records) are passed over and reported: mirrors and sends go on past them", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const laptop = machine(t, url);
  const sender = peerpostOn(t, laptop);
  await sender.mailbox.send({ from: "codex:a", fromVerified: true, to: "codex:b", body: "first" });
  const devbox = machine(t, url);
  const reader = peerpostOn(t, devbox);
  assert.equal(await reader.backend.sync({ only: ["mailbox"] }), true);
  const future = (kind: string) => sql(url, `INSERT INTO peerpost_log_mailbox (scopes, record) VALUES (ARRAY['claude:me'], '{"v":1,"type":"${kind}","id":"x"}')`);
  await future("future-kind");
  // The laptop's own mirror meets the row first: its send must still find its record.
  const sent = await sender.mailbox.send({ from: "codex:a", fromVerified: true, to: "claude:me", body: "sent after", anticipation: "reply" });
  assert.equal(sent.created, true);
  assert.equal(await reader.backend.sync({ only: ["mailbox"], budget: SYNC_BATCH }), true);
  const mirror = join(devbox.stateDir, "mirror-mailbox.jsonl");
  assert.match(readFileSync(mirror, "utf8"), /sent after/);
  // One at the very end, with nothing readable after it: passed over once, never read again.
  await future("another-kind");
  assert.equal(await reader.backend.sync({ only: ["mailbox"] }), true);
  assert.equal(await reader.backend.sync({ only: ["mailbox"] }), true);
  const reported = readFileSync(join(devbox.stateDir, "logs", "errors.log"), "utf8").split("\n").filter((line) => line.includes("Passed over"));
  assert.equal(reported.length, 2, reported.join("\n"));
  assert.match(reported[1]!, /upgrade peerpost here/);
  // A mirror rebuilt from nothing (it is derived data) reads every readable row again: what was passed over extended only the old one.
  rmSync(mirror);
  assert.equal(await reader.backend.sync({ only: ["mailbox"] }), true);
  assert.match(readFileSync(mirror, "utf8"), /"body":"first".*\n.*"body":"sent after"/s);
  assert.match(contextOf(await promptMe(devbox.env)), /1 new message from other AI agents on this machine \(codex:a\)/);
});

test("a mirror continues only the database it was copied from: PEERPOST_STORE pointed at another one starts it over", async (t) => {
  const first = await testDatabase(t);
  if (!first) return t.skip(NO_POSTGRES);
  const second = (await testDatabase(t))!;
  const laptop = machine(t, first);
  const sendTo = (url: string, from: string, body: string) =>
    peerpostOn(t, laptop, { ...laptop.env, PEERPOST_STORE: url }).mailbox.send({ from, fromVerified: true, to: "claude:me", body, anticipation: "reply" });
  await sendTo(first, "codex:alpha", "in the first database");
  await sendTo(second, "codex:beta", "in the second database");
  const told = async (url: string) => contextOf(await promptMe({ ...laptop.env, PEERPOST_STORE: url }));
  assert.match(await told(first), /1 new message .*\(codex:alpha\)/);
  // The same state dir on the second database: the same seqs there are other rows.
  const second2 = await told(second);
  assert.match(second2, /1 new message .*\(codex:beta\)/);
  assert.doesNotMatch(second2, /alpha/);
  const mirror = readFileSync(join(laptop.stateDir, "mirror-mailbox.jsonl"), "utf8");
  assert.ok(mirror.includes("in the second database") && !mirror.includes("in the first database"), mirror);
});

test("a server whose first catch-up fails (its mirror's lock held) tries again, and tells hooks to trust the mirror only once it succeeded", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const laptop = machine(t, url);
  const sender = peerpostOn(t, laptop);
  await sender.mailbox.send({ from: "codex:a", fromVerified: true, to: "claude:me", body: "waiting", anticipation: "reply" });
  const devbox = machine(t, url);
  mkdirSync(devbox.stateDir, { recursive: true, mode: 0o700 });
  const mirror = join(devbox.stateDir, "mirror-mailbox.jsonl");
  const release = await lockfile.lock(mirror, { realpath: false, stale: 60_000 });
  await connect(t, { ...devbox.env, PEERPOST_ADDRESS: "codex:devbox", PEERPOST_LOCK_TIMEOUT_MS: "200" });
  await until(() => existsSync(join(devbox.stateDir, "logs", "errors.log")), 20_000, "the failed catch-up to be logged");
  assert.equal(followed(devbox), false, "not following while the mirror could not be brought up to date");
  await release();
  await until(() => followed(devbox), 20_000, "the retried catch-up to succeed");
  assert.match(readFileSync(mirror, "utf8"), /"body":"waiting"/);
});
