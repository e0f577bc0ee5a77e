// The Grok Build plugin against the real, pinned `grok` CLI, offline: installed from this repository's
// marketplace (the Grok build), its server identified by the session, and — since Grok 1.0.41 runs no
// hook a plugin ships — the fallback: the server's instructions tell the model to call read, and read
// returns the envelope. The plugin's hook file, installed as a user-level hook, shows the Grok dialect.
import { after, before, describe, test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { openPeerpost } from "../core/peerpost.js";
import { GROK_HOOKS, grokUserHookPath, grokUserHooksInstalled, inspectGrok } from "../plugins/grok/inspect.js";
import { grokUserHooks, installGrokUserHooks } from "../plugins/grok/user-hooks.js";
import { repoRoot } from "./helpers/copilot-cli.js";
import { grokSingle, grokUnavailable, installGrokPlugin, makeGrokHome, readGrokLog, writeGrokUserHooks, type GrokHome } from "./helpers/grok-cli.js";
import { contentText, startFakeOpenAIChat, toolResults, type ChatCall, type ChatScript, type FakeOpenAIChat, type Turn } from "./helpers/fake-openai-chat.js";
import { runHook } from "./helpers/hooks.js";
import { isHousekeepingCall } from "./helpers/chat-hosts.js";
import { reminderDueCheck, until } from "./helpers/poll.js";
import { CLI, connect, type Session } from "./helpers/mcp.js";
import { tempDir } from "./helpers/temp.js";

const unavailable = grokUnavailable();
const ROOT = repoRoot();
const PLUGIN_DIR = join(ROOT, "dist", "grok");


describe("grok plugin (real CLI, loopback model)", { skip: unavailable ? `grok CLI unavailable: ${unavailable}` : false, timeout: 300_000 }, () => {
  let fake: FakeOpenAIChat;
  let script: ChatScript = () => ({ text: "ok" });
  let grok: GrokHome;
  let stateDir: string;

  before(async () => {
    fake = await startFakeOpenAIChat({ script: (call) => (isHousekeepingCall(call) ? { text: "housekeeping" } : script(call)) });
    grok = makeGrokHome({ apiBaseUrl: fake.baseUrl });
    stateDir = join(grok.root, "peerpost");
    Object.assign(grok.env, { PEERPOST_HOME: stateDir, PEERPOST_REMINDER_INTERVAL_MS: "1000" });
  });

  after(async () => {
    await fake?.close();
    grok?.cleanup();
  });

  async function peer(t: TestContext): Promise<Session> {
    const session = await connect(t, { HOME: grok.home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "claude:peer" });
    await session.call("health"); // registers claude:peer
    return session;
  }

  function store() {
    return openPeerpost({ env: { PEERPOST_HOME: stateDir, PEERPOST_REMINDER_INTERVAL_MS: "1000" }, home: grok.home });
  }

  /** One `grok --single` run; `turns` scripts its agent turns (0-based). Returns the agent calls it made. */
  async function single(text: string, session: { sessionId: string } | { resume: string }, turns: (call: ChatCall, turn: number) => Turn | Promise<Turn>): Promise<ChatCall[]> {
    const first = fake.chatCalls().length;
    let turn = 0;
    script = (call) => turns(call, turn++);
    const which = "sessionId" in session ? { sessionId: session.sessionId } : { extraArgs: ["--resume", session.resume] };
    const run = await grokSingle(text, { home: grok, ...which });
    script = () => ({ text: "ok" });
    assert.equal(run.timedOut, false, `grok timed out: ${run.stderr.slice(-2000)}`);
    assert.equal(run.code, 0, `${run.stderr.slice(-2000)}\n${readGrokLog(grok).slice(-3000)}`);
    return fake.chatCalls().slice(first).filter((call) => !isHousekeepingCall(call));
  }

  const useTool = (tool: string, input: unknown): Turn => ({ toolCall: { name: "use_tool", arguments: { tool_name: `peerpost__${tool}`, tool_input: input } } });

  test("installs the Grok build from the repository's marketplace", async () => {
    await installGrokPlugin(grok, ROOT, "peerpost");
    const report = inspectGrok(grok.env);
    assert.deepEqual([report.pluginInstalled, report.pluginEnabled, report.pluginVersion, report.installedFrom], [true, true, "0.1.0", PLUGIN_DIR], "Grok picked .grok-plugin/marketplace.json → dist/grok");
    const registry = JSON.parse(readFileSync(join(grok.grokHome, "installed-plugins", "registry.json"), "utf8")) as { repos: Record<string, { path: string }> };
    const copy = Object.values(registry.repos)[0]!.path;
    assert.ok(existsSync(join(copy, ".grok-plugin", "plugin.json")), "the Grok manifest");
    assert.ok(!existsSync(join(copy, ".claude-plugin")) && !existsSync(join(copy, ".plugin")), "not another host's build");
    assert.match(readFileSync(join(copy, ".mcp.json"), "utf8"), /\$\{GROK_PLUGIN_ROOT\}\/server\.mjs/);

    const doctor = spawnSync(process.execPath, [CLI, "doctor", "--json"], { env: grok.env, encoding: "utf8", timeout: 60_000 });
    const host = (JSON.parse(doctor.stdout) as { hosts: Array<{ host: string; pluginInstalled: boolean; pluginVersion: string; hooks: string }> }).hosts.find((entry) => entry.host === "grok");
    assert.deepEqual([host?.pluginInstalled, host?.pluginVersion, host?.hooks], [true, "0.1.0", GROK_HOOKS.missing]);
  });

  test("grok --single: the model calls peerpost's message tool and the peer gets it from the verified session", async (t) => {
    const other = await peer(t);
    const sessionId = randomUUID();
    const marker = `GROK_MESSAGE_${randomUUID()}`;
    const calls = await single("tell the peer", { sessionId }, (_call, turn) =>
      turn === 0 ? useTool("message", { to: "claude:peer", message: marker }) : turn === 1 ? useTool("health", {}) : { text: "sent" },
    );
    assert.equal(calls.length, 3);
    assert.match(toolResults(calls[1]!.body).at(-1)!, /"ok": ?true/, "the message tool succeeded");

    const envelopes = ((await other.call("read")).messages as Array<{ envelope: string }>).map((message) => message.envelope);
    assert.equal(envelopes.length, 1);
    assert.ok(envelopes[0]!.includes(marker));
    assert.match(envelopes[0]!, new RegExp(`from="grok:${sessionId}" fromVerified="true"`));

    const health = JSON.parse(toolResults(calls[2]!.body).at(-1)!) as { identity: { address: string; detail: string }; host: { adapter: string; grok: { hooks: string } }; push: { transport: string } };
    assert.deepEqual([health.identity.address, health.identity.detail, health.host.adapter], [`grok:${sessionId}`, "GROK_SESSION_ID", "grok"]);
    assert.equal(health.host.grok.hooks, GROK_HOOKS.missing);
    assert.equal(health.push.transport, "none");
    const receipts = (await other.call("receipts", { kind: "send", address: `grok:${sessionId}` })).receipts as Array<{ origin: { detail: string } }>;
    assert.equal(receipts[0]?.origin.detail, "host-env");
  });

  test("no hook announces mail in Grok: the server's instructions tell the model to call read, and read returns the envelope", async (t) => {
    const other = await peer(t);
    const sessionId = randomUUID();
    await single("hello", { sessionId }, () => ({ text: "hi" }));
    const body = `BODY_${randomUUID()}`;
    const sent = await other.call("message", { to: `grok:${sessionId}`, message: body, anticipation: "reply" });
    assert.equal(sent.ok, true, JSON.stringify(sent));

    const calls = await single("next task", { resume: sessionId }, (_call, turn) => (turn === 0 ? useTool("read", {}) : { text: "read it" }));
    const [prompted, afterRead] = calls;
    const connected = prompted!.body.messages.map((message) => contentText(message.content)).filter((text) => text.includes("MCP server connected"));
    assert.equal(connected.length, 1, "Grok shows the MCP server's instructions when it connects");
    assert.match(connected[0]!, /- peerpost \(17 tools\): peerpost connects you/);
    assert.match(connected[0]!, /call peerpost's read tool \(use_tool with tool_name peerpost__read\) at the start of each task and again when you have finished it/);
    assert.equal(fake.findShown("new message from other AI agents").filter((hit) => hit.call === prompted!.index).length, 0, "no hook told the model (Grok 1.0.41 runs no plugin hook)");

    const shown = toolResults(afterRead!.body).at(-1)!;
    assert.ok(shown.includes(body), "read returned the body");
    assert.match(shown, /<peerpost-message id=\\?"[^"\\]+\\?" from=\\?"claude:peer\\?" fromVerified=\\?"false\\?" to=\\?"grok:/);
    assert.equal(store().mailbox.inbox(`grok:${sessionId}`, { unreadOnly: true }).length, 0, "read marked it read");
  });

  test("the plugin's hook file as a user-level hook: SessionStart registers, Stop blocks once for a due reminder, and only once", async (t) => {
    const other = await peer(t);
    // Grok runs user hooks from $GROK_HOME/hooks/ (this test's temp home); a plugin's own hooks it does not run.
    const pluginHooks = readFileSync(join(PLUGIN_DIR, "hooks", "hooks.json"), "utf8").replaceAll("${GROK_PLUGIN_ROOT}", PLUGIN_DIR);
    writeGrokUserHooks(grok, "peerpost", JSON.parse(pluginHooks));
    t.after(() => writeGrokUserHooks(grok, "peerpost", { hooks: {} }));

    const sessionId = randomUUID();
    const address = `grok:${sessionId}`;
    await single("hello", { sessionId }, () => ({ text: "hi" }));
    // The server registers the session too (source "server"); the hook's own record says "startup".
    const records = readFileSync(join(stateDir, "sessions.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { address: string; host: string; source: string; cwd?: string });
    const fromHook = records.filter((record) => record.address === address && record.source === "startup");
    assert.equal(fromHook.length, 1, "registered by the SessionStart hook");
    assert.deepEqual([fromHook[0]!.host, realpathSync(fromHook[0]!.cwd ?? "/")], ["grok", realpathSync(grok.workDir)]);

    const sent = await other.call("message", { to: address, message: "need an answer", anticipation: "reply" });
    const messageId = sent.messageId as string;
    const reminderDue = reminderDueCheck(store, address, messageId);
    const calls = await single("anything new?", { resume: sessionId }, async (_call, turn) => {
      if (turn === 0) return useTool("read", {});
      if (turn === 1) {
        await until(reminderDue, 10_000, "the reminder for the read request to fall due");
        return { text: "read it, will answer later" };
      }
      return { text: "noted the reminder" };
    });
    const feedback = (call: ChatCall) => call.body.messages.filter((message) => message.role === "user" && /Stop hook feedback:[^]*peerpost reminder/.test(contentText(message.content))).length;
    assert.equal(calls.length, 3, "one more turn after the block, then the turn ended");
    assert.equal(feedback(calls[1]!), 0);
    assert.equal(feedback(calls[2]!), 1, "Stop blocked with the reminder");
    assert.match(contentText(calls[2]!.body.messages.at(-1)!.content), new RegExp(messageId));
    assert.equal(store().mailbox.view(address).state.messages[messageId]!.reminders.count, 1, "one reminder, given by the block");
  });

  test("the user-level hooks run from a plugin dir whose path holds $, a backquote, quotes and spaces", async (t) => {
    // Grok runs a hook's command through sh (`echo $(echo x)` printed "x"), after replacing `$NAME` and
    // `${NAME}` itself, inside single quotes too (`'a$HOME'` printed a/home/…; with a variable that is
    // not set, the hook failed). The path must reach node as it is.
    const pluginDir = join(grok.root, "plug$HOME ${PEERPOST_UNSET} $$ `false` \"in\" 'dir'");
    cpSync(PLUGIN_DIR, pluginDir, { recursive: true });
    writeGrokUserHooks(grok, "peerpost", grokUserHooks(pluginDir));
    t.after(() => writeGrokUserHooks(grok, "peerpost", { hooks: {} }));
    assert.ok(grokUserHooksInstalled(grok.env), "doctor reads the hook file as installed");
    const sessionId = randomUUID();
    await single("hello", { sessionId }, () => ({ text: "hi" }));
    const records = readFileSync(join(stateDir, "sessions.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { address: string; source: string });
    assert.equal(records.filter((record) => record.address === `grok:${sessionId}` && record.source === "startup").length, 1, "registered by the SessionStart hook");
  });
});

// ---- no CLI needed ---------------------------------------------------------------------------

test("a peerpost server started by Grok is grok:<session>, whichever plugin dir it came from", async (t) => {
  const home = tempDir(t);
  const sessionId = randomUUID();
  for (const bundle of ["claude-code", "copilot", "grok"]) {
    const server = await connect(t, { HOME: home, PEERPOST_HOME: join(home, "state"), GROK_SESSION_ID: sessionId, CLAUDE_PLUGIN_ROOT: join(ROOT, "dist", bundle) }, join(ROOT, "dist", bundle, "server.mjs"), []);
    const health = await server.call("health");
    assert.equal((health.identity as { address: string }).address, `grok:${sessionId}`, bundle);
    assert.equal((health.host as { adapter: string }).adapter, "grok", bundle);
  }
});

test("Grok's hook dialect: nothing printed for SessionStart, Stop blocks only at end_turn, camel and snake stdin", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const sessionId = randomUUID();
  const peerpost = openPeerpost({ env, home });
  const { message } = await peerpost.mailbox.send({ from: "codex:a1", fromVerified: true, to: `grok:${sessionId}`, body: "SECRET", anticipation: "reply" });
  const common = { sessionId, session_id: sessionId, cwd: "/work/project", workspaceRoot: "/work/project", timestamp: new Date().toISOString() };
  const start = await runHook("grok", "session-start", { ...common, hookEventName: "session_start", hook_event_name: "SessionStart", source: "new" }, env);
  assert.deepEqual([start.code, start.stdout], [0, ""], "Grok shows SessionStart output to no one: print nothing");
  assert.equal(openPeerpost({ env, home }).sessions.all().find((entry) => entry.address === `grok:${sessionId}`)?.cwd, "/work/project");

  await peerpost.mailbox.markRead(`grok:${sessionId}`, [message.id]);
  const late = { ...env, PEERPOST_NOW: String(Date.now() + 60_000) };
  const stop = (reason: string) => runHook("grok", "stop", { ...common, hookEventName: "stop", hook_event_name: "Stop", reason, stopHookActive: false }, late);
  assert.equal((await stop("shutdown")).stdout, "", "a Stop at shutdown cannot continue the turn");
  assert.equal(openPeerpost({ env: late, home }).mailbox.view(`grok:${sessionId}`).state.messages[message.id]!.reminders.count, 0, "and records no reminder");
  const block = JSON.parse((await stop("end_turn")).stdout) as { decision: string; reason: string };
  assert.equal(block.decision, "block");
  assert.match(block.reason, new RegExp(`peerpost reminder: .*${message.id}`));
});


test("doctor reads a hook file written before the shell quoting as installed, unless its path is one Grok's shell misread", (t) => {
  const home = tempDir(t);
  const env = { HOME: home, GROK_HOME: join(home, ".grok") };
  const write = (command: string) => {
    mkdirSync(dirname(grokUserHookPath(env)), { recursive: true });
    writeFileSync(grokUserHookPath(env), JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command }] }] } }));
  };
  for (const dir of ["plain", "with space", "with$dollar"]) {
    cpSync(PLUGIN_DIR, join(home, dir), { recursive: true });
    write(`node ${JSON.stringify(join(home, dir, "hooks.cjs"))} session-start`);
    assert.equal(grokUserHooksInstalled(env), dir !== "with$dollar", dir);
    installGrokUserHooks(env, join(home, dir));
    assert.ok(grokUserHooksInstalled(env), `${dir}, as written now`);
  }
});
