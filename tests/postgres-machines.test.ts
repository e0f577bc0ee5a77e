// Two machines on one PostgreSQL store: two state dirs (two machine ids), each with its own MCP server,
// exchange a message and its answer, woken by LISTEN/NOTIFY. Then a real outage: the database server is
// stopped (a crash) and started again while both servers run; sends fail state_io_error meanwhile, hooks
// stay silent and fast, and afterwards nothing is missing from either side's view.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { connect, type Session } from "./helpers/mcp.js";
import { runHook } from "./helpers/hooks.js";
import { clusterScript, NO_POSTGRES, testDatabase } from "./helpers/postgres.js";
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
  assert.equal(store.schemaVersion, 1);
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
