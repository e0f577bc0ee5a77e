// The command line as a person uses it: help per command, usage mistakes, prose output with dangerous
// characters made visible, hints in CLI terms, pipes closed early, doctor's verdicts, the server on a
// terminal. Real processes throughout; a pseudo-terminal (script) where a TTY matters.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { collect, type Collected } from "./helpers/children.js";
import { CLI, REPO_ROOT } from "./helpers/mcp.js";
import { openPeerpost } from "../core/peerpost.js";

function run(env: Record<string, string>, args: string[], input?: string): Promise<Collected> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: "/usr/bin:/bin", ...env }, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
  if (input !== undefined) child.stdin!.end(input);
  return collect(child);
}

function sh(env: Record<string, string>, script: string): Promise<Collected> {
  return collect(spawn("bash", ["-c", script], { env: { PATH: "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"] }));
}

async function setup(t: Parameters<typeof tempDir>[0]) {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const store = openPeerpost({ env, home });
  await store.sessions.register({ host: "codex", address: "codex:bob", sessionId: "bob", source: "startup", roles: ["reviewer"], hostPid: process.pid, cwd: "/work/\u001b[31mred" });
  await store.sessions.register({ host: "claude-code", address: "claude:alice", sessionId: "alice", source: "startup" });
  return { home, env, store };
}

const HOSTILE = "I'm <b>here</b> & \u202Eevil\u202C \u001b[2Jcleared\u200B";

test("help send and send --help show flags, the fyi default and an example; mistakes get two lines and exit 2", async (t) => {
  const { env } = await setup(t);
  const help = await run(env, ["help", "send"]);
  assert.equal(help.code, 0);
  assert.equal((await run(env, ["send", "--help"])).stdout, help.stdout);
  assert.match(help.stdout, /--anticipation KIND .*Default: fyi\./);
  assert.match(help.stdout, /--reply-to ID/);
  assert.match(help.stdout, /--allow-self/);
  assert.match(help.stdout, /--idempotency-key KEY/);
  assert.match(help.stdout, /examples:\n  peerpost send --from /);
  const overview = await run(env, ["help"]);
  for (const name of ["serve", "send", "inbox", "reply", "status", "agents", "tail", "role", "roles", "name", "resolve", "doctor", "completion"]) assert.match(overview.stdout, new RegExp(`\\n  ${name} +\\S`));

  const unknownFlag = await run(env, ["send", "--frm", "claude:alice", "--to", "codex:bob", "hi"]);
  assert.equal(unknownFlag.code, 2);
  assert.equal(unknownFlag.stderr, "peerpost send: unknown flag --frm (did you mean --from?)\nRun `peerpost help send` for usage.\n");
  const unknownCommand = await run(env, ["sned"]);
  assert.equal(unknownCommand.code, 2);
  assert.match(unknownCommand.stderr, /^peerpost: unknown command "sned" \(did you mean send\?\)\n/);
  const badChoice = await run(env, ["send", "--from", "claude:alice", "--to", "codex:bob", "--anticipation", "replly", "hi"]);
  assert.equal(badChoice.code, 2);
  assert.match(badChoice.stderr, /must be one of reply, action, fyi, not "replly" \(did you mean reply\?\)/);
  const missingValue = await run(env, ["send", "--from", "claude:alice", "--to"]);
  assert.equal(missingValue.code, 2);
  assert.match(missingValue.stderr, /--to needs a value \(ADDR\)/);
  const helpTypo = await run(env, ["help", "inbx"]);
  assert.equal(helpTypo.code, 2);
  assert.match(helpTypo.stderr, /did you mean inbox\?/);
  // With --json a usage mistake is a JSON error on stdout too.
  const jsonUsage = await run(env, ["agents", "--bogus", "--json"]);
  assert.equal(jsonUsage.code, 2);
  assert.equal((JSON.parse(jsonUsage.stdout) as { error: { code: string } }).error.code, "invalid_arguments");
  assert.equal(jsonUsage.stderr, "");
});

