// A prompt hook on a PostgreSQL store when no server on the machine follows the database: it reads the
// local mirror without connecting while a process found the mirror current within PEERPOST_MIRROR_TRUST_MS,
// and connects (and records the mirror current again) once that is longer ago. Proven with a real cluster
// whose server is stopped: a hook that flags mail then cannot have connected.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { runHook } from "./helpers/hooks.js";
import { clusterScript, NO_POSTGRES } from "./helpers/postgres.js";
import { openPeerpost } from "../core/peerpost.js";
import { errorLogPath } from "../core/common/error-log.js";
import { mirrorCurrentWithin } from "../core/store/postgres/mirror-age.js";
import { maskStoreUrl } from "../core/store/postgres/url.js";

const TRUST_MS = 4000;

function laptop(t: TestContext, url: string) {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  return { home, stateDir, env: { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_STORE: url, PEERPOST_MIRROR_TRUST_MS: String(TRUST_MS) } };
}

/** Sends `body` to claude:me from another machine (a state dir of its own). */
async function sendFromElsewhere(t: TestContext, url: string, body: string): Promise<void> {
  const home = tempDir(t);
  const peerpost = openPeerpost({ env: { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_STORE: url }, home });
  try {
    await peerpost.mailbox.send({ from: "codex:elsewhere", fromVerified: true, to: "claude:me", body, anticipation: "fyi" });
  } finally {
    await peerpost.backend.close();
  }
}

/** The session's start on this machine: registers it and creates the state dir (prompt hooks never do). */
function sessionStart(env: Record<string, string>) {
  return runHook("claude-code", "session-start", { session_id: "me", cwd: "/work", hook_event_name: "SessionStart", source: "startup" }, env);
}

function prompt(env: Record<string, string>) {
  return runHook("claude-code", "user-prompt", { session_id: "me", hook_event_name: "UserPromptSubmit", prompt: "hi" }, env);
}

/** When the mailbox's mirror was last found current, as recorded in the state dir. */
function currentAsOf(stateDir: string): number {
  return (JSON.parse(readFileSync(join(stateDir, "mirror-mailbox.current.json"), "utf8")) as { asOf: number }).asOf;
}

/**
 * A cluster of its own (its server is stopped and started), a message for claude:me from another machine,
 * and the session's start on this one: with no mirror yet, its hook connects, copies the mail, flags it,
 * and records the mirror current. Undefined where no PostgreSQL can run.
 */
async function startedWithMail(t: TestContext) {
  const script = await clusterScript();
  if (!script.serverBinDir()) return undefined;
  const cluster = (await script.startCluster()) as { url: string };
  t.after(() => script.stopCluster(cluster));
  const machine = laptop(t, cluster.url);
  await sendFromElsewhere(t, cluster.url, "first");
  const started = await sessionStart(machine.env);
  assert.match(started.stdout, /1 new message/, started.stderr);
  return { script, cluster, machine };
}

test("with no server following, a prompt hook reads a mirror found current within PEERPOST_MIRROR_TRUST_MS without connecting, and connects once it is older", async (t) => {
  const started = await startedWithMail(t);
  if (!started) return t.skip(NO_POSTGRES);
  const { script, cluster, machine } = started;
  const asOf = currentAsOf(machine.stateDir);

  // A second message, then the database goes away: a hook that still flags mail read the mirror alone.
  await sendFromElsewhere(t, cluster.url, "second");
  script.stopServer(cluster, "immediate");
  const offline = await prompt(machine.env);
  assert.ok(Date.now() - asOf < TRUST_MS, "the check ran within the bound (a slow machine would make it prove nothing)");
  // The trade-off, as documented: the second message shows only once the mirror is checked again.
  assert.match(offline.stdout, /1 new message/, `the hook flagged mail from the mirror with the database down: ${offline.stdout} ${offline.stderr}`);

  // Past the bound the hook connects again: with the database back, it finds the second message.
  script.startServer(cluster);
  const waitMs = asOf + TRUST_MS + 50 - Date.now();
  if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
  const reconnected = await prompt(machine.env);
  assert.match(reconnected.stdout, /2 new messages/, reconnected.stderr);
  assert.ok(currentAsOf(machine.stateDir) > asOf, "the connecting hook recorded the mirror current again");
});

test("with the database unreachable and the mirror older than the bound, a prompt hook gives up within about a second: silent, exit 0, a coded error with a hint in the error log", async (t) => {
  const started = await startedWithMail(t);
  if (!started) return t.skip(NO_POSTGRES);
  const { script, cluster, machine } = started;
  script.stopServer(cluster, "immediate");

  const startedAt = Date.now();
  const hook = await prompt({ ...machine.env, PEERPOST_MIRROR_TRUST_MS: "0" });
  const elapsed = Date.now() - startedAt;
  assert.equal(hook.code, 0);
  assert.equal(hook.stdout, "", "nothing from a mirror it may not trust");
  assert.ok(elapsed < 4000, `gave up well before the hook's 5 s deadline: ${elapsed} ms`);
  const logged = readFileSync(errorLogPath(machine.stateDir), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { code?: string; error: string; hint?: string });
  const last = logged.at(-1)!;
  assert.equal(last.code, "state_io_error");
  assert.match(last.error, /PostgreSQL store/);
  assert.match(last.hint ?? "", /not reachable/, "the log says what to do");
  assert.ok(!last.error.includes(new URL(cluster.url).password), "the password is never logged");
});

test("a mirror is trusted only as a copy of the same store, within the bound, and never from a record dated in the future", (t) => {
  const stateDir = tempDir(t);
  const store = maskStoreUrl("postgres://alice:secret@db.internal:5432/peerpost");
  const record = (asOf: number, of = store) => writeFileSync(join(stateDir, "mirror-mailbox.current.json"), JSON.stringify({ v: 1, store: of, asOf }) + "\n", { mode: 0o600 });
  const now = Date.now();
  record(now - 1000);
  assert.equal(mirrorCurrentWithin(stateDir, "mailbox", store, 30_000, now), true);
  assert.equal(mirrorCurrentWithin(stateDir, "mailbox", store, 999, now), false, "older than the bound");
  assert.equal(mirrorCurrentWithin(stateDir, "mailbox", store, 0, now), false, "0 never trusts");
  assert.equal(mirrorCurrentWithin(stateDir, "mailbox", maskStoreUrl("postgres://alice@other:5432/peerpost"), 30_000, now), false, "another store");
  record(now + 60_000);
  assert.equal(mirrorCurrentWithin(stateDir, "mailbox", store, 30_000, now), false, "a clock set back");
  assert.equal(mirrorCurrentWithin(stateDir, "sessions", store, 30_000, now), false, "no record for that log");
});
