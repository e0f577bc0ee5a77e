// The Claude Code plugin against the real, pinned `claude` CLI: installed from this repository as a
// directory marketplace into a throwaway home, driven by `claude -p` against the loopback fake API.
// Channels cannot open offline, so the channel transport is tested at the MCP level under a stand-in
// `claude` parent process.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import type { TestContext } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { onCleanup, tempDir } from "./helpers/temp.js";
import { connect, type Session } from "./helpers/mcp.js";
import { fixturePath } from "./helpers/children.js";
import { startFakeAnthropic, type FakeAnthropic, type ModelRequest, type Script, type Turn } from "./helpers/fake-anthropic.js";
import { isClaudeCodeProcess } from "../plugins/shared/host-processes.js";
import { claudeSkipReason, installFromDirectoryMarketplace, isolatedClaudeEnv, parsePrintResult, repoRoot, runClaude, type PrintResult, type RunResult } from "./helpers/claude-cli.js";

const skip = claudeSkipReason();
const ROOT = repoRoot();
const PLUGIN_DIR = join(ROOT, "dist", "claude-code");
const PLUGIN_ID = "peerpost@peerpost";
const SERVER_RULE = "mcp__plugin_peerpost_peerpost";
const TIMEOUT_MS = 60_000;
const TOOLS = ["agents", "claim", "claims", "fork", "health", "launch", "message", "read", "receipts", "release", "reply", "resolve", "roles", "set_agent_override_policy", "status", "task", "wait"];
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

function tool(name: string): string {
  return `${SERVER_RULE}__${name}`;
}

/** A throwaway machine with the plugin installed from the repository, a fake API, and a peerpost state dir. */
interface Machine {
  base: string;
  home: string;
  configDir: string;
  stateDir: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  fake: FakeAnthropic;
  /** What the fake model does from now on. */
  script(next: Script): void;
  claude(args: string[]): Promise<{ run: RunResult; result: PrintResult; requests: ModelRequest[] }>;
}

async function installedMachine(t: TestContext, extraEnv: Record<string, string> = {}): Promise<Machine> {
  const base = tempDir(t, "peerpost-claude-");
  const stateDir = join(base, "peerpost");
  const cwd = join(base, "project");
  mkdirSync(cwd);
  let current: Script = () => ({ text: "IDLE" });
  const fake = await startFakeAnthropic((request) => current(request));
  onCleanup(t, () => fake.close());
  const env = isolatedClaudeEnv(base, fake.url, { PEERPOST_HOME: stateDir, ...extraEnv });
  await installFromDirectoryMarketplace(ROOT, PLUGIN_ID, { env, cwd, timeoutMs: TIMEOUT_MS });
  const home = env.HOME!;
  return {
    base,
    home,
    configDir: env.CLAUDE_CONFIG_DIR!,
    stateDir,
    cwd,
    env,
    fake,
    script: (next) => (current = next),
    claude: async (args) => {
      const first = fake.modelRequests.length;
      const run = await runClaude(["-p", ...args, "--output-format", "json"], { env, cwd, timeoutMs: TIMEOUT_MS });
      assert.equal(run.code, 0, `claude exited ${run.code}${run.timedOut ? " (timed out)" : ""}: ${run.stderr}${run.stdout}`);
      assert.deepEqual(fake.errors, []);
      return { run, result: parsePrintResult(run.stdout), requests: fake.modelRequests.slice(first) };
    },
  };
}

/** Another agent on the same machine: a peerpost server that is `codex:peer`. */
async function peer(t: TestContext, machine: Pick<Machine, "home" | "stateDir">): Promise<Session> {
  const session = await connect(t, { HOME: machine.home, PEERPOST_HOME: machine.stateDir, PEERPOST_ADDRESS: "codex:peer" });
  await session.call("health");
  return session;
}

function records(stateDir: string, log: "sessions" | "mailbox" | "receipts"): Array<Record<string, unknown>> {
  const path = join(stateDir, `${log}.jsonl`);
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
}

function toolUseNamed(request: ModelRequest, name: string): boolean {
  return request.messages.some((message) => typeof message.content !== "string" && message.content.some((block) => block.type === "tool_use" && block.name === name));
}

