// `peerpost shim` against orders of messages a host shows seldom: a pushed prompt refused after a state
// update, a turn pushed while the editor reloads the session, a turn that ends before its start is answered,
// the thread's own peerpost server reporting no push of its own, an editor id shaped like the shim's, a
// request read in the turn pushed for another, a signal to the shim's whole process group, and a Ctrl-C
// typed in the terminal the shim shares with a host it runs as is.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { openPeerpost } from "../core/peerpost.js";
import { ShimRelay } from "../core/server/shim-relay.js";
import { until } from "./helpers/poll.js";
import { CLI, connect, REPO_ROOT } from "./helpers/mcp.js";
import { onCleanup } from "./helpers/temp.js";
import { NO_TMUX, startTmux } from "./helpers/tmux.js";
import { SCRIPTED_ACP, SCRIPTED_CODEX, editorOnShim, isShimRequest, scriptedHost, shimRequests, type Rig, type RpcNotification } from "./helpers/scripted-agent.js";

/** A stand-in host that logs each signal it gets to $SIGNAL_LOG and runs until its stdin closes. */
const SIGNAL_LOGGER = String.raw`
const fs = require("fs");
const log = (line) => fs.appendFileSync(process.env.SIGNAL_LOG, line + "\n");
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => log(signal));
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
log("ready");
`;

/**
 * Once the SIGNAL_LOGGER host logging to `log` is up, `send` a SIGINT `times` times, each after the host saw
 * the one before (apart: two copies of one signal can merge in the kernel when both arrive before the host
 * runs); how many the host saw in all.
 */
async function sigintsReaching(log: string, times: number, send: () => void): Promise<number> {
  const got = () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []);
  const sigints = () => got().filter((line) => line === "SIGINT").length;
  await until(() => got().includes("ready"), 10_000, "the host to start");
  // The shim's own handlers are set up after it starts the host.
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (let n = 1; n <= times; n++) {
    send();
    await until(() => sigints() >= n, 10_000, `the host's SIGINT ${n}`);
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
  return sigints();
}

const store = (rig: Rig) => openPeerpost({ env: { PEERPOST_HOME: rig.stateDir }, home: rig.home });
const pushedLines = shimRequests;

async function acpSession(t: import("node:test").TestContext, mode = "") {
  const rig = scriptedHost(t, "copilot", SCRIPTED_ACP, mode);
  const editor = editorOnShim(t, ["copilot", "--acp"], rig);
  await editor.request("initialize", { protocolVersion: 1 });
  assert.equal((await editor.request("session/new", { cwd: rig.root, mcpServers: [] })).result?.sessionId, "sess-1");
  await until(() => store(rig).sessions.get("copilot:sess-1")?.push === "shim", 10_000, "the shim's registration");
  return { rig, editor };
}

const ask = (rig: Rig, to: string) => store(rig).mailbox.send({ from: "claude:asker", fromVerified: true, to, body: "which branch?", anticipation: "reply" });

test("the editor is shown a pushed turn's text as the user's message, before the agent's answer", async (t) => {
  const { rig, editor } = await acpSession(t);
  await ask(rig, "copilot:sess-1");
  const kind = (note: RpcNotification) => (note.params?.["update"] as { sessionUpdate?: string } | undefined)?.sessionUpdate;
  await until(() => editor.notifications.some((note) => kind(note) === "agent_message_chunk"), 15_000, "the agent's answer");
  const asked = editor.notifications.findIndex((note) => kind(note) === "user_message_chunk");
  assert.ok(asked >= 0 && asked < editor.notifications.findIndex((note) => kind(note) === "agent_message_chunk"), JSON.stringify(editor.notifications));
  const shown = editor.notifications[asked]!.params as { sessionId: string; update: { content: { text: string } } };
  assert.equal(shown.sessionId, "sess-1");
  assert.match(shown.update.content.text, /^peerpost: claude:asker sent you a request/);
});

test("a pushed prompt the agent refuses after a session state update is not counted delivered", async (t) => {
  const { rig } = await acpSession(t, "update-then-error");
  const sent = await ask(rig, "copilot:sess-1");
  await until(() => rig.hostLines().some((entry) => entry.dir === "out" && entry.line.includes("model unavailable")), 15_000, "the refusal");
  await until(() => store(rig).receipts.query({ kind: "push" }).receipts.some((receipt) => receipt.messageId === sent.message.id), 5_000, "the push's receipt");
  const receipts = store(rig).receipts.query({ kind: "push" }).receipts.filter((receipt) => receipt.messageId === sent.message.id);
  assert.deepEqual(receipts.map((receipt) => receipt.delivery), ["failed"]);
  assert.equal(store(rig).mailbox.view("copilot:sess-1").state.messages[sent.message.id]!.delivered, undefined);
});

