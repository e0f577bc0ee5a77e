// `peerpost shim codex app-server` between a test editor and the real, pinned `codex app-server`,
// offline: a request to an idle thread arrives as a turn the editor sees, the model reads and replies,
// and the sender's wait returns the answer; a busy thread gets it only after the editor's turn ends;
// the editor never sees an answer to an id it did not send; with a broken state dir the host still runs; a
// thread the editor archived (the app-server lets it go: `turn/start` there answers "thread not found")
// gets no turn until the editor opens it again.
import { after, before, describe, test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { spawnSync } from "node:child_process";
import { openPeerpost } from "../core/peerpost.js";
import { clientMessageIdFor } from "../plugins/codex/push.js";
import { CLI, connect, REPO_ROOT, type Session } from "./helpers/mcp.js";
import { responsesAnswerMail } from "./helpers/answer-mail.js";
import { startEditor, type Editor, type RpcLine } from "./helpers/editor-client.js";
import { codexAvailable, codexBinary, isolatedCodexEnv, makeScratchDir, type CodexEnv } from "./helpers/codex-cli.js";
import { startFakeResponses, type FakeResponses, type Script } from "./helpers/fake-openai-responses.js";
import { until } from "./helpers/poll.js";

const availability = codexAvailable();
const skip = availability.ok ? false : `codex CLI unavailable: ${availability.reason}`;
const NAMESPACE = "mcp__peerpost";
const text = (value: string) => [{ type: "text", text: value, text_elements: [] }];

/** The peerpost server as a user-level Codex MCP server, its tools approved (a pushed turn must not stall). */
function peerpostServerTable(stateDir: string): string {
  return [
    "[mcp_servers.peerpost]",
    `command = ${JSON.stringify(process.execPath)}`,
    `args = [${JSON.stringify(join(REPO_ROOT, "dist", "codex", "server.mjs"))}]`,
    'default_tools_approval_mode = "approve"',
    "",
    "[mcp_servers.peerpost.env]",
    `PEERPOST_HOME = ${JSON.stringify(stateDir)}`,
    "",
  ].join("\n");
}

describe("peerpost shim codex (real app-server, loopback model)", { skip, timeout: 300_000 }, () => {
  let fake: FakeResponses;
  let script: Script = () => ({ text: "ok" });
  let scratch: string;
  let stateDir: string;
  let codex: CodexEnv;

  before(async () => {
    fake = await startFakeResponses((request, index) => script(request, index));
    scratch = makeScratchDir("peerpost-shim-codex-");
    stateDir = join(scratch, "peerpost");
    codex = isolatedCodexEnv(scratch, fake.baseUrl, {
      tables: peerpostServerTable(stateDir),
      env: { PEERPOST_HOME: stateDir, PATH: `${dirname(codexBinary()!)}:${process.env.PATH ?? ""}` },
    });
  });

  after(async () => {
    await fake?.close();
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  async function openEditor(t: TestContext, env = codex.env): Promise<Editor> {
    const editor = startEditor(t, ["codex", "app-server"], env, codex.home);
    const init = await editor.request("initialize", { clientInfo: { name: "test-editor", title: "Test Editor", version: "0.0.1" }, capabilities: { experimentalApi: true, requestAttestation: false } });
    assert.ok(init.result, JSON.stringify(init));
    editor.notify("initialized");
    return editor;
  }

  async function newThread(editor: Editor): Promise<string> {
    const started = await editor.request("thread/start", { cwd: codex.home, approvalPolicy: "never", sandbox: "read-only" });
    const threadId = (started.result?.thread as { id?: string } | undefined)?.id;
    assert.ok(threadId, JSON.stringify(started));
    return threadId;
  }

  const peer = (t: TestContext): Promise<Session> => connect(t, { HOME: codex.home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "claude:peer" });
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: codex.home });
  const turnCompleted = (turnId: string) => (message: RpcLine) => message.method === "turn/completed" && (message.params?.turn as { id?: string }).id === turnId;
  const agentText = (message: RpcLine) => JSON.stringify((message.params?.turn as { items?: unknown[] }).items ?? []);

  test("an idle thread gets the request as a turn the editor sees; the model reads and replies; wait returns it", async (t) => {
    const editor = await openEditor(t);
    const threadId = await newThread(editor);
    const address = `codex:${threadId}`;
    const sender = await peer(t);
    script = responsesAnswerMail(() => fake, NAMESPACE, "codex answers");
    const asked = await sender.call("message", { to: address, message: "Which branch are you on?", anticipation: "reply" });
    const waited = await sender.call("wait", { messageId: asked.messageId, timeoutMs: 60_000 });
    assert.equal(waited.outcome, "reply", JSON.stringify({ waited, stderr: editor.stderr().slice(-2000) }));
    assert.match(String((waited.reply as { envelope: string }).envelope), new RegExp(`from="${address}" fromVerified="true"[\\s\\S]*codex answers ${String(asked.messageId)}`));

    const userItem = await editor.waitFor((message) => message.method === "item/started" && (message.params?.item as { type?: string }).type === "userMessage");
    assert.equal((userItem.params?.item as { clientId?: string }).clientId, clientMessageIdFor(String(asked.messageId)), "the editor sees the pushed turn's user message");
    assert.ok(fake.modelSaw("not from the user"), "the turn says the message is not from the user");
    const receipts = store().receipts.query({ kind: "push" }).receipts.filter((receipt) => receipt.messageId === asked.messageId);
    assert.deepEqual(receipts.map((receipt) => [receipt.via, receipt.delivery]), [["shim", "delivered"]]);
    assert.equal(store().mailbox.view(address).state.messages[String(asked.messageId)]!.delivered?.via, "shim");
    assert.deepEqual(editor.foreign, [], "no answer to an id the editor did not send");
  });

  test("a busy thread gets the request only after the editor's turn, which is answered as usual", async (t) => {
    const editor = await openEditor(t);
    const threadId = await newThread(editor);
    const address = `codex:${threadId}`;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const answering = responsesAnswerMail(() => fake, NAMESPACE, "codex answers later");
    script = async (request, index) => {
      if (fake.shown(request).some((shown) => shown.source === "user" && shown.text.includes("EDITOR_SLOW")) && !fake.shown(request).some((shown) => shown.text.includes("peerpost:"))) {
        await held;
        return { text: "editor prompt answered" };
      }
      return answering(request, index);
    };
    const own = await editor.request("turn/start", { threadId, input: text("EDITOR_SLOW what is in this dir?") });
    const ownTurn = (own.result?.turn as { id: string }).id;
    await until(() => fake.modelSaw("EDITOR_SLOW"), 30_000, "the editor's turn to reach the model");
    const sender = await peer(t);
    const asked = await sender.call("message", { to: address, message: "Is the build green?", anticipation: "reply" });
    // The shim watches the mailbox; give it time in which it must not start a turn.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(fake.modelSaw(String(asked.messageId)), false, "nothing reached the busy thread");
    assert.equal(editor.received.filter((message) => message.method === "turn/started").length, 1, "no second turn while busy");
    release();
    const ownDone = await editor.waitFor(turnCompleted(ownTurn));
    assert.match(agentText(ownDone), /editor prompt answered/);
    assert.doesNotMatch(agentText(ownDone), /peerpost:/, "the request did not steer the editor's turn");
    const waited = await sender.call("wait", { messageId: asked.messageId, timeoutMs: 60_000 });
    assert.equal(waited.outcome, "reply", JSON.stringify({ waited, stderr: editor.stderr().slice(-2000) }));
    const pushedStart = editor.received.findIndex((message) => message.method === "turn/started" && (message.params?.turn as { id: string }).id !== ownTurn);
    assert.ok(pushedStart > editor.received.indexOf(ownDone), "the pushed turn started after the editor's turn completed");
    assert.deepEqual(editor.foreign, [], "no answer to an id the editor did not send");
  });

  test("fyi mail starts no turn", async (t) => {
    const editor = await openEditor(t);
    const threadId = await newThread(editor);
    const sender = await peer(t);
    const told = await sender.call("message", { to: `codex:${threadId}`, message: "FYI_ONLY the build is green", anticipation: "fyi" });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(editor.received.some((message) => message.method === "turn/started"), false);
    assert.equal(store().mailbox.view(`codex:${threadId}`).state.messages[String(told.messageId)]!.delivered, undefined);
  });

  test("with a broken state dir the host still runs through the shim; other invocations run codex as is", async (t) => {
    const broken = join(scratch, "not-a-dir");
    writeFileSync(broken, "a file where the state dir should be");
    const editor = await openEditor(t, { ...codex.env, PEERPOST_HOME: broken });
    const threadId = await newThread(editor);
    script = () => ({ text: "answered without peerpost" });
    const own = await editor.request("turn/start", { threadId, input: text("hello") });
    const done = await editor.waitFor(turnCompleted((own.result?.turn as { id: string }).id));
    assert.match(agentText(done), /answered without peerpost/);
    assert.match(editor.stderr(), /peerpost shim: live delivery failed/);

    const version = spawnSync(process.execPath, [CLI, "shim", "codex", "--version"], { env: codex.env, encoding: "utf8", timeout: 60_000 });
    assert.equal(version.status, 0, version.stderr);
    assert.match(version.stdout, new RegExp(`codex-cli ${availability.ok ? availability.version : ""}`));
  });

  test("no turn is pushed into a thread the editor archived (each would be refused: thread not found); it is once the editor opens it again", async (t) => {
    const editor = await openEditor(t);
    const threadId = await newThread(editor);
    const address = `codex:${threadId}`;
    // One turn, so the thread has a rollout to archive.
    const own = await editor.request("turn/start", { threadId, input: text("hello") });
    const ownTurn = (own.result?.turn as { id: string }).id;
    await editor.waitFor((message) => message.method === "turn/completed" && (message.params?.turn as { id: string }).id === ownTurn);
    assert.ok((await editor.request("thread/archive", { threadId })).result, "archived");

    const sender = await connect(t, { HOME: codex.home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "claude:peer" });
    script = responsesAnswerMail(() => fake, "mcp__peerpost", "codex answers");
    const asked = await sender.call("message", { to: address, message: "Which branch are you on?", anticipation: "reply" });
    // The shim pushes within moments to an open idle thread; an archived one must get nothing meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: codex.home });
    const pushes = store().receipts.query({ kind: "push" }).receipts.filter((receipt) => receipt.messageId === asked.messageId);
    assert.deepEqual(pushes.map((receipt) => [receipt.delivery, ...receipt.warnings]), [], "no push tried into the archived thread");

    // Opened again, the request arrives as a turn and is answered.
    assert.ok((await editor.request("thread/unarchive", { threadId })).result, "unarchived");
    assert.ok((await editor.request("thread/resume", { threadId })).result, "resumed");
    const waited = await sender.call("wait", { messageId: asked.messageId, timeoutMs: 60_000 });
    assert.equal(waited.outcome, "reply", JSON.stringify({ waited, stderr: editor.stderr().slice(-2000) }));
  });
});
