// The peerpost CLI end to end, as a person or a script runs it: --json output, exit codes 0/1/2.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { cli, json } from "./helpers/cli.js";
import { collect } from "./helpers/children.js";
import { CLI } from "./helpers/mcp.js";
import { openPeerpost } from "../core/peerpost.js";


test("send, inbox, reply, status and agents work end to end with --json", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const store = openPeerpost({ env, home });
  await store.sessions.register({ host: "codex", address: "codex:bob", sessionId: "bob", source: "startup" });
  await store.sessions.register({ host: "claude-code", address: "claude:alice", sessionId: "alice", source: "startup" });
  const sent = await cli(env, "send", "--from", "claude:alice", "--to", "codex:bob", "--anticipation", "reply", "--json", "can you check <this>?");
  assert.equal(sent.code, 0, sent.stderr);
  const { messageId } = json(sent) as { messageId: string };
  assert.match(messageId, /^[0-9A-Z]{26}$/);
  const inbox = await cli(env, "inbox", "codex:bob", "--json");
  assert.equal(inbox.code, 0);
  const messages = json(inbox).messages as Array<{ id: string; envelope: string; status: string }>;
  assert.equal(messages.length, 1);
  assert.match(messages[0]!.envelope, /can you check &lt;this&gt;\?/);
  const human = await cli(env, "inbox", "codex:bob");
  assert.match(human.stdout, /From claude:alice .* [+-]\d\d:\d\d \(/);
  assert.match(human.stdout, /can you check <this>\?/);
  const replied = await cli(env, "reply", messageId, "--as", "codex:bob", "--reply", "checked", "--json");
  assert.equal(replied.code, 0, replied.stderr);
  assert.equal(json(replied).status, "replied");
  const again = await cli(env, "reply", messageId, "--as", "codex:bob", "--done", "--json");
  assert.equal(again.code, 1);
  assert.equal((json(again).error as { code: string }).code, "already_resolved");
  const status = await cli(env, "status", messageId, "--json");
  assert.equal((json(status).message as { status: string }).status, "replied");
  const summary = await cli(env, "status", "--json");
  assert.ok((json(summary).sessions as Array<{ address: string }>).some((row) => row.address === "claude:alice"));
  const agents = await cli(env, "agents", "--all", "--json");
  assert.deepEqual((json(agents).sessions as Array<{ address: string }>).map((session) => session.address).sort(), ["claude:alice", "codex:bob"]);
  const aliceInbox = json(await cli(env, "inbox", "claude:alice", "--json")).messages as Array<{ envelope: string }>;
  assert.match(aliceInbox[0]!.envelope, /checked/);
});

test("errors print code, message and hint with exit 1; usage mistakes exit 2", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const unknownRecipient = await cli(env, "send", "--from", "claude:a", "--to", "codex:nobody", "hi");
  assert.equal(unknownRecipient.code, 1);
  assert.match(unknownRecipient.stderr, /^peerpost: not_found: .*\nhint: /);
  const badAddress = await cli(env, "inbox", "not-an-address", "--json");
  assert.equal(badAddress.code, 1);
  assert.equal((json(badAddress).error as { code: string }).code, "invalid_arguments");
  assert.equal((await cli(env, "frobnicate")).code, 2);
  assert.equal((await cli(env, "send", "--to", "codex:x")).code, 2);
  assert.equal((await cli(env, "reply", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "--as", "codex:x", "--done", "--reply", "x")).code, 2);
  assert.equal((await cli(env, "--bogus-flag")).code, 2);
  const badHome = await cli({ ...env, PEERPOST_HOME: "relative" }, "agents");
  assert.equal(badHome.code, 1);
  assert.match(badHome.stderr, /PEERPOST_HOME/);
  const help = await cli(env, "help");
  assert.equal(help.code, 0);
  assert.match(help.stdout, /serve +run the MCP server/);
});

test("doctor reports the state dir, corrupt lines with offsets (a note: readers skip them, nothing is lost) and host installs, with a fix for each problem", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const store = openPeerpost({ env, home });
  await store.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "x" });
  const healthy = await cli(env, "doctor", "--json");
  assert.equal(healthy.code, 0, healthy.stdout);
  const report = json(healthy) as { ok: boolean; state: { stateDir: { mode: string } }; hosts: Array<{ host: string }> };
  assert.equal(report.ok, true);
  assert.equal(report.state.stateDir.mode, "0700");
  assert.deepEqual(report.hosts.map((host) => host.host), ["claude-code", "codex", "copilot", "grok"]);
  appendFileSync(join(home, "state", "mailbox.jsonl"), "this is not json\n");
  const noted = await cli(env, "doctor");
  assert.equal(noted.code, 0, noted.stdout);
  assert.match(noted.stdout, /note: mailbox: 1 line\(s\) are not valid records \(first at byte \d+: not valid JSON\)\. Readers skip them/);
  // A real problem has its fix, and makes doctor exit 1.
  chmodSync(join(home, "state"), 0o777);
  const sick = await cli(env, "doctor");
  assert.equal(sick.code, 1);
  assert.match(sick.stdout, /fix: .*chmod 700 /);
});

test("tail follows the mailbox live", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const store = openPeerpost({ env, home });
  await store.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "before" });
  const child = spawn(process.execPath, [CLI, "tail", "--from-start"], { env: { PATH: "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const done = collect(child);
  let seen = "";
  await new Promise<void>((resolve) => {
    child.stdout.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('"before"')) resolve();
    });
  });
  await store.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "live one" });
  await new Promise<void>((resolve) => {
    const check = () => (seen.includes('"live one"') ? resolve() : setTimeout(check, 20));
    check();
  });
  child.kill("SIGINT");
  await done;
  assert.match(seen, /msg [0-9A-Z]{26} claude:a → codex:b \[fyi\] "live one"/);
});
