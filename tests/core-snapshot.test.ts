// Snapshots that are valid JSON but wrong are not trusted: the reader rebuilds from the log, `health`
// says so with `snapshot_rebuilt`, and `peerpost doctor` lists the invalid snapshot.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempPeerpost } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { CLI, connect } from "./helpers/mcp.js";
import { changeRole } from "../core/roles/roles.js";

type Snapshot = { log: { offset: number }; state: { messages: Record<string, Record<string, unknown>>; idempotency: Record<string, string> } };

/** Each way a hand-edited or damaged snapshot can still be valid JSON. */
const DAMAGE: Record<string, (snapshot: Snapshot) => void> = {
  "messages is null": (snapshot) => void ((snapshot.state as unknown as { messages: null }).messages = null),
  "a message with a wrong field type": (snapshot) => void (Object.values(snapshot.state.messages)[0]!.hop = "x"),
  "a message without its reminders": (snapshot) => void delete Object.values(snapshot.state.messages)[0]!.reminders,
  "a message under another id": (snapshot) => {
    const [id, message] = Object.entries(snapshot.state.messages)[0]!;
    delete snapshot.state.messages[id];
    snapshot.state.messages["01JZZZZZZZZZZZZZZZZZZZZZZZ"] = message;
  },
  "an offset past the snapshot's position": (snapshot) => void (Object.values(snapshot.state.messages)[0]!.offset = snapshot.log.offset + 10),
  "a message outside the scope": (snapshot) => {
    const message = Object.values(snapshot.state.messages)[0]!;
    snapshot.state.messages["01JYYYYYYYYYYYYYYYYYYYYYYY"] = { ...message, id: "01JYYYYYYYYYYYYYYYYYYYYYYY", to: "grok:someone-else", from: "claude:a" };
  },
  "an idempotency key naming no held message": (snapshot) => void (snapshot.state.idempotency["claude:a\nk"] = "01JXXXXXXXXXXXXXXXXXXXXXXX"),
  "an unknown field": (snapshot) => void (Object.values(snapshot.state.messages)[0]!.extra = true),
};

async function seeded(t: Parameters<typeof tempPeerpost>[0]) {
  const store = tempPeerpost(t);
  await store.peerpost.sessions.register({ host: "codex", address: "codex:b", sessionId: "b", source: "startup" });
  for (let i = 0; i < 3; i++) await store.peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: `hello ${i}`, anticipation: "reply" });
  await store.peerpost.mailbox.persist(store.peerpost.mailbox.view("codex:b"));
  const cache = join(store.stateDir, "cache");
  const file = join(cache, readdirSync(cache)[0]!);
  return { ...store, file, original: readFileSync(file, "utf8") };
}

test("a snapshot holding every kind of state the fold makes is trusted as it is (a new field must be added to the check)", async (t) => {
  const { peerpost, stateDir, reopen, clock } = tempPeerpost(t);
  for (const address of ["codex:b", "claude:c"]) await peerpost.sessions.register({ host: address.startsWith("codex") ? "codex" : "claude-code", address, sessionId: address.split(":")[1]!, source: "startup" });
  writeFileSync(join(stateDir, "procedure.md"), "review carefully");
  await changeRole(peerpost, { role: "reviewer", holder: "codex:b", by: "user:pat", procedureFile: join(stateDir, "procedure.md") });
  const { message } = await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", via: "role:reviewer", body: "please review", anticipation: "reply", idempotencyKey: "k1" });
  const second = (await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "and this", anticipation: "action" })).message;
  await peerpost.mailbox.markDelivered("codex:b", second.id, "test");
  await peerpost.mailbox.markNoticed("codex:b", [second.id], "hook:stop");
  await peerpost.mailbox.markRead("codex:b", [second.id]);
  clock.now += 60_000;
  await peerpost.mailbox.remind("codex:b", second.id, "hook:stop");
  await peerpost.mailbox.resolve({ id: second.id, by: "codex:b", resolution: "decline", text: "no" });
  await changeRole(peerpost, { role: "reviewer", holder: "claude:c", by: "user:pat" });
  for (const scope of ["codex:b", "claude:c", "claude:a"]) await peerpost.mailbox.persist(peerpost.mailbox.view(scope));
  const moved = reopen().mailbox.view("claude:c");
  assert.ok(moved.state.messages[message.id]?.handovers?.length, "the role mail was handed over");
  for (const scope of ["codex:b", "claude:c", "claude:a"]) {
    const view = reopen().mailbox.view(scope);
    assert.equal(view.cacheState, "loaded", `${scope}: ${view.cacheProblem}`);
  }
  const held = reopen().mailbox.view("codex:b").state.messages[second.id]!;
  assert.ok(held.delivered && held.noticed && held.read && held.resolved && held.reminders.count === 1, JSON.stringify(held));
});

test("every kind of wrong-but-valid-JSON snapshot is rebuilt from the log with the same result", async (t) => {
  const { reopen, file, original } = await seeded(t);
  const expected = reopen().mailbox.inbox("codex:b").map((entry) => entry.body);
  assert.equal(reopen().mailbox.view("codex:b").cacheState, "loaded");
  for (const [name, damage] of Object.entries(DAMAGE)) {
    const snapshot = JSON.parse(original) as Snapshot;
    damage(snapshot);
    writeFileSync(file, JSON.stringify(snapshot));
    const mailbox = reopen().mailbox;
    const view = mailbox.view("codex:b");
    assert.equal(view.cacheState, "invalid", name);
    assert.ok(view.cacheProblem, name);
    assert.deepEqual(mailbox.inbox("codex:b").map((entry) => entry.body), expected, name);
    assert.deepEqual(Object.keys(view.state.messages).length, 3, name);
  }
});

test("a server over a snapshot with messages: null reads its mail, health warns snapshot_rebuilt, doctor lists it", async (t) => {
  const { home, stateDir, file, original } = await seeded(t);
  const snapshot = JSON.parse(original) as Snapshot;
  (snapshot.state as unknown as { messages: null }).messages = null;
  writeFileSync(file, JSON.stringify(snapshot));
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  const session = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:b" });
  const health = (await session.call("health")) as { ok: boolean; warnings?: Array<{ code: string; message: string }>; cache: { state: string; problem?: string } };
  assert.equal(health.ok, true, JSON.stringify(health));
  assert.equal(health.cache.state, "invalid");
  assert.match(health.cache.problem ?? "", /snapshot\.state\.messages is not an object/);
  assert.ok(health.warnings?.some((warning) => warning.code === "snapshot_rebuilt"), JSON.stringify(health.warnings));
  const read = (await session.call("read")) as { ok: boolean; messages?: unknown[] };
  assert.equal(read.ok, true, JSON.stringify(read));
  assert.equal(read.messages?.length, 3);

  writeFileSync(file, JSON.stringify(snapshot));
  const doctor = await collect(spawn(process.execPath, [CLI, "doctor", "--json"], { env: { PATH: "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"] }));
  const report = JSON.parse(doctor.stdout) as { problems: Array<{ problem: string; fix: string }>; state: { snapshots: { invalid: Array<{ path: string; reason: string }> } } };
  assert.deepEqual(report.state.snapshots.invalid, [{ path: file, reason: "snapshot.state.messages is not an object" }]);
  assert.ok(report.problems.some((problem) => problem.problem.includes(file) && problem.fix.includes(`rm ${file}`)), doctor.stdout);
});
