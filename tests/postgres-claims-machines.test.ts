// Two machines on one PostgreSQL store (two state dirs, two mirrors): a PEERPOST_ROLES holder on one is
// reached, and kept to its role under enforce, from the other; an edit hook on a machine new to a large
// store sees a claim made at its end; and with the database away the claims a mirror holds still stand.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, cliIn } from "./helpers/cli.js";
import { tempRepo } from "./helpers/repo.js";
import { tempDir } from "./helpers/temp.js";
import { runHook } from "./helpers/hooks.js";
import { clusterScript, NO_POSTGRES, sql, testDatabase } from "./helpers/postgres.js";
import { openPeerpost } from "../core/peerpost.js";
import { LOCK_CLASS } from "../core/store/postgres/schema.js";

function machine(t: TestContext, url: string) {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  return { home, stateDir, env: { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_STORE: url } as Record<string, string> };
}

/** A live session on `on` (its host is this test's process) that took role reviewer from PEERPOST_ROLES. */
async function reviewerOn(t: TestContext, on: ReturnType<typeof machine>): Promise<void> {
  const peerpost = openPeerpost({ env: on.env, home: on.home });
  t.after(() => peerpost.backend.close());
  await peerpost.sessions.register({ host: "codex", address: "codex:rev", sessionId: "rev", hostPid: process.pid, source: "startup", roles: ["reviewer"] });
}

const writeInto = (repo: string, file: string) => ({ session_id: "editor", cwd: repo, hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: join(repo, file), content: "x" } });

test("a PEERPOST_ROLES holder on one machine is reached through its role from the other, and under enforce is no more reachable directly from there than at home", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const devbox = machine(t, url);
  const laptop = machine(t, url);
  await reviewerOn(t, devbox);
  const there = await cli(laptop.env, "send", "--to", "role:reviewer", "--json", "from the laptop");
  assert.equal(there.code, 0, there.stdout + there.stderr);
  assert.equal((JSON.parse(there.stdout) as { to: string }).to, "codex:rev");
  for (const m of [devbox, laptop]) m.env.PEERPOST_ROLE_ENFORCEMENT = "enforce";
  assert.equal((await cli(devbox.env, "role", "set", "lead", "user:lead")).code, 0);
  for (const m of [devbox, laptop]) {
    const direct = await cli(m.env, "send", "--from", "user:lead", "--to", "codex:rev", "--json", "direct");
    assert.equal((JSON.parse(direct.stdout) as { error?: { code: string } }).error?.code, "permission_denied", direct.stdout);
  }
});

test("an edit hook on a machine whose mirror is more than a sync batch behind sees a claim made at the store's end", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const repo = tempRepo(t);
  const a = machine(t, url);
  const b = machine(t, url);
  assert.equal((await cli(a.env, "send", "--from", "codex:a", "--to", "user:pat", "hi")).code, 0);
  await sql(url, `INSERT INTO peerpost_log_mailbox (scopes, record)
    SELECT ARRAY['claude:old-' || (i % 300)], json_build_object('v', 1, 'type', 'msg', 'id', '01J' || lpad(i::text, 23, '0'), 'from', 'claude:old-' || (i % 300),
      'fromVerified', true, 'to', 'codex:old-' || (i % 300), 'sentAt', '2026-01-01T00:00:00.000Z', 'anticipation', 'fyi', 'conversationId', '01J' || lpad(i::text, 23, '0'), 'hop', 1, 'body', 'old message ' || i)
    FROM generate_series(1, 2500) AS i`);
  assert.equal((await cliIn(repo, a.env, "claim", "--as", "user:alice", "src/a.ts")).code, 0);
  // A session started on B before (its state dir is there), whose mailbox mirror is new.
  mkdirSync(b.stateDir, { recursive: true, mode: 0o700 });
  const hook = await runHook("claude-code", "pre-tool", writeInto(repo, "src/a.ts"), b.env);
  assert.equal(hook.code, 0, hook.stderr);
  assert.match(hook.stdout, /"permissionDecision":"deny"/);
});