test("a push the agent refused and the shim tries again shows the editor the turn's text once", async (t) => {
  const { rig, editor } = await acpSession(t, "update-then-error");
  await ask(rig, "copilot:sess-1");
  await until(() => pushedLines(rig).length >= 2, 30_000, "the push tried again");
  const shown = editor.notifications.filter((note) => (note.params?.["update"] as { sessionUpdate?: string } | undefined)?.sessionUpdate === "user_message_chunk");
  assert.equal(shown.length, 1);
});

test("no turn is pushed while the editor reloads a session it has open (the agent replays it)", async (t) => {
  const { rig, editor } = await acpSession(t);
  const loaded = editor.request("session/load", { sessionId: "sess-1", cwd: rig.root, mcpServers: [] });
  await until(() => rig.hostLines().some((entry) => entry.dir === "out" && entry.line.includes("old 0")), 5_000, "the replay under way");
  await ask(rig, "copilot:sess-1");
  await loaded;
  const lines = rig.hostLines();
  const answered = lines.findIndex((entry) => entry.dir === "out" && entry.line.includes('"result":null'));
  await until(() => pushedLines(rig).length > 0, 15_000, "the push after the load");
  const pushed = rig.hostLines().findIndex(isShimRequest);
  assert.ok(pushed > answered, `pushed at line ${pushed}, the load answered at line ${answered}`);
});

async function codexThread(t: import("node:test").TestContext, mode = "") {
  const rig = scriptedHost(t, "codex", SCRIPTED_CODEX, mode);
  const editor = editorOnShim(t, ["codex", "app-server"], rig);
  await editor.request("initialize", { clientInfo: { name: "ide", version: "1" } });
  await editor.request("thread/start", {});
  await until(() => store(rig).sessions.get("codex:thr-1")?.push === "shim", 10_000, "the shim's registration");
  return { rig, editor };
}

test("a Codex turn that ends before turn/start is answered leaves the thread idle: the next request is pushed", async (t) => {
  const { rig, editor } = await codexThread(t, "fast-fail");
  await editor.request("turn/start", { threadId: "thr-1", input: [] });
  await ask(rig, "codex:thr-1");
  await until(() => pushedLines(rig).some((entry) => entry.line.includes('"method":"turn/start"')), 10_000, "a pushed turn/start");
});

test("no turn starts in a Codex thread the editor closed (thread/unsubscribe) until it opens it again", async (t) => {
  const { rig, editor } = await codexThread(t);
  await editor.request("thread/unsubscribe", { threadId: "thr-1" });
  await ask(rig, "codex:thr-1");
  // The shim pushes within moments to an open idle thread; a closed one gets nothing meanwhile.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  assert.deepEqual(pushedLines(rig), []);
  await editor.request("thread/resume", { threadId: "thr-1" });
  await until(() => pushedLines(rig).some((entry) => entry.line.includes('"method":"turn/start"')), 10_000, "the push once the thread is open again");
});

test("a request the model read in the turn pushed for another gets no turn of its own afterwards; one still unread does", async (t) => {
  for (const readMeanwhile of [true, false]) {
    const { rig, editor } = await codexThread(t, "slow-turns");
    // The person's own turn runs; two requests arrive meanwhile.
    const own = editor.request("turn/start", { threadId: "thr-1", input: [] });
    const first = await ask(rig, "codex:thr-1");
    const second = await ask(rig, "codex:thr-1");
    await own;
    const turns = () => pushedLines(rig).filter((entry) => entry.line.includes('"method":"turn/start"'));
    await until(() => turns().length >= 1, 15_000, "the first pushed turn");
    // In that turn the model calls read, which shows and marks read every unread message (read's default).
    if (readMeanwhile) assert.equal((await store(rig).mailbox.markRead("codex:thr-1", [first.message.id, second.message.id])).length, 2);
    // The turn lasts 3 s; a turn for the second would follow within moments of its end.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    assert.equal(turns().length, readMeanwhile ? 1 : 2, turns().map((entry) => entry.line).join("\n"));
  }
});