/** Polls until `condition` holds: for state another process writes without telling us. */
async function eventually<T>(condition: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = condition();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(20);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

test("the host process matcher knows Claude Code by the process names and command lines it really runs under", () => {
  const hosts = [
    // npm install, started through node_modules/.bin/claude or a global link (recorded from a hook's and the server's /proc).
    { name: "claude", command: "/work/p/tests/hosts/node_modules/.bin/claude -p hi --output-format json" },
    { name: "claude", command: "claude" },
    // The npm package's binary started by its real path.
    { name: "claude.exe", command: "/usr/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe --resume" },
    // The native installer's versioned binary, started directly or with argv[0] "claude".
    { name: "2.1.332", command: "/home/u/.local/share/claude/versions/2.1.332 -p x" },
    { name: "2.1.332", command: "claude --channels plugin:peerpost@peerpost" },
    // Releases that ran on node.
    { name: "node", command: "node /usr/lib/node_modules/@anthropic-ai/claude-code/cli.js" },
  ];
  for (const host of hosts) assert.equal(isClaudeCodeProcess(host), true, JSON.stringify(host));
  const others = [
    // What sits between Claude Code and a hook or server: the shell of a hook command and node itself.
    { name: "sh", command: '/bin/sh -c node "${CLAUDE_PLUGIN_ROOT}/hooks.cjs" session-start' },
    { name: "node", command: "node /home/u/.claude/plugins/cache/peerpost/peerpost/0.1.0/server.mjs" },
    { name: "bash", command: "bash -lc npm test" },
    { name: "codex", command: "codex exec claude is mentioned here" },
  ];
  for (const other of others) assert.equal(isClaudeCodeProcess(other), false, JSON.stringify(other));
});

test("the repository validates as a marketplace, installs peerpost, and the cached server speaks MCP", { skip }, async (t) => {
  const base = tempDir(t, "peerpost-claude-");
  const env = isolatedClaudeEnv(base, "http://127.0.0.1:9");
  const [catalogue, plugin] = await Promise.all([ROOT, PLUGIN_DIR].map((dir) => runClaude(["plugin", "validate", dir], { env, cwd: base, timeoutMs: TIMEOUT_MS })));
  for (const validated of [catalogue!, plugin!]) {
    assert.equal(validated.code, 0, validated.stdout + validated.stderr);
    assert.match(validated.stdout, /✔ Validation passed/);
  }
  assert.match(catalogue!.stdout, /Validating marketplace manifest: .*\.claude-plugin\/marketplace\.json/);
  for (const event of ["SessionStart", "UserPromptSubmit", "Stop"]) assert.match(plugin!.stdout, new RegExp(`hooks: ${event} command .*hooks\\.cjs`));
  assert.match(plugin!.stdout, /mcpServers: peerpost stdio node \["\$\{CLAUDE_PLUGIN_ROOT\}\/server\.mjs"\]/);
  assert.doesNotMatch(plugin!.stdout, /Hosts not declared/);

  await installFromDirectoryMarketplace(ROOT, PLUGIN_ID, { env, cwd: base, timeoutMs: TIMEOUT_MS });
  const configDir = env.CLAUDE_CONFIG_DIR!;
  const settings = JSON.parse(readFileSync(join(configDir, "settings.json"), "utf8")) as Record<string, Record<string, unknown>>;
  assert.deepEqual(settings.extraKnownMarketplaces?.peerpost, { source: { source: "directory", path: ROOT } });
  assert.equal(settings.enabledPlugins?.[PLUGIN_ID], true);
  const cache = join(configDir, "plugins", "cache", "peerpost", "peerpost", VERSION);
  const installed = JSON.parse(readFileSync(join(configDir, "plugins", "installed_plugins.json"), "utf8")) as { plugins: Record<string, Array<{ installPath: string }>> };
  assert.equal(installed.plugins[PLUGIN_ID]?.[0]?.installPath, cache);
  for (const file of ["server.mjs", "hooks.cjs", ".mcp.json", "hooks/hooks.json", ".claude-plugin/plugin.json"]) assert.ok(existsSync(join(cache, file)), `cache has ${file}`);

  // The cache copy is self-contained: its server runs with nothing from the repository.
  const stateDir = join(base, "peerpost");
  const other = await peer(t, { home: env.HOME!, stateDir });
  const server = await connect(t, { HOME: env.HOME!, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "claude:from-cache" }, join(cache, "server.mjs"), []);
  const { tools } = await server.client.listTools();
  assert.deepEqual(tools.map((entry) => entry.name).sort(), TOOLS);
  assert.deepEqual(server.client.getServerCapabilities()?.experimental, { "claude/channel": {} });
  const sent = await server.call("message", { to: "codex:peer", message: "hello from the cache copy" });
  assert.equal(sent.ok, true, JSON.stringify(sent));
  const inbox = await other.call("read");
  assert.equal(inbox.count, 1);
  assert.match((inbox.messages as Array<{ envelope: string }>)[0]!.envelope, /from="claude:from-cache"[\s\S]*hello from the cache copy/);
});

test("claude -p: SessionStart registers the session, the model's message arrives verified, and a resumed session is told of new mail without its body", { skip }, async (t) => {
  const machine = await installedMachine(t);
  const other = await peer(t, machine);
  machine.script((request) => {
    if (!toolUseNamed(request, tool("message"))) return { toolUse: { name: tool("message"), input: { to: "codex:peer", message: "hello peer, from claude" } } };
    return { text: "SENT" };
  });
  const first = await machine.claude(["send a hello to codex:peer", "--allowedTools", SERVER_RULE]);
  assert.equal(first.result.result, "SENT");
  const sessionId = first.result.session_id;
  const address = `claude:${sessionId}`;
  const toolResult = first.requests.map((request) => request.lastToolResult).find((result) => result?.toolName === tool("message"));
  assert.equal(toolResult?.isError, false, toolResult?.text);
  assert.match(toolResult!.text, /"ok":true/);

  const started = records(machine.stateDir, "sessions").find((record) => record.address === address && record.source === "startup");
  assert.ok(started, "the SessionStart hook registered the session");
  assert.equal(started.host, "claude-code");
  assert.equal(started.hostPid, first.run.pid, "the hook found the claude process as its host");
  assert.equal(started.cwd, machine.cwd);

  const inbox = await other.call("read");
  assert.equal(inbox.count, 1);
  const envelope = (inbox.messages as Array<{ envelope: string }>)[0]!.envelope;
  assert.match(envelope, new RegExp(`from="${address}" fromVerified="true" to="codex:peer"`));
  assert.match(envelope, /hello peer, from claude/);

  const asked = await other.call("message", { to: address, message: "SECRET-BODY-4d1c: which branch are you on?", anticipation: "reply" });
  assert.equal(asked.ok, true, JSON.stringify(asked));
  machine.script(() => ({ text: "NOTED" }));
  const second = await machine.claude(["anything new?", "--resume", sessionId, "--allowedTools", SERVER_RULE]);
  assert.equal(second.result.session_id, sessionId, "--resume keeps the session id");
  const note = "peerpost: 1 new message from other AI agents on this machine (codex:peer), 1 expecting an answer.";
  assert.ok(second.requests[0]!.shownText.includes(`UserPromptSubmit hook additional context: ${note}`), second.requests[0]!.shownText.slice(-2000));
  assert.ok(second.requests[0]!.shownText.includes(`SessionStart hook additional context: ${note}`), "SessionStart on resume says it too");
  assert.ok(!second.requests.some((request) => request.shownText.includes("SECRET-BODY-4d1c")), "the note never carries the body");
  assert.ok(records(machine.stateDir, "sessions").some((record) => record.address === address && record.source === "resume" && record.hostPid === second.run.pid));
});

test("claude -p: the Stop hook reminds once about a read, open request and does not loop", { skip }, async (t) => {
  const intervalMs = 1000;
  const machine = await installedMachine(t, { PEERPOST_REMINDER_INTERVAL_MS: String(intervalMs) });
  const other = await peer(t, machine);
  const sessionId = randomUUID();
  await machine.claude(["hi", "--session-id", sessionId]);
  const asked = await other.call("message", { to: `claude:${sessionId}`, message: "What is 6*7?", anticipation: "reply" });
  const messageId = asked.messageId as string;

  // The model reads the request, then every answer takes longer than the reminder interval, so a
  // reminder is due at each Stop: only stop_hook_active keeps the second Stop from blocking again.
  machine.script(async (request): Promise<Turn> => {
    if (!toolUseNamed(request, tool("read"))) return { toolUse: { name: tool("read"), input: {} } };
    await delay(intervalMs + 200);
    return { text: "LATER" };
  });
  const run = await machine.claude(["check your mail", "--resume", sessionId, "--allowedTools", SERVER_RULE]);
  assert.equal(run.result.result, "LATER");
  const reminder = `Stop hook feedback:\npeerpost reminder: 1 request from other AI agents (codex:peer) still waits for your answer (${messageId}).`;
  assert.equal(run.requests.length, 3, "read, the answer, one more turn after the block");
  assert.ok(!run.requests[1]!.shownText.includes("Stop hook feedback"));
  assert.ok(run.requests[2]!.shownText.includes(reminder), run.requests[2]!.shownText.slice(-1500));
  const status = await other.call("status", { messageId });
  assert.equal((status.message as { reminders: number }).reminders, 1);
  assert.equal((status.message as { status: string }).status, "read");
});

test("permissions.allow with the server's rule lets every peerpost tool run without prompts or --dangerously-skip-permissions", { skip }, async (t) => {
  const machine = await installedMachine(t);
  machine.script((request) => (toolUseNamed(request, tool("agents")) ? { text: "LISTED" } : { toolUse: { name: tool("agents"), input: {} } }));
  const args = ["who is around?", "--permission-mode", "default"];

  const denied = await machine.claude(args);
  assert.deepEqual(denied.result.permission_denials?.map((denial) => denial.tool_name), [tool("agents")], "without a rule -p denies the call");

  const settingsPath = join(machine.configDir, "settings.json");
  const settings = JSON.parse(readFileSync(settingsPath, "utf8")) as Record<string, unknown>;
  writeFileSync(settingsPath, JSON.stringify({ ...settings, permissions: { allow: [SERVER_RULE] } }, null, 2));
  const allowed = await machine.claude(args);
  assert.deepEqual(allowed.result.permission_denials ?? [], []);
  const result = allowed.requests.map((request) => request.lastToolResult).find((entry) => entry?.toolName === tool("agents"));
  assert.equal(result?.isError, false, result?.text);
  assert.match(result!.text, /"ok":true/);
  assert.match(result!.text, /"sessions"/);
});

/** An SDK client of a peerpost server that runs under a stand-in `claude` process, recording channel pushes. */
interface ChannelClient {
  client: Client;
  pushes: Array<{ content: string; meta: Record<string, string> }>;
  /** Resolves with the first push (seen or to come) whose meta names this message. */
  pushOf(messageId: string): Promise<{ content: string; meta: Record<string, string> }>;
  call(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

async function underFakeClaude(t: TestContext, link: string, env: Record<string, string>, claudeFlags: string[]): Promise<ChannelClient> {
  const pushes: ChannelClient["pushes"] = [];
  const waiters: Array<() => void> = [];
  const client = new Client({ name: "claude-code", version: "2.1.332" });
  // Set before connecting: a server may push right after the handshake.
  client.fallbackNotificationHandler = async (notification) => {
    if (notification.method !== "notifications/claude/channel") return;
    pushes.push(notification.params as ChannelClient["pushes"][number]);
    for (const wake of waiters.splice(0)) wake();
  };
  const transport = new StdioClientTransport({ command: link, args: [fixturePath("claude-host"), join(PLUGIN_DIR, "server.mjs"), "-p", ...claudeFlags], env, stderr: "pipe" });
  await client.connect(transport);
  onCleanup(t, () => client.close());
  const pushOf = async (messageId: string) => {
    for (;;) {
      const found = pushes.find((push) => push.meta.message_id === messageId);
      if (found) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const call = async (name: string, args: Record<string, unknown> = {}) => ((await client.callTool({ name, arguments: args })).structuredContent ?? {}) as Record<string, unknown>;
  return { client, pushes, pushOf, call, close: () => client.close() };
}

test("channel push: declared in initialize, each message pushed once across two servers and a restart, only with --channels", async (t) => {
  const base = tempDir(t, "peerpost-channel-");
  const home = join(base, "home");
  const stateDir = join(base, "peerpost");
  mkdirSync(home);
  // The CLI runs under the name `claude`; so does the stand-in, through a link to node.
  const link = join(base, "claude");
  symlinkSync(process.execPath, link);
  const sessionId = randomUUID();
  // This test stops servers on purpose; one stopped while taking a log lock leaves the lock until it is
  // stale (10 s by default), so take over sooner rather than stall the sends after the restart.
  const env = (session: string) => ({ PATH: process.env.PATH ?? "", HOME: home, PEERPOST_HOME: stateDir, CLAUDE_CODE_SESSION_ID: session, PEERPOST_LOCK_STALE_MS: "2000" });
  const channels = ["--channels", "plugin:peerpost@peerpost"];

  const first = await underFakeClaude(t, link, env(sessionId), channels);
  const second = await underFakeClaude(t, link, env(sessionId), channels);
  const quietSession = randomUUID();
  const quiet = await underFakeClaude(t, link, env(quietSession), []);
  assert.deepEqual(first.client.getServerCapabilities()?.experimental, { "claude/channel": {} });
  for (const server of [first, second, quiet]) await server.call("health");
  const firstHealth = await first.call("health");
  assert.equal((firstHealth.identity as { hostProcess: { name: string } }).hostProcess.name, "claude", "the stand-in is found as the host process");
  assert.deepEqual((firstHealth.push as { transport: string; available: boolean }).available, true);
  const quietHealth = await quiet.call("health");
  // Without --channels the server uses Claude's own inbox, which the stand-in has not (no session record).
  assert.deepEqual([(quietHealth.push as { transport: string }).transport, (quietHealth.push as { available: boolean }).available], ["claude-inbox", false]);
  assert.match((quietHealth.push as { reason: string }).reason, /no running Claude Code session .* \(yet\)|no Claude Code session registry/);

  const sender = await connect(t, { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "codex:peer", PEERPOST_LOCK_STALE_MS: "2000" });
  // Each server reports its session's reachability in the registry; senders are told when there is no push.
  const sessionPush = (address: string) => records(stateDir, "sessions").filter((record) => record.address === address && record.push !== undefined).at(-1)?.push;
  await eventually(() => (sessionPush(`claude:${sessionId}`) === "channel" && sessionPush(`claude:${quietSession}`) === "none" ? true : undefined), "both servers reported their push");
  const toQuiet = await sender.call("message", { to: `claude:${quietSession}`, message: "no channel here" });
  const notPushed = toQuiet.messageId as string;
  assert.deepEqual((toQuiet.warnings as Array<{ code: string }>).map((warning) => warning.code), ["recipient_mailbox_only"]);
  const toChannel = await sender.call("message", { to: `claude:${sessionId}`, message: "pushed into the session", anticipation: "reply" });
  const messageId = toChannel.messageId as string;
  assert.deepEqual(toChannel.warnings, [], "a session with live push needs no warning");
  const push = await Promise.race([first.pushOf(messageId), second.pushOf(messageId)]);
  assert.match(push.content, new RegExp(`<peerpost-message id="${messageId}" from="codex:peer"[\\s\\S]*pushed into the session`));
  assert.deepEqual(push.meta, { message_id: messageId, from: "codex:peer", anticipation: "reply" });

  // The push receipt is written after the push; stopping the servers before that would lose it.
  const pushReceipts = (id: string) => records(stateDir, "receipts").filter((record) => record.kind === "push" && record.messageId === id);
  await eventually(() => (pushReceipts(messageId).length > 0 ? true : undefined), "the push receipt");

  // A restarted server finds the message delivered: it pushes the next one only.
  await first.close();
  await second.close();
  const restarted = await underFakeClaude(t, link, env(sessionId), channels);
  await restarted.call("health");
  const nextId = (await sender.call("message", { to: `claude:${sessionId}`, message: "after the restart" })).messageId as string;
  await restarted.pushOf(nextId);
  assert.deepEqual(restarted.pushes.map((entry) => entry.meta.message_id), [nextId]);

  const pushesOf = (id: string) => [first, second, restarted, quiet].flatMap((server) => server.pushes).filter((entry) => entry.meta.message_id === id).length;
  assert.equal(pushesOf(messageId), 1);
  const delivered = (id: string) => records(stateDir, "mailbox").filter((record) => record.type === "delivered" && record.id === id);
  assert.deepEqual(delivered(messageId).map((record) => record.via), ["channel"]);
  assert.deepEqual(delivered(nextId).map((record) => record.via), ["channel"]);
  assert.deepEqual(pushReceipts(messageId).map((record) => [record.delivery, record.via]), [["delivered", "channel"]]);
  // Without --channels nothing is pushed or claimed: the message waits for read and the hooks.
  assert.equal(pushesOf(notPushed), 0);
  assert.deepEqual(delivered(notPushed), []);
  const status = await sender.call("status", { messageId: notPushed });
  assert.equal((status.message as { status: string }).status, "queued");
});
