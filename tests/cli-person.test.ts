// A person is a first-class user of the command line: their own address is the default where it is the
// only sensible one, a typo in a person's name is flagged, times read the same in every command, and an
// empty machine says what to do next.
// A person's own mail shown by `peerpost inbox` is read: not listed again, and archived after the retention.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { cli, json } from "./helpers/cli.js";
import { openPeerpost } from "../core/peerpost.js";
import { cliEnv, tempPeerpost } from "./helpers/temp.js";

function person(t: Parameters<typeof tempDir>[0]): Record<string, string> {
  const home = tempDir(t);
  return { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "ana" };
}

async function sendJson(env: Record<string, string>, ...args: string[]): Promise<{ messageId: string; warnings: Array<{ code: string; message: string }> }> {
  const sent = await cli(env, "send", "--json", ...args);
  assert.equal(sent.code, 0, sent.stdout + sent.stderr);
  return json(sent) as { messageId: string; warnings: Array<{ code: string; message: string }> };
}

const DAY = 86_400_000;

test("inbox and reply default to the person's own address; a message to someone else still needs --as", async (t) => {
  const env = person(t);
  const asked = await sendJson(env, "--from", "codex:bob", "--to", "user:ana", "--anticipation", "reply", "Ship it?");
  const inbox = await cli(env, "inbox");
  assert.equal(inbox.code, 0, inbox.stderr);
  assert.match(inbox.stdout, /^1 unread message to user:ana\n/);
  assert.match(inbox.stdout, /Ship it\?/);
  const replied = await cli(env, "reply", asked.messageId, "--reply", "Yes");
  assert.equal(replied.code, 0, replied.stderr);
  assert.match(replied.stdout, new RegExp(`^replied to ${asked.messageId}; the answer is message \\S+ to codex:bob`));

  const store = openPeerpost({ env, home: env.HOME });
  t.after(() => store.backend.close());
  await store.sessions.register({ host: "codex", address: "codex:bob", sessionId: "bob", source: "startup" });
  const forBob = await sendJson(env, "--from", "user:ana", "--to", "codex:bob", "--anticipation", "reply", "And you?");
  const refused = await cli(env, "reply", forBob.messageId, "--done");
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /needs --as ADDR \(the message was sent to codex:bob\)/);
});

test("status lists people with mail, though no session registers them", async (t) => {
  const env = person(t);
  await sendJson(env, "--to", "user:bo", "--anticipation", "reply", "lunch?");
  const status = await cli(env, "status");
  assert.equal(status.code, 0, status.stderr);
  assert.doesNotMatch(status.stdout, /no sessions/);
  assert.match(status.stdout, /^user:ana\s+person\s+0\s+0/m);
  assert.match(status.stdout, /^user:bo\s+person\s+1\s+1/m);
  assert.deepEqual((json(await cli(env, "status", "--json")) as { people: Array<{ address: string }> }).people.map((row) => row.address), ["user:ana", "user:bo"]);
});

test("a message to a user: name no one has used warns unknown_person, and is still sent", async (t) => {
  const env = person(t);
  const typo = await sendJson(env, "--to", "user:alcie", "hi");
  assert.deepEqual(typo.warnings.map((warning) => warning.code), ["unknown_person"]);
  assert.match(typo.warnings[0]!.message, /No one has used user:alcie before/);
  assert.match((await cli(env, "inbox", "user:alcie")).stdout, /hi/);
  // Known from then on; and the person's own address is always known.
  assert.deepEqual((await sendJson(env, "--to", "user:alcie", "again")).warnings, []);
  assert.deepEqual((await sendJson(env, "--from", "codex:bob", "--to", "user:ana", "hello")).warnings.filter((warning) => warning.code === "unknown_person"), []);
  const human = await cli(env, "send", "--to", "user:zed", "hi");
  assert.match(human.stderr, /No one has used user:zed before/);
});

test("times read the same in every command: local time with its offset and how long ago; --json keeps ISO", async (t) => {
  const env: Record<string, string> = { ...person(t), TZ: "Asia/Kolkata" };
  const store = openPeerpost({ env, home: env.HOME });
  t.after(() => store.backend.close());
  await store.sessions.register({ host: "codex", address: "codex:bob", sessionId: "bob", source: "startup", hostPid: process.pid });
  assert.equal((await cli(env, "role", "set", "reviewer", "codex:bob")).code, 0);
  const sent = await sendJson(env, "--from", "codex:bob", "--to", "user:ana", "hi");
  const stamp = /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+05:30 \(\d+ s ago\)/;
  assert.match((await cli(env, "agents")).stdout, stamp);
  assert.match((await cli(env, "roles")).stdout, stamp);
  assert.match((await cli(env, "inbox")).stdout, stamp);
  assert.match((await cli(env, "status", sent.messageId)).stdout, stamp);
  const listed = json(await cli(env, "agents", "--json")) as { sessions: Array<{ lastSeen: string }> };
  assert.match(listed.sessions[0]!.lastSeen, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

test("with no sessions, agents and status say how to set peerpost up in the hosts found on PATH", async (t) => {
  const env = person(t);
  const bin = join(env.HOME!, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "claude"), "#!/bin/sh\nexit 0\n");
  chmodSync(join(bin, "claude"), 0o755);
  const withClaude = { ...env, PATH: `${bin}:/usr/bin:/bin` };
  for (const args of [["agents"], ["status"]]) {
    const shown = await cli(withClaude, ...args);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /Set peerpost up in your agents, then start a session there:\n {2}claude-code: claude plugin marketplace add \S+ && claude plugin install peerpost@peerpost\n/);
    assert.match(shown.stdout, /Check the result with: (peerpost|node .*dist\/cli\.cjs) doctor/);
  }
  const bare = await cli(env, "agents");
  assert.match(bare.stdout, /No host CLI \(claude, codex, copilot, grok\) is on PATH: install one/);
});

test("an answer a person has read with `peerpost inbox` is not unread at the next look, and is archived after the retention", async (t) => {
  const temp = tempPeerpost(t, { PEERPOST_USER: "ana" });
  const { peerpost, clock } = temp;
  const env = { ...cliEnv(temp), PEERPOST_USER: "ana" };
  const asked = await peerpost.mailbox.send({ from: "user:ana", fromVerified: false, to: "codex:bob", body: "Is CI green?", anticipation: "reply" });
  await peerpost.mailbox.markRead("codex:bob", [asked.message.id]);
  const { reply } = await peerpost.mailbox.resolve({ id: asked.message.id, by: "codex:bob", byVerified: true, resolution: "reply", text: "Yes, since 10:40." });

  const first = await cli(env, "inbox");
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^1 unread message to user:ana\n/);
  assert.match(first.stdout, /Yes, since 10:40\./);
  const second = await cli(env, "inbox");
  assert.match(second.stdout, /^no unread messages to user:ana/, `the answer the person just read is still unread:\n${second.stdout}`);

  clock.now += 40 * DAY;
  const result = await temp.reopen().mailbox.compact();
  assert.ok(result.movedMessages >= 2, `the answered request and its read answer move to the archive after PEERPOST_RETENTION_DAYS; moved ${result.movedMessages}`);
  assert.equal(temp.reopen().mailbox.view("user:ana").state.messages[reply!.id], undefined, "the answer left the live mailbox");
});