test("no turn is pushed into a Codex thread while the editor's review/start waits for its answer, nor while the review's turn runs", async (t) => {
  const { rig, editor } = await codexThread(t, "slow-review");
  const review = editor.request("review/start", { threadId: "thr-1", target: { type: "uncommittedChanges" } });
  await until(() => rig.hostLines().some((entry) => entry.dir === "in" && entry.line.includes('"method":"review/start"')), 10_000, "the review to reach the host");
  await ask(rig, "codex:thr-1");
  // The review is answered 2 s after its request; until then, and while its turn runs, the thread is busy.
  await review;
  await until(() => pushedLines(rig).some((entry) => entry.line.includes('"method":"turn/start"')), 10_000, "the push once the review is done");
  const reviewed = rig.hostLines().findIndex((entry) => entry.dir === "out" && entry.line.includes('"method":"turn/completed"'));
  const pushedAt = rig.hostLines().findIndex((entry) => isShimRequest(entry) && entry.line.includes('"method":"turn/start"'));
  assert.ok(reviewed >= 0 && pushedAt > reviewed, `pushed at line ${pushedAt}, the review's turn completed at line ${reviewed}`);
});

test("a Ctrl-C to the shim's process group reaches the host once, as it would reach a host the editor started itself", async (t) => {
  const rig = scriptedHost(t, "copilot", SIGNAL_LOGGER);
  const signals = join(rig.root, "signals.log");
  // Its own process group, as a terminal's job or an editor's child: the group is what gets the signal.
  const shim = spawn(process.execPath, [CLI, "shim", "copilot", "--acp"], { env: { ...rig.env, SIGNAL_LOG: signals }, stdio: ["pipe", "pipe", "pipe"], detached: true });
  onCleanup(t, () => {
    try {
      process.kill(-shim.pid!, "SIGKILL");
    } catch {
      // Gone already.
    }
  });
  assert.equal(await sigintsReaching(signals, 10, () => process.kill(-shim.pid!, "SIGINT")), 10, "ten SIGINTs to the group, ten for the host");
});

test("a Ctrl-C typed where the shim runs a host as is (`codex exec` through a wrapper named codex) reaches the host once", { skip: NO_TMUX }, async (t) => {
  const rig = scriptedHost(t, "codex", SIGNAL_LOGGER);
  const signals = join(rig.root, "signals.log");
  const terminal = startTmux(t, rig.root);
  terminal.start(process.execPath, [CLI, "shim", "codex", "exec", "hi"], { ...rig.env, SIGNAL_LOG: signals }, rig.root);
  assert.equal(await sigintsReaching(signals, 5, () => terminal.sendKeys("C-c")), 5, "five Ctrl-Cs, five for the host");
});

test("the thread's own peerpost server, with no push of its own, leaves the shim's push standing, and a sender hears of no missing push", async (t) => {
  const { rig } = await codexThread(t);
  const codexHome = join(rig.root, "codex-home");
  mkdirSync(codexHome);
  const server = await connect(t, { HOME: rig.home, PEERPOST_HOME: rig.stateDir, CODEX_HOME: codexHome }, join(REPO_ROOT, "dist", "codex", "server.mjs"), []);
  await server.call("health", {}, { threadId: "thr-1" });
  // Its push loop reports within moments of the first call.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(store(rig).sessions.get("codex:thr-1")?.push, "shim");
  const sender = await connect(t, { HOME: rig.home, PEERPOST_HOME: rig.stateDir, PEERPOST_ADDRESS: "claude:peer" });
  const sent = await sender.raw("message", { to: "codex:thr-1", message: "which branch?", anticipation: "reply" });
  assert.doesNotMatch(JSON.stringify(sent.structuredContent), /recipient_mailbox_only/);
});

test("an editor request whose id looks like the shim's gets its own answer", async () => {
  const [editorIn, editorOut, hostIn, hostOut] = [new PassThrough(), new PassThrough(), new PassThrough(), new PassThrough()];
  let shown = "";
  editorOut.on("data", (chunk: Buffer) => (shown += chunk.toString("utf8")));
  const toHost: string[] = [];
  hostIn.on("data", (chunk: Buffer) => toHost.push(chunk.toString("utf8")));
  const relay = new ShimRelay(editorIn, editorOut, hostIn, hostOut);
  const own = relay.request("session/prompt", { sessionId: "s" });
  const shimId = (JSON.parse(toHost[0]!) as { id: string }).id;
  assert.match(shimId, /^peerpost-[0-9a-f]{16}-1$/);
  editorIn.write(`${JSON.stringify({ jsonrpc: "2.0", id: "peerpost-1", method: "x/y" })}\n`);
  hostOut.write(`${JSON.stringify({ jsonrpc: "2.0", id: "peerpost-1", result: { for: "editor" } })}\n`);
  hostOut.write(`${JSON.stringify({ jsonrpc: "2.0", id: shimId, result: { for: "shim" } })}\n`);
  assert.deepEqual((await own).result, { for: "shim" });
  await until(() => shown.includes('"for":"editor"'), 5_000, "the editor's answer");
  assert.doesNotMatch(shown, /"for":"shim"/);
});