test("inbox and status speak prose: sender, time, status, visible text, history, thread, the next command; --json keeps the envelope", async (t) => {
  const { env } = await setup(t);
  const sent = await run(env, ["send", "--from", "claude:alice", "--to", "codex:bob", "--anticipation", "reply", HOSTILE]);
  assert.equal(sent.code, 0, sent.stderr);
  const id = /sent ([0-9A-Z]{26})/.exec(sent.stdout)![1]!;
  const inbox = await run(env, ["inbox", "codex:bob"]);
  assert.equal(inbox.code, 0);
  assert.match(inbox.stdout, /From claude:alice \(unverified[^)]*\), \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d \(\d+ s ago\)/);
  assert.match(inbox.stdout, /asks for a reply · status queued/);
  assert.ok(inbox.stdout.includes("I'm <b>here</b> & ⟨U+202E⟩evil⟨U+202C⟩ ⟨U+001B⟩[2Jcleared⟨U+200B⟩"), inbox.stdout);
  assert.doesNotMatch(inbox.stdout, /&#|&lt;|&amp;|\u001b|\u202E|<peerpost-message|tool/);
  assert.ok(inbox.stdout.includes(`peerpost reply ${id} --as codex:bob --reply TEXT`));
  const asJson = JSON.parse((await run(env, ["inbox", "codex:bob", "--json"])).stdout) as { messages: Array<{ envelope: string; body: string }> };
  assert.match(asJson.messages[0]!.envelope, /^<peerpost-message id="/);
  assert.match(asJson.messages[0]!.envelope, /I&#39;m &lt;b&gt;/);
  assert.equal(asJson.messages[0]!.body, HOSTILE);

  assert.equal((await run(env, ["reply", id, "--as", "codex:bob", "--reply", "looked at it"])).code, 0);
  const status = await run(env, ["status", id]);
  assert.equal(status.code, 0, status.stderr);
  assert.doesNotMatch(status.stdout, /null|\{"/);
  assert.match(status.stdout, /status replied/);
  assert.match(status.stdout, /History\n  .* sent by claude:alice to codex:bob\n  .* resolved: replied by codex:bob, answer [0-9A-Z]{26}\n/);
  assert.match(status.stdout, /Conversation [0-9A-Z]{26} \(2 messages\)\n→  /);
  assert.match(status.stdout, /codex:bob → claude:alice +fyi/);
  const raw = JSON.parse((await run(env, ["status", id, "--json"])).stdout) as { message: { resolved: { resolution: string }; history: unknown[] }; thread: unknown[] };
  assert.equal(raw.message.resolved.resolution, "reply");
  assert.equal(raw.thread.length, 2);
  assert.ok(raw.message.history.length >= 2);
});

test("agents shows NAME and ROLES columns, with dangerous characters in a working dir made visible", async (t) => {
  const { env } = await setup(t);
  const agents = await run(env, ["agents", "--all"]);
  assert.equal(agents.code, 0);
  assert.match(agents.stdout, /^ADDRESS +NAME +HOST +MACHINE +ROLES +RUNNING +LIVE +WAKE +LAST SEEN +CWD +TITLE\n/);
  assert.match(agents.stdout, /codex:bob +codex +[a-z0-9-]+\.[0-9a-f]{8} +reviewer +yes +off /);
  assert.ok(agents.stdout.includes("/work/⟨U+001B⟩[31mred"));
  assert.doesNotMatch(agents.stdout, /\u001b/);
});

test("CLI errors name CLI commands and flags, never tool arguments, and say did you mean", async (t) => {
  const { env } = await setup(t);
  const toolWords = /allowSelf|replyToMessageId|messageId|\btools?\b|resolution/;
  const self = await run(env, ["send", "--from", "claude:alice", "--to", "claude:alice", "hi"]);
  assert.equal(self.code, 1);
  assert.match(self.stderr, /--allow-self/);
  assert.doesNotMatch(self.stderr, toolWords);
  assert.equal((await run(env, ["send", "--from", "claude:alice", "--to", "claude:alice", "--allow-self", "note to self"])).code, 0);
  const typo = await run(env, ["send", "--from", "claude:alice", "--to", "codex:bobb", "hi"]);
  assert.equal(typo.code, 1);
  assert.match(typo.stderr, /Did you mean codex:bob\?/);
  assert.match(typo.stderr, /peerpost agents/);
  assert.doesNotMatch(typo.stderr, toolWords);
  const midTypo = await run(env, ["send", "--from", "claude:alice", "--to", "claude:alcie", "hi"]);
  assert.match(midTypo.stderr, /Did you mean claude:alice\?/);
  const badAddress = await run(env, ["inbox", "bob"]);
  assert.match(badAddress.stderr, /`peerpost agents`/);
  assert.doesNotMatch(badAddress.stderr, toolWords);
  const noRole = await run(env, ["send", "--from", "claude:alice", "--to", "role:nobody", "hi"]);
  assert.doesNotMatch(noRole.stderr, toolWords);

  const sent = JSON.parse((await run(env, ["send", "--from", "claude:alice", "--to", "codex:bob", "--anticipation", "reply", "--json", "q"])).stdout) as { messageId: string; conversationId: string };
  assert.equal((await run(env, ["reply", sent.messageId, "--as", "codex:bob", "--done"])).code, 0);
  const again = await run(env, ["reply", sent.messageId, "--as", "codex:bob", "--done"]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /--reply-to/);
  assert.doesNotMatch(again.stderr, toolWords);
  const wrong = await run(env, ["reply", sent.messageId, "--as", "claude:alice", "--done"]);
  assert.doesNotMatch(wrong.stderr, toolWords);
  // One hint for an unknown message id, whichever command met it.
  const unknownStatus = await run(env, ["status", "01ARZ3NDEKTSV4RRFFQ69G5FAV"]);
  const unknownReply = await run(env, ["reply", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "--as", "codex:bob", "--done"]);
  const unknownFollow = await run(env, ["send", "--from", "claude:alice", "--to", "codex:bob", "--reply-to", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "x"]);
  const hints = [unknownStatus, unknownReply, unknownFollow].map((result) => /\nhint: (.*)\n/.exec(result.stderr)?.[1]);
  assert.ok(hints[0]);
  assert.deepEqual(hints, [hints[0], hints[0], hints[0]]);
  assert.doesNotMatch(hints[0]!, toolWords);
  // --json errors go to stdout, nothing on stderr.
  const jsonError = await run(env, ["status", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "--json"]);
  assert.equal(jsonError.code, 1);
  assert.equal(jsonError.stderr, "");
  assert.equal((JSON.parse(jsonError.stdout) as { error: { code: string } }).error.code, "not_found");
});

test("send --reply-to keeps the conversation, --idempotency-key sends once, and a stored send whose receipt fails exits 0 with a warning", async (t) => {
  const { env, home } = await setup(t);
  const first = JSON.parse((await run(env, ["send", "--from", "claude:alice", "--to", "codex:bob", "--anticipation", "reply", "--json", "q"])).stdout) as { messageId: string; conversationId: string };
  const follow = JSON.parse((await run(env, ["send", "--from", "codex:bob", "--to", "claude:alice", "--reply-to", first.messageId, "--json", "more"])).stdout) as { conversationId: string; hop: number };
  assert.equal(follow.conversationId, first.conversationId);
  assert.equal(follow.hop, 2);

  const once = await run(env, ["send", "--from", "claude:alice", "--to", "codex:bob", "--idempotency-key", "k1", "--json", "only once"]);
  const twice = await run(env, ["send", "--from", "claude:alice", "--to", "codex:bob", "--idempotency-key", "k1", "only once"]);
  assert.equal(twice.code, 0);
  const onceId = (JSON.parse(once.stdout) as { messageId: string }).messageId;
  assert.match(twice.stdout, new RegExp(`already sent ${onceId}`));

  // The receipts log has been replaced by a link, which peerpost never writes through: the message is
  // stored, its receipt cannot be.
  const receipts = join(home, "state", "receipts.jsonl");
  renameSync(receipts, `${receipts}.moved`);
  symlinkSync(`${receipts}.moved`, receipts);
  const stored = await run(env, ["send", "--from", "claude:alice", "--to", "codex:bob", "stored anyway"]);
  assert.equal(stored.code, 0, stored.stderr);
  assert.match(stored.stderr, /^warning: .*receipt could not be written.*do not repeat it/m);
  const storedJson = await run(env, ["send", "--from", "claude:alice", "--to", "codex:bob", "--json", "stored again"]);
  assert.equal(storedJson.code, 0);
  assert.ok((JSON.parse(storedJson.stdout) as { warnings: Array<{ code: string }> }).warnings.some((warning) => warning.code === "receipt_not_recorded"));
  const bodies = (JSON.parse((await run(env, ["inbox", "codex:bob", "--json"])).stdout) as { messages: Array<{ body: string }> }).messages.map((message) => message.body);
  assert.equal(bodies.filter((body) => body === "stored anyway").length, 1);
  assert.equal(bodies.filter((body) => body === "only once").length, 1);
});

test("tail | head, inbox | head and doctor | head end quietly", async (t) => {
  const { env, store } = await setup(t);
  for (let batch = 0; batch < 20; batch++)
    await Promise.all(Array.from({ length: 50 }, (_, index) => store.mailbox.send({ from: "claude:alice", fromVerified: false, to: "codex:bob", body: `message ${batch}-${index} ${"x".repeat(100)}` })));
  for (const command of ["tail --from-start", "inbox codex:bob", "doctor"]) {
    const result = await sh(env, `node ${CLI} ${command} | head -n 1 >/dev/null; echo "exit=\${PIPESTATUS[0]}"`);
    assert.equal(result.stderr, "", `${command}: ${result.stderr}`);
    assert.match(result.stdout, /exit=0/, command);
  }
});

test("doctor: an installed host without peerpost is information with this clone's path, no host means nothing is set up", async (t) => {
  const { env, home } = await setup(t);
  const none = await run(env, ["doctor"]);
  assert.equal(none.code, 0, none.stdout);
  assert.match(none.stdout, /nothing is set up/);
  const bin = join(home, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "claude"), "#!/bin/sh\nexit 0\n");
  chmodSync(join(bin, "claude"), 0o755);
  const withClaude = { ...env, PATH: `${bin}:/usr/bin:/bin`, CLAUDE_CONFIG_DIR: join(home, ".claude") };
  const notSetUp = await run(withClaude, ["doctor"]);
  assert.equal(notSetUp.code, 0, notSetUp.stdout);
  assert.match(notSetUp.stdout, /claude-code +not set up/);
  assert.ok(notSetUp.stdout.includes(`to set up: claude plugin marketplace add ${REPO_ROOT.replace(/\/$/, "")} && claude plugin install peerpost@peerpost`), notSetUp.stdout);
  assert.doesNotMatch(notSetUp.stdout, /<path|owner\/repo|problem\(s\)/);
  const report = JSON.parse((await run(withClaude, ["doctor", "--json"])).stdout) as { ok: boolean; problems: unknown[]; hosts: Array<{ host: string; setUp?: string }> };
  assert.equal(report.ok, true);
  assert.deepEqual(report.problems, []);
  assert.match(report.hosts.find((host) => host.host === "claude-code")!.setUp!, /^claude plugin marketplace add \//);
});

test("serve on a terminal answers a line that is not JSON-RPC with a one-line hint", async (t) => {
  const { env } = await setup(t);
  // script gives the server a pseudo-terminal as stdin and stderr.
  const child = spawn("script", ["-qec", `${process.execPath} ${CLI} serve`, "/dev/null"], { env: { PATH: "/usr/bin:/bin", TERM: "dumb", ...env }, stdio: ["pipe", "pipe", "pipe"] });
  const done = collect(child);
  let seen = "";
  child.stdout!.on("data", (chunk: Buffer) => (seen += chunk.toString()));
  const until = async (text: string) => {
    for (let tries = 0; tries < 200 && !seen.includes(text); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(seen.includes(text), seen);
  };
  await until("Ctrl-C stops it.");
  child.stdin!.write("send hello\n");
  await until("it reads JSON-RPC from an MCP client, not commands");
  assert.equal(seen.split("it reads JSON-RPC from an MCP client").length - 1, 1, "one hint for one line");
  child.stdin!.write("\u0004");
  const result = await done;
  assert.equal(result.code, 0, seen);
});

test("a server with an address registers at start, and one told to stop right after initialize leaves no lock behind", async (t) => {
  const { env, home } = await setup(t);
  const initialize = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "quick", version: "1" } } }) + "\n";
  for (let round = 0; round < 8; round++) {
    const result = await run({ ...env, PEERPOST_ADDRESS: `claude:quick-${round}` }, ["serve"], initialize);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(existsSync(join(home, "state", "sessions.jsonl.lock")), false, `round ${round} left the sessions lock`);
  }
  const registered = readFileSync(join(home, "state", "sessions.jsonl"), "utf8");
  for (let round = 0; round < 8; round++) assert.match(registered, new RegExp(`"address":"claude:quick-${round}"`));
  // Servers that keep running are listed before any tool call: one given its address, one whose host names the session in its environment.
  const servers = [
    spawn(process.execPath, [CLI, "serve"], { env: { PATH: "/usr/bin:/bin", ...env, PEERPOST_ADDRESS: "claude:fresh" }, stdio: ["pipe", "pipe", "pipe"] }),
    spawn(process.execPath, [CLI, "serve", "--host", "copilot"], { env: { PATH: "/usr/bin:/bin", ...env, COPILOT_AGENT_SESSION_ID: "fresh-copilot" }, stdio: ["pipe", "pipe", "pipe"] }),
  ];
  const done = servers.map((child) => collect(child));
  for (const child of servers) child.stdin!.write(initialize);
  let listed = "";
  for (let tries = 0; tries < 100 && !(listed.includes("claude:fresh") && listed.includes("copilot:fresh-copilot")); tries++) {
    listed = (await run(env, ["agents"])).stdout;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  for (const child of servers) child.stdin!.end();
  await Promise.all(done);
  assert.match(listed, /claude:fresh /, "the fresh server shows in agents before its first tool call");
  assert.match(listed, /copilot:fresh-copilot +copilot /);
});