test("with the database away, the edit hook and the guard still refuse what the claims a machine's mirror holds keep out, and people's reads show the mirror", async (t) => {
  const script = await clusterScript();
  if (!script.serverBinDir()) return t.skip(NO_POSTGRES);
  // A cluster of this test's own: it is stopped midway.
  const cluster = (await script.startCluster()) as { url: string };
  t.after(() => script.stopCluster(cluster));
  const repo = tempRepo(t);
  const a = machine(t, cluster.url);
  const b = machine(t, cluster.url);
  assert.equal((await cliIn(repo, a.env, "claim", "--as", "user:alice", "src/a.ts")).code, 0);
  assert.equal((await cliIn(repo, b.env, "guard", "install")).code, 0);
  // B's sessions started there (a SessionStart hook makes the state dir, and its mirror).
  assert.equal((await cliIn(repo, b.env, "claims")).code, 0);
  assert.match((await runHook("claude-code", "pre-tool", writeInto(repo, "src/a.ts"), b.env)).stdout, /"permissionDecision":"deny"/, "while the database answers");
  script.stopServer(cluster, "immediate");
  for (const m of [a, b]) {
    const down = await runHook("claude-code", "pre-tool", writeInto(repo, "src/a.ts"), m.env);
    assert.equal(down.code, 0);
    assert.match(down.stdout, /"permissionDecision":"deny"/, m.stateDir);
  }
  // People's reads show the mirror, with a warning; writes fail.
  const listed = await cliIn(repo, a.env, "claims", "--json");
  assert.equal(listed.code, 0, listed.stdout + listed.stderr);
  const { claims, warnings } = JSON.parse(listed.stdout) as { claims: Array<{ holder: string }>; warnings: Array<{ code: string }> };
  assert.deepEqual([claims.map((claim) => claim.holder), warnings.map((warning) => warning.code)], [["user:alice"], ["store_unreachable"]]);
  assert.match((await cliIn(repo, a.env, "claims")).stderr, /^warning: .*What this machine copied from it last is shown/m);
  const write = await cliIn(repo, a.env, "claim", "--as", "user:bob", "--json", "src/b.ts");
  assert.equal((JSON.parse(write.stdout) as { error: { code: string } }).error.code, "state_io_error");
  writeFileSync(join(repo, "src/a.ts"), "changed\n");
  const gitEnv = { ...b.env, PATH: process.env.PATH ?? "", GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.invalid", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.invalid" };
  const committed = spawnSync("git", ["commit", "-qam", "into alice's claim"], { cwd: repo, env: gitEnv, encoding: "utf8" });
  assert.notEqual(committed.status, 0, "the commit went through");
  assert.match(committed.stderr, /"src\/a\.ts": claimed by user:alice/);
});

test("a write that waits past the statement timeout for a lock another machine holds says the database was busy and nothing was stored", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const a = machine(t, url);
  assert.equal((await cli(a.env, "send", "--from", "codex:a", "--to", "user:pat", "first")).code, 0);
  // Another machine's long transaction holds the mailbox log's lock.
  const { default: pg } = await import("pg");
  const holder = new pg.Client({ connectionString: url });
  holder.on("error", () => undefined);
  await holder.connect();
  await holder.query("BEGIN");
  await holder.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [LOCK_CLASS, "mailbox"]);
  // A hook's store: its statement timeout is 1.5 s.
  const peerpost = openPeerpost({ env: a.env, home: a.home, kind: "hook" });
  t.after(() => peerpost.backend.close());
  const refused = await peerpost.mailbox.send({ from: "codex:a", fromVerified: true, to: "user:pat", body: "second" }).then(
    () => undefined,
    (error: { code: string; details: { code: string }; hint: string }) => error,
  );
  await holder.query("ROLLBACK");
  await holder.end();
  assert.equal(refused?.code, "state_io_error");
  assert.equal(refused?.details.code, "57014");
  assert.match(refused?.hint ?? "", /longer than the statement timeout[^]*nothing was stored/);
});

test("a role holder on another machine that ended and came back as a new session: the role reaches the new one from everywhere, not ambiguous for good", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const devbox = machine(t, url);
  const laptop = machine(t, url);
  const peerpost = openPeerpost({ env: devbox.env, home: devbox.home });
  t.after(() => peerpost.backend.close());
  // Yesterday's reviewer, whose host has exited, then today's, running.
  const old = spawnSync(process.execPath, ["-e", ""]);
  await peerpost.sessions.register({ host: "codex", address: "codex:rev-old", sessionId: "rev-old", hostPid: old.pid!, source: "startup", roles: ["reviewer"] });
  await new Promise((resolve) => setTimeout(resolve, 20));
  await peerpost.sessions.register({ host: "codex", address: "codex:rev-new", sessionId: "rev-new", hostPid: process.pid, source: "startup", roles: ["reviewer"] });
  for (const m of [devbox, laptop]) {
    const sent = await cli(m.env, "send", "--from", "user:pat", "--to", "role:reviewer", "--json", "review, please");
    assert.equal((JSON.parse(sent.stdout) as { to: string }).to, "codex:rev-new", sent.stdout);
  }
});
