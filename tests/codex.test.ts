// The Codex plugin against the real, pinned `codex` CLI, offline: installed from this repository's
// marketplace, its server launched by Codex and identified by the thread, its hooks in Codex's dialect,
// hook trust as Codex writes it, and live push of a message into an app-server thread as a turn.
import { after, before, describe, test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, realpathSync, rmSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { AppServerClient, clientIdOf, type Notification } from "../plugins/codex/app-server-client.js";
import { clientMessageIdFor, controlSocketPath } from "../plugins/codex/push.js";
import { inspectCodex } from "../plugins/codex/inspect.js";
import { openPeerpost } from "../core/peerpost.js";
import { codexAvailable, codexBinary, isolatedCodexEnv, jsonLines, killGroup, makeScratchDir, removeShortSocketAlias, repoRoot, runCodex, type CodexEnv, type CodexRun } from "./helpers/codex-cli.js";
import { startFakeResponses, type FakeResponses, type ResponsesRequest, type Script } from "./helpers/fake-openai-responses.js";
import { CLI, connect, type Session } from "./helpers/mcp.js";
import { reminderDueCheck, until } from "./helpers/poll.js";

const availability = codexAvailable();
const skip = availability.ok ? false : `codex CLI unavailable: ${availability.reason}`;
const ROOT = repoRoot() ?? process.cwd();
const PLUGIN = "peerpost@peerpost";
const NAMESPACE = "mcp__peerpost";
const CLIENT = { name: "peerpost-test", title: "peerpost-test", version: "0.0.0" };
/** Lets the app-server-side model call peerpost's non-read-only tools without a prompt (see the README). */
const APPROVE_TABLE = `\n[plugins."${PLUGIN}".mcp_servers.peerpost]\ndefault_tools_approval_mode = "approve"\n`;

describe("codex plugin (real CLI, loopback model)", { skip, timeout: 300_000 }, () => {
  let fake: FakeResponses;
  let script: Script = () => ({ text: "ok" });
  let scratch: string;
  let codex: CodexEnv;
  let stateDir: string;
  let installedPath: string;

  before(async () => {
    fake = await startFakeResponses((request, index) => script(request, index));
    scratch = makeScratchDir("peerpost-codex-plugin-");
    stateDir = join(scratch, "peerpost");
    codex = isolatedCodexEnv(scratch, fake.baseUrl, { env: { PEERPOST_HOME: stateDir, PEERPOST_REMINDER_INTERVAL_MS: "1000" } });
  });

  after(async () => {
    await fake?.close();
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  /** A peerpost session outside Codex, as another agent would run it. */
  function peer(t: TestContext, address = "claude:peer"): Promise<Session> {
    return connect(t, { HOME: codex.home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: address });
  }

  function store() {
    return openPeerpost({ env: { PEERPOST_HOME: stateDir, PEERPOST_REMINDER_INTERVAL_MS: "1000" }, home: codex.home });
  }

  /** Runs `codex exec --json …` and returns the run, its thread id and the model requests it made. */
  async function exec(args: string[], turns: Script): Promise<{ run: CodexRun; threadId: string; requests: ResponsesRequest[] }> {
    const first = fake.requests().length;
    let count = 0;
    script = (request) => turns(request, count++);
    const run = await runCodex(["exec", "--json", "--skip-git-repo-check", ...args], { env: codex.env, timeoutMs: 60_000 });
    script = () => ({ text: "ok" });
    assert.equal(run.timedOut, false, `codex exec timed out: ${run.stderr.slice(-2000)}`);
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const started = jsonLines(run.stdout).find((event) => event["type"] === "thread.started");
    assert.ok(started, `no thread.started event in ${run.stdout.slice(0, 1000)}`);
    return { run, threadId: String(started["thread_id"]), requests: fake.requests().slice(first) };
  }

  test("installs the Codex build from the repository's marketplace; the cached server answers MCP", async (t) => {
    const added = await runCodex(["plugin", "marketplace", "add", ROOT, "--json"], { env: codex.env });
    assert.equal(added.code, 0, added.stderr);
    assert.equal(JSON.parse(added.stdout).marketplaceName, "peerpost");
    const installed = await runCodex(["plugin", "add", PLUGIN, "--json"], { env: codex.env });
    assert.equal(installed.code, 0, installed.stderr);
    installedPath = JSON.parse(installed.stdout).installedPath as string;
    assert.equal(installedPath, join(codex.codexHome, "plugins", "cache", "peerpost", "peerpost", "0.1.0"));
    assert.ok(existsSync(join(installedPath, ".codex-plugin", "plugin.json")), "the Codex manifest is in the cache copy");
    assert.ok(!existsSync(join(installedPath, ".claude-plugin")), "not the Claude Code build");
    for (const file of ["server.mjs", "hooks.cjs", ".mcp.json", "hooks/hooks.json"]) assert.ok(existsSync(join(installedPath, file)), file);
    appendFileSync(codex.configPath, APPROVE_TABLE);

    const other = await peer(t);
    await other.call("health");
    const cached = await connect(t, { HOME: codex.home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "codex:from-the-cache" }, join(installedPath, "server.mjs"), []);
    const { tools } = await cached.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ["agents", "claim", "claims", "fork", "health", "launch", "message", "read", "receipts", "release", "reply", "resolve", "roles", "set_agent_override_policy", "status", "task", "wait"]);
    const sent = await cached.call("message", { to: "claude:peer", message: "hello from the cache copy" });
    assert.equal(sent.ok, true, JSON.stringify(sent));
    assert.equal((await other.call("read")).count, 1);
  });

  test("codex exec: the model calls peerpost's message tool and the sender is the verified thread", async (t) => {
    const other = await peer(t);
    await other.call("health");
    const marker = `EXEC_MESSAGE_${randomUUID()}`;
    const { threadId, requests } = await exec(["-s", "read-only", "tell the peer"], (_request, index) =>
      index === 0 ? { toolCall: { namespace: NAMESPACE, name: "message", arguments: { to: "claude:peer", message: marker } } } : { text: "sent" },
    );
    const offered = requests[0]!.body["tools"] as Array<{ type: string; name: string; tools?: Array<{ name: string }> }>;
    const namespace = offered.find((tool) => tool.type === "namespace" && tool.name === NAMESPACE);
    assert.ok(namespace?.tools?.some((tool) => tool.name === "message"), "Codex offered peerpost's tools to the model");
    assert.ok(fake.shown(requests[1]!).some((shown) => shown.source === "tool_output" && shown.text.includes('"ok":true')), "the tool call succeeded");

    const inbox = await other.call("read");
    const [envelope] = (inbox.messages as Array<{ envelope: string }>).map((message) => message.envelope);
    assert.ok(envelope?.includes(marker), JSON.stringify(inbox));
    assert.match(envelope!, new RegExp(`from="codex:${threadId}" fromVerified="true"`));
    const receipts = (await other.call("receipts", { kind: "send", address: `codex:${threadId}` })).receipts as Array<{ origin: { detail: string; cwd: string } }>;
    assert.equal(receipts.length, 1);
    assert.equal(receipts[0]!.origin.detail, "mcp-meta", "the identity came from the tool call's _meta");
    assert.equal(realpathSync(receipts[0]!.origin.cwd), realpathSync(installedPath), "Codex launched the installed server (cwd is the plugin root)");
    const entry = store().sessions.all().find((session) => session.address === `codex:${threadId}`);
    assert.equal(entry?.source, "server", "untrusted hooks did not run; the server registered the thread");
  });

  test("hooks (trust bypassed): SessionStart registers the thread, a resume flags mail without its body, Stop blocks once", async (t) => {
    const other = await peer(t);
    await other.call("health");
    const first = await exec(["--dangerously-bypass-hook-trust", "-s", "read-only", "hello"], () => ({ text: "hi" }));
    const address = `codex:${first.threadId}`;
    const entry = store().sessions.all().find((session) => session.address === address);
    assert.deepEqual([entry?.host, entry?.source, entry?.cwd], ["codex", "startup", codex.home], "registered by the SessionStart hook");

    const body = `HOOK_BODY_${randomUUID()}`;
    const sent = await other.call("message", { to: address, message: body, anticipation: "reply" });
    assert.equal(sent.ok, true, JSON.stringify(sent));
    const messageId = sent.messageId as string;
    const reminderDue = reminderDueCheck(store, address, messageId);

    const resumed = await exec(["--dangerously-bypass-hook-trust", "resume", first.threadId, "anything new?"], async (_request, index) => {
      if (index === 0) return { toolCall: { namespace: NAMESPACE, name: "read", arguments: {} } };
      if (index === 1) {
        await until(reminderDue, 10_000, "the reminder for the read request to fall due");
        return { text: "read it, will answer later" };
      }
      return { text: "noted the reminder" };
    });
    assert.equal(resumed.threadId, first.threadId);
    const [prompted, afterRead, continued] = resumed.requests;
    const developer = fake.shown(prompted!).filter((shown) => shown.source === "developer").map((shown) => shown.text).join("\n");
    assert.match(developer, /peerpost: 1 new message from other AI agents on this machine \(claude:peer\), 1 expecting an answer/);
    assert.equal(fake.occurrences(prompted!, body), 0, "the note never carries the body");
    assert.ok(fake.occurrences(afterRead!, body) > 0, "the read tool showed the body");
    assert.equal(fake.occurrences(afterRead!, "peerpost reminder"), 0);
    assert.equal(fake.occurrences(continued!, "peerpost reminder"), 1, "Stop blocked with the reminder");
    assert.equal(resumed.requests.length, 3, "the continued turn ended: Stop did not block again");
    const message = store().mailbox.view(address).state.messages[messageId]!;
    assert.equal(message.reminders.count, 1);
  });

  test("hook trust written the way Codex writes it is what health and doctor report", async () => {
    const before = inspectCodex(codex.env);
    assert.equal(before.pluginEnabled, true);
    assert.deepEqual(before.hooksDeclared, ["session_start:0:0", "user_prompt_submit:0:0", "pre_tool_use:0:0", "stop:0:0"]);
    assert.deepEqual(before.hooksTrusted, { session_start: false, user_prompt_submit: false, pre_tool_use: false, stop: false });

    const spawned = await AppServerClient.spawn({ command: codexBinary() ?? "codex", env: codex.env, cwd: codex.home });
    assert.ok(spawned.ok);
    const client = spawned.value;
    try {
      assert.ok((await client.initialize(CLIENT)).ok);
      const listed = await listPeerpostHooks(client, codex.home);
      // Codex lists them in its own order of events.
      assert.deepEqual(listed.map((hook) => [hook.key, hook.trustStatus]).sort(), before.hooksDeclared.map((key) => [`${PLUGIN}:hooks/hooks.json:${key}`, "untrusted"]).sort());
      // What the TUI's /hooks "trust" does: write both halves of currentHash through the config API.
      const edits = listed.map((hook) => {
        const [trustedHash, contentHash] = hook.currentHash.split("/");
        return { keyPath: `hooks.state.${JSON.stringify(hook.key)}`, value: { trusted_hash: trustedHash, trusted_content_hash: contentHash }, mergeStrategy: "upsert" };
      });
      const written = await client.request("config/batchWrite", { edits });
      assert.ok(written.ok, written.ok ? "" : written.error.message);
      assert.deepEqual((await listPeerpostHooks(client, codex.home)).map((hook) => hook.trustStatus), ["trusted", "trusted", "trusted", "trusted"]);
    } finally {
      await client.close();
    }
    assert.deepEqual(inspectCodex(codex.env).hooksTrusted, { session_start: true, user_prompt_submit: true, pre_tool_use: true, stop: true });
    const doctor = spawnSync(process.execPath, [CLI, "doctor", "--json"], { env: { ...codex.env }, encoding: "utf8", timeout: 60_000 });
    const report = JSON.parse(doctor.stdout) as { hosts: Array<{ host: string; pluginInstalled: boolean; hooks: string }> };
    const codexHost = report.hosts.find((host) => host.host === "codex");
    assert.deepEqual([codexHost?.pluginInstalled, codexHost?.hooks], [true, "declared and trusted"]);
  });

  test("push: a message reaches a thread loaded in the app-server as one turn, once, even across a restart", async (t) => {
    // A CODEX_HOME without the plugin, so the only pusher is the server this test starts.
    const daemonScratch = join(scratch, "daemon");
    mkdirSync(daemonScratch);
    const daemon = isolatedCodexEnv(daemonScratch, fake.baseUrl);
    const socket = controlSocketPath(daemon.env);
    const appServer = spawn(codexBinary() ?? "codex", ["app-server", "--listen", "unix://"], { env: daemon.env, cwd: daemon.home, stdio: ["pipe", "ignore", "ignore"], detached: true });
    t.after(() => {
      stopGroup(appServer);
      removeShortSocketAlias(socket);
    });
    await until(() => existsSync(socket), 15_000, `the control socket ${socket}`);

    const connected = await AppServerClient.connectUnix(socket);
    assert.ok(connected.ok, connected.ok ? "" : connected.error.message);
    const owner = connected.value;
    t.after(() => owner.close());
    assert.ok((await owner.initialize(CLIENT)).ok);
    const started = await owner.threadStart({ cwd: daemon.home, sandbox: "read-only", approvalPolicy: "never" });
    assert.ok(started.ok, started.ok ? "" : started.error.message);
    const threadId = started.value.thread.id;
    const address = `codex:${threadId}`;
    const completedTurns: Notification[] = [];
    owner.onNotification((notification) => { if (notification.method === "turn/completed") completedTurns.push(notification); });

    const other = await peer(t, "claude:pusher");
    await other.call("health");
    const serverEnv = { HOME: daemon.home, CODEX_HOME: daemon.codexHome, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: address };
    const codexServer = await connect(t, serverEnv, join(ROOT, "dist", "codex", "server.mjs"), []);
    await until(async () => pushState(await codexServer.call("health")).available === true, 15_000, "push to become available");

    // A thread the app-server does not hold (e.g. run by `codex exec`) and a CODEX_HOME without a socket.
    const elsewhere = await connect(t, { ...serverEnv, PEERPOST_ADDRESS: "codex:held-elsewhere" }, join(ROOT, "dist", "codex", "server.mjs"), []);
    await until(async () => /is not loaded in the Codex app-server/.test(pushState(await elsewhere.call("health")).reason ?? ""), 15_000, "push to report the thread as unreachable");
    const noDaemon = await connect(t, { ...serverEnv, CODEX_HOME: codex.codexHome }, join(ROOT, "dist", "codex", "server.mjs"), []);
    await until(async () => /no Codex app-server is listening/.test(pushState(await noDaemon.call("health")).reason ?? ""), 15_000, "push to report the missing socket");
    const described = (await noDaemon.call("health")).host as { codex: { controlSocket: { exists: boolean } } };
    assert.equal(described.codex.controlSocket.exists, false);

    const marker = `PUSHED_${randomUUID()}`;
    const sent = await other.call("message", { to: address, message: marker, anticipation: "reply" });
    assert.equal(sent.ok, true, JSON.stringify(sent));
    const messageId = sent.messageId as string;
    await until(() => completedTurns.length >= 1, 30_000, "the pushed turn to complete");

    assert.equal(fake.requestsContaining(marker), 1, "exactly one model request carried the message");
    const request = fake.requests().find((candidate) => fake.occurrences(candidate, marker) > 0)!;
    const input = fake.shown(request).filter((shown) => shown.source === "user" && shown.text.includes(marker));
    assert.equal(input.length, 1);
    assert.match(input[0]!.text, new RegExp(`^<peerpost-message id="${messageId}" from="claude:pusher" fromVerified="false" to="${address}"`));
    assert.deepEqual(await owner.hasClientMessage(threadId, clientMessageIdFor(messageId)), { ok: true, value: true });
    const status = (await other.call("status", { messageId })).message as { history: Array<{ event: string; detail?: string }> };
    assert.deepEqual(status.history.filter((entry) => entry.event === "delivered").map((entry) => entry.detail), ["via codex-turn"]);
    // The server writes the receipt once turn/start has answered, which the turn's completion does not wait for.
    const pushReceipts = async () => (await other.call("receipts", { kind: "push", address })).receipts as Array<{ delivery: string; via: string; messageId: string }>;
    await until(async () => (await pushReceipts()).length >= 1, 15_000, "the push receipt");
    const pushes = await pushReceipts();
    assert.deepEqual(pushes.map((receipt) => [receipt.messageId, receipt.delivery, receipt.via]), [[messageId, "delivered", "codex-turn"]]);

    // The server stops. A second message arrives, and the thread already holds it (as after a delivery
    // whose answer was lost): the restarted server must give the thread neither message again.
    await codexServer.client.close();
    const second = `SECOND_${randomUUID()}`;
    const secondId = (await other.call("message", { to: address, message: second })).messageId as string;
    const seeded = await owner.turnStart({ threadId, input: [{ type: "text", text: "an earlier delivery of the second message", text_elements: [] }], clientUserMessageId: clientMessageIdFor(secondId) });
    assert.ok(seeded.ok, seeded.ok ? "" : seeded.error.message);
    await until(() => completedTurns.length >= 2, 30_000, "the seeded turn to complete");

    const restarted = await connect(t, serverEnv, join(ROOT, "dist", "codex", "server.mjs"), []);
    await until(async () => pushState(await restarted.call("health")).pushed === 1, 15_000, "the restarted server to handle the second message");
    // A third message as a barrier: pushes go in message order, so once its turn completes, a wrongly
    // repeated push of the first or second message would already be in the thread.
    const third = `THIRD_${randomUUID()}`;
    const thirdId = (await other.call("message", { to: address, message: third })).messageId as string;
    await until(() => completedTurns.length >= 3, 30_000, "the third message's turn to complete");

    const secondStatus = (await other.call("status", { messageId: secondId })).message as { history: Array<{ event: string; detail?: string }> };
    assert.deepEqual(secondStatus.history.filter((entry) => entry.event === "delivered").map((entry) => entry.detail), ["via codex-turn"]);
    assert.equal(fake.requestsContaining(second), 0, "the thread already held the second message; it was not sent again");
    assert.equal(fake.occurrences(fake.requests().at(-1)!, marker), 1, "the newest model request holds the first message once (history), not twice");
    assert.deepEqual(
      (await userMessages(owner, threadId)).map((item) => item.clientId),
      [clientMessageIdFor(messageId), clientMessageIdFor(secondId), clientMessageIdFor(thirdId)],
      "the thread's user messages: the first push, the seeded one, the third push — nothing repeated",
    );
    assert.equal(completedTurns.length, 3, "no further turn was started");
  });
});

/** The thread's user messages, oldest first, with their clientUserMessageId. */
async function userMessages(client: AppServerClient, threadId: string): Promise<Array<{ clientId: string | null }>> {
  const listed = await client.threadTurnsList({ threadId, itemsView: "full", sortDirection: "asc" });
  assert.ok(listed.ok, listed.ok ? "" : listed.error.message);
  return listed.value.data.flatMap((turn) => turn.items).filter((item) => item.type === "userMessage").map((item) => ({ clientId: clientIdOf(item) }));
}

function pushState(health: Record<string, unknown>): { available?: boolean; pushed?: number; reason?: string } {
  return (health.push ?? {}) as { available?: boolean; pushed?: number };
}

interface HookEntry { key: string; pluginId: string | null; currentHash: string; trustStatus: string }

async function listPeerpostHooks(client: AppServerClient, cwd: string): Promise<HookEntry[]> {
  const listed = await client.request<{ data: Array<{ hooks: HookEntry[] }> }>("hooks/list", { cwds: [cwd] });
  assert.ok(listed.ok, listed.ok ? "" : listed.error.message);
  return listed.value.data.flatMap((entry) => entry.hooks).filter((hook) => hook.pluginId === PLUGIN);
}



function stopGroup(child: ChildProcess): void {
  child.stdin?.end();
  killGroup(child.pid);
}
