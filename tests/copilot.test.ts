// The Copilot CLI plugin against the real, pinned `copilot` CLI, offline: installed from this
// repository's marketplace (the Copilot build, not another host's), its server identified by the
// session, its hooks in Copilot's dialect (context on the next prompt, agentStop blocking once), and
// the host told by its session variable whichever plugin dir a server came from.
import { after, before, describe, test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { openPeerpost } from "../core/peerpost.js";
import { inspectCopilot } from "../plugins/copilot/inspect.js";
import { copilotPrompt, copilotUnavailable, makeCopilotHome, mustSucceed, repoRoot, runCopilot, type CopilotHome } from "./helpers/copilot-cli.js";
import { contentText, startFakeOpenAIChat, toolResults, type ChatCall, type ChatScript, type FakeOpenAIChat, type Turn } from "./helpers/fake-openai-chat.js";
import { runHook } from "./helpers/hooks.js";
import { reminderDueCheck, until } from "./helpers/poll.js";
import { CLI, connect, type Session } from "./helpers/mcp.js";
import { tempDir } from "./helpers/temp.js";

const unavailable = copilotUnavailable();
const ROOT = repoRoot();
const PLUGIN_DIR = join(ROOT, "dist", "copilot");
const NOTE = /peerpost: 1 new message from other AI agents on this machine \(claude:peer\), 1 expecting an answer/;

describe("copilot plugin (real CLI, loopback model)", { skip: unavailable ? `copilot CLI unavailable: ${unavailable}` : false, timeout: 300_000 }, () => {
  let fake: FakeOpenAIChat;
  let script: ChatScript = () => ({ text: "ok" });
  let copilot: CopilotHome;
  let stateDir: string;

  before(async () => {
    fake = await startFakeOpenAIChat({ script: (call) => script(call) });
    copilot = makeCopilotHome();
    stateDir = join(copilot.root, "peerpost");
    Object.assign(copilot.env, { PEERPOST_HOME: stateDir, PEERPOST_REMINDER_INTERVAL_MS: "1000" });
  });

  after(async () => {
    await fake?.close();
    await copilot?.cleanup();
  });

  /** A peerpost session outside Copilot, as another agent would run it. */
  async function peer(t: TestContext): Promise<Session> {
    const session = await connect(t, { HOME: copilot.home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "claude:peer" });
    await session.call("health"); // registers claude:peer
    return session;
  }

  function store() {
    return openPeerpost({ env: { PEERPOST_HOME: stateDir, PEERPOST_REMINDER_INTERVAL_MS: "1000" }, home: copilot.home });
  }

  /** One `copilot -p` run; `turns` scripts its model calls (0-based). Returns the calls it made. */
  async function prompt(text: string, session: { sessionId: string } | { resume: string }, turns: (call: ChatCall, turn: number) => Turn | Promise<Turn>): Promise<ChatCall[]> {
    const first = fake.chatCalls().length;
    let turn = 0;
    script = (call) => turns(call, turn++);
    const which = "sessionId" in session ? { sessionId: session.sessionId } : { extraArgs: [`--resume=${session.resume}`] };
    const run = await copilotPrompt(text, { home: copilot, provider: { baseUrl: fake.baseUrl }, ...which });
    script = () => ({ text: "ok" });
    assert.equal(run.timedOut, false, `copilot timed out: ${run.stderr.slice(-2000)}`);
    assert.equal(run.code, 0, run.stderr.slice(-2000) || run.stdout.slice(-2000));
    return fake.chatCalls().slice(first);
  }

  test("installs the Copilot build from the repository's marketplace, live from dist/copilot", async () => {
    const options = { env: copilot.env, cwd: copilot.workDir, timeoutMs: 60_000 };
    await mustSucceed("marketplace add", runCopilot(["plugin", "marketplace", "add", ROOT], options));
    const installed = await mustSucceed("install", runCopilot(["plugin", "install", "peerpost@peerpost"], options));
    assert.match(installed.stdout + installed.stderr, new RegExp(`loaded live from ${PLUGIN_DIR.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`), "Copilot picked .github/plugin/marketplace.json → dist/copilot");

    const manifest = JSON.parse(readFileSync(join(PLUGIN_DIR, ".plugin", "plugin.json"), "utf8")) as { name: string; mcpServers: string };
    assert.deepEqual([manifest.name, manifest.mcpServers], ["peerpost", ".mcp.json"]);
    const hooks = JSON.parse(readFileSync(join(PLUGIN_DIR, "hooks", "hooks.json"), "utf8")) as { version: number; hooks: Record<string, Array<{ bash: string }>> };
    assert.equal(hooks.version, 1, "Copilot's own hook format, not Claude's");
    assert.deepEqual(Object.keys(hooks.hooks), ["sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "agentStop"]);
    assert.ok(!existsSync(join(ROOT, "marketplace.json")) && !existsSync(join(ROOT, ".plugin", "marketplace.json")), "no catalogue that Copilot would read first");

    const report = inspectCopilot(copilot.env);
    assert.deepEqual([report.pluginEnabled, report.hooksActive, report.marketplace], [true, true, ROOT]);
    const doctor = spawnSync(process.execPath, [CLI, "doctor", "--json"], { env: copilot.env, encoding: "utf8", timeout: 60_000 });
    const host = (JSON.parse(doctor.stdout) as { hosts: Array<{ host: string; pluginInstalled: boolean; hooks: string; push: string }> }).hosts.find((entry) => entry.host === "copilot");
    assert.equal(host?.pluginInstalled, true);
    assert.match(host!.hooks, /sessionStart, userPromptSubmitted, preToolUse, postToolUse, agentStop/);
    assert.equal(host!.push, "none: mail waits for read and the hooks");
  });

  test("copilot -p: the model calls peerpost's message tool and the peer gets it from the verified session", async (t) => {
    const other = await peer(t);
    const sessionId = randomUUID();
    const marker = `COPILOT_MESSAGE_${randomUUID()}`;
    const calls = await prompt("tell the peer", { sessionId }, (_call, turn) =>
      turn === 0 ? { toolCall: { name: "peerpost-message", arguments: { to: "claude:peer", message: marker } } }
        : turn === 1 ? { toolCall: { name: "peerpost-health", arguments: {} } }
          : { text: "sent" },
    );
    assert.equal(calls.length, 3);
    assert.match(toolResults(calls[1]!.body).at(-1)!, /"ok": ?true/, "the message tool succeeded");

    const inbox = await other.call("read");
    const envelopes = (inbox.messages as Array<{ envelope: string }>).map((message) => message.envelope);
    assert.equal(envelopes.length, 1);
    assert.ok(envelopes[0]!.includes(marker));
    assert.match(envelopes[0]!, new RegExp(`from="copilot:${sessionId}" fromVerified="true"`));

    const health = firstJson(toolResults(calls[2]!.body).at(-1)!) as { identity: { address: string; detail: string }; host: { adapter: string; copilot: { pluginEnabled: boolean } }; push: { transport: string; reason: string } };
    assert.deepEqual([health.identity.address, health.identity.detail, health.host.adapter], [`copilot:${sessionId}`, "COPILOT_AGENT_SESSION_ID", "copilot"]);
    assert.equal(health.host.copilot.pluginEnabled, true);
    assert.equal(health.push.transport, "none");
    assert.match(health.push.reason, /mail waits for read and the hooks/);
    const receipts = (await other.call("receipts", { kind: "send", address: `copilot:${sessionId}` })).receipts as Array<{ origin: { detail: string; cwd: string } }>;
    assert.equal(receipts[0]?.origin.detail, "host-env");
    assert.equal(realpathSync(receipts[0]!.origin.cwd), realpathSync(PLUGIN_DIR), "Copilot ran the server from dist/copilot");
    const entry = store().sessions.all().find((session) => session.address === `copilot:${sessionId}`);
    assert.deepEqual([entry?.host, entry?.cwd], ["copilot", copilot.workDir], "the sessionStart hook registered the session with its project dir");
  });

  test("next prompt: userPromptSubmitted flags the mail without its body; agentStop blocks once for a due reminder", async (t) => {
    const other = await peer(t);
    const sessionId = randomUUID();
    await prompt("hello", { sessionId }, () => ({ text: "hi" }));
    const address = `copilot:${sessionId}`;
    const body = `BODY_${randomUUID()}`;
    const sent = await other.call("message", { to: address, message: body, anticipation: "reply" });
    assert.equal(sent.ok, true, JSON.stringify(sent));
    const messageId = sent.messageId as string;
    const reminderDue = reminderDueCheck(store, address, messageId);

    const userPrompt = `anything new? ${randomUUID()}`;
    const calls = await prompt(userPrompt, { resume: sessionId }, async (_call, turn) => {
      if (turn === 0) return { toolCall: { name: "peerpost-read", arguments: {} } };
      if (turn === 1) {
        await until(reminderDue, 10_000, "the reminder for the read request to fall due");
        return { text: "read it, will answer later" };
      }
      return { text: "noted the reminder" };
    });

    const [prompted, afterRead, continued] = calls;
    const withPrompt = prompted!.body.messages.filter((message) => message.role === "user" && contentText(message.content).includes(userPrompt)).map((message) => contentText(message.content));
    assert.equal(withPrompt.length, 1);
    assert.match(withPrompt[0]!, /<system_reminder>\n[^]*peerpost: 1 new message/, "the note came with the prompt (userPromptSubmitted)");
    assert.match(withPrompt[0]!, NOTE);
    assert.equal(fake.findShown(body).filter((hit) => hit.call === prompted!.index).length, 0, "the note never carries the body");
    assert.ok(toolResults(afterRead!.body).some((result) => result.includes(body) && result.includes('from=\\"claude:peer\\"')), "read showed the envelope");

    const reminders = (call: ChatCall) => call.body.messages.filter((message) => message.role === "user" && contentText(message.content).includes("peerpost reminder")).length;
    assert.equal(reminders(afterRead!), 0);
    assert.equal(reminders(continued!), 1, "agentStop blocked: the reminder came as a new prompt");
    assert.match(contentText(continued!.body.messages.at(-1)!.content), new RegExp(`peerpost reminder: 1 request .*claude:peer.*${messageId}`));
    assert.equal(calls.length, 3, "the continued turn ended: agentStop did not block again");
    assert.equal(store().mailbox.view(address).state.messages[messageId]!.reminders.count, 1);
  });

  test("a stop block's continuation prompt carries the mail note once, not once from agentStop's reason and again from userPromptSubmitted", async (t) => {
    const other = await peer(t);
    const sessionId = randomUUID();
    script = () => ({ text: "hi" });
    const first = await copilotPrompt("hello", { home: copilot, provider: { baseUrl: fake.baseUrl }, sessionId });
    assert.equal(first.code, 0, first.stderr.slice(-2000));
    const sent = await other.call("message", { to: `copilot:${sessionId}`, message: "q?", anticipation: "reply" });
    assert.equal(sent.ok, true);

    const before = fake.chatCalls().length;
    script = () => ({ text: "done" });
    const run = await copilotPrompt("do the task", { home: copilot, provider: { baseUrl: fake.baseUrl }, extraArgs: [`--resume=${sessionId}`] });
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const calls = fake.chatCalls().slice(before);
    assert.equal(calls.length, 2, "agentStop blocked once for the unread request");
    const continuation = contentText(calls[1]!.body.messages.at(-1)!.content);
    const notes = continuation.match(/peerpost: 1 new message/g) ?? [];
    assert.equal(notes.length, 1, `the continuation prompt the model got:\n${continuation}`);
  });
});

// ---- no CLI needed ---------------------------------------------------------------------------

test("a peerpost server started by Copilot is copilot:<session>, whichever plugin dir it came from", async (t) => {
  const home = tempDir(t);
  const sessionId = randomUUID();
  for (const bundle of ["claude-code", "copilot"]) {
    const server = await connect(t, { HOME: home, PEERPOST_HOME: join(home, "state"), COPILOT_AGENT_SESSION_ID: sessionId, CLAUDE_PLUGIN_ROOT: join(ROOT, "dist", bundle), PLUGIN_ROOT: join(ROOT, "dist", bundle) }, join(ROOT, "dist", bundle, "server.mjs"), []);
    const health = await server.call("health");
    assert.equal((health.identity as { address: string }).address, `copilot:${sessionId}`, bundle);
    assert.equal((health.host as { adapter: string }).adapter, "copilot", bundle);
  }
});

test("Copilot's hook dialect: top-level additionalContext for prompts, decision block for agentStop, camelCase stdin", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_REMINDER_INTERVAL_MS: "1000" };
  const sessionId = randomUUID();
  const start = await runHook("copilot", "session-start", { sessionId, timestamp: Date.now(), cwd: "/work/project", source: "new", initialPrompt: "hi" }, env);
  assert.deepEqual([start.code, start.stdout], [0, ""], "no mail, nothing to say");
  const peerpost = openPeerpost({ env, home });
  const entry = peerpost.sessions.all().find((session) => session.address === `copilot:${sessionId}`);
  assert.deepEqual([entry?.host, entry?.cwd, entry?.source], ["copilot", "/work/project", "startup"]);

  const { message } = await peerpost.mailbox.send({ from: "codex:a1", fromVerified: true, to: `copilot:${sessionId}`, body: "SECRET", anticipation: "reply" });
  const prompted = await runHook("copilot", "user-prompt", { sessionId, timestamp: Date.now(), cwd: "/work/project", prompt: "next" }, env);
  const shown = JSON.parse(prompted.stdout) as Record<string, unknown>;
  assert.deepEqual(Object.keys(shown), ["additionalContext"], "Copilot reads only a top-level additionalContext");
  assert.match(shown.additionalContext as string, /1 new message .*\(codex:a1\)/);
  assert.ok(!prompted.stdout.includes("SECRET"));

  await peerpost.mailbox.markRead(`copilot:${sessionId}`, [message.id]);
  const late = { ...env, PEERPOST_NOW: String(Date.now() + 5_000) };
  const active = await runHook("copilot", "stop", { sessionId, cwd: "/work/project", stopReason: "end_turn", stop_hook_active: true }, late);
  assert.equal(active.stdout, "", "a stop that follows a block never blocks");
  const stop = await runHook("copilot", "stop", { sessionId, cwd: "/work/project", stopReason: "end_turn", stop_hook_active: false }, late);
  const block = JSON.parse(stop.stdout) as { decision: string; reason: string };
  assert.equal(block.decision, "block");
  assert.match(block.reason, new RegExp(`peerpost reminder: .*${message.id}`));
});

/** Copilot shows the model a tool's text content, a blank line, then its structuredContent: the first of the two. */
function firstJson(shown: string): unknown {
  const split = shown.indexOf("\n\n{");
  return JSON.parse(split >= 0 ? shown.slice(0, split) : shown);
}

