// The shim's parts without a host CLI: the relay against a real child that speaks line JSON-RPC (whole
// lines only, the shim's answers kept from the editor), and the rules a pushed turn follows (requests
// only, the wake budget), through the real push loop and mailbox.
// The budget counts the turns pushed into a session whatever other push receipts name it, and wakes count
// those pushed turns too: one budget for both.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { PassThrough } from "node:stream";
import { ShimRelay } from "../core/server/shim-relay.js";
import { ShimSessions } from "../core/server/shim-sessions.js";
import { ShimPush } from "../core/server/shim-push.js";
import { PushLoop } from "../core/server/push.js";
import { tempPeerpost } from "./helpers/temp.js";
import { until } from "./helpers/poll.js";
import { liveBudgetRefusal } from "../core/live/rules.js";
import { budgetRefusal } from "../core/wake/request.js";

/** A host that answers each request line with {"id", "result": {"line": <the line it read>}}, then a notification. */
const ECHO_HOST = `
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  for (let i = buffer.indexOf("\\n"); i >= 0; i = buffer.indexOf("\\n")) {
    const line = buffer.slice(0, i); buffer = buffer.slice(i + 1);
    const message = JSON.parse(line);
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { line } }) + "\\n");
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "seen", params: { id: message.id } }) + "\\n");
  }
});`;

test("the relay passes whole lines, keeps the shim's answers from the editor, and tells observers", async (t) => {
  const host = spawn(process.execPath, ["-e", ECHO_HOST], { stdio: ["pipe", "pipe", "inherit"] });
  t.after(() => host.kill());
  const editorIn = new PassThrough();
  const editorOut = new PassThrough();
  let shown = "";
  editorOut.on("data", (chunk: Buffer) => (shown += chunk.toString("utf8")));
  const relay = new ShimRelay(editorIn, editorOut, host.stdin, host.stdout);
  const seen: string[] = [];
  relay.observe({ response: (request, _answer, from) => seen.push(`${from}:${request.method}`), notification: (method) => seen.push(method) });

  const editorLine = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "editor/ask", params: { text: "é ü 日本" } });
  const cut = Math.floor(editorLine.length / 2);
  editorIn.write(editorLine.slice(0, cut));
  // The shim speaks while the editor's line is half written: the host must still read two whole lines.
  const answer = await relay.request("shim/ask", { n: 1 });
  const shimLine = (answer.result as { line: string }).line;
  assert.deepEqual(JSON.parse(shimLine), { jsonrpc: "2.0", id: answer.id, method: "shim/ask", params: { n: 1 } }, "the host read the shim's line whole, not inside the editor's");
  assert.match(String(answer.id), /^peerpost-/);
  editorIn.write(`${editorLine.slice(cut)}\n`);
  await until(() => shown.split("\n").filter(Boolean).length >= 3, 10_000, "the host's answers");
  const lines = shown.split("\n").filter(Boolean).map((line) => JSON.parse(line) as { id?: unknown; method?: string; result?: { line: string } });
  assert.deepEqual(lines.filter((line) => line.method === undefined).map((line) => line.id), [7], "only the editor's own answer reaches it");
  assert.equal(lines.find((line) => line.id === 7)!.result!.line, editorLine, "the editor's line reached the host byte for byte");
  assert.equal(lines.filter((line) => line.method === "seen").length, 2, "notifications pass, for both requests");
  assert.deepEqual(seen.filter((entry) => entry.includes(":")).sort(), ["editor:editor/ask", "shim:shim/ask"]);
});

/** codex:shimmed, open in a shim, with a real push loop whose turns are recorded in `started`; PEERPOST_WAKE_PER_HOUR=2. */
function shimmedSession(t: TestContext) {
  const { peerpost, reopen, clock } = tempPeerpost(t, { PEERPOST_WAKE_PER_HOUR: "2" });
  clock.now = Date.now();
  peerpost.config.now = Date.now;
  const address = "codex:shimmed";
  const started: string[] = [];
  const sessions = new ShimSessions(() => undefined, () => loop.kick());
  sessions.opened("shimmed");
  const loop = new PushLoop(peerpost, new ShimPush(address, "shimmed", sessions, async (text) => void started.push(text)), "codex");
  t.after(() => loop.stop());
  return { peerpost, reopen, address, started, loop };
}

test("a pushed turn is for requests only, and shares the wake budget", async (t) => {
  const { peerpost, reopen, address, started, loop } = shimmedSession(t);
  const send = (body: string, anticipation: "reply" | "fyi") => reopen().mailbox.send({ from: "claude:asker", fromVerified: true, to: address, body, anticipation });
  const fyi = await send("FYI_BODY", "fyi");
  const requests: string[] = [];
  for (const n of [1, 2, 3]) requests.push((await send(`REQUEST_${n}`, "reply")).message.id);
  loop.start({ address, sessionId: "shimmed", source: "host-protocol", detail: "test", verified: true });
  await until(() => started.length === 2, 10_000, "two pushed turns");
  loop.kick();
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(started.length, 2, "the third request is over PEERPOST_WAKE_PER_HOUR=2");
  // The live note: who asks and the id, never the body (read shows it, in its envelope).
  assert.match(started[0]!, new RegExp(`claude:asker sent you a request \\(message ${requests[0]}\\)`));
  assert.match(started[0]!, /not from the user/);
  assert.ok(!started.some((text) => text.includes("REQUEST_")), "no body is pushed");
  assert.ok(!started.some((text) => text.includes("FYI_BODY")), "fyi mail starts no turn");
  const messages = reopen().mailbox.view(address).state.messages;
  assert.equal(messages[fyi.message.id]!.delivered, undefined);
  const pushes = peerpost.receipts.query({ kind: "push" }).receipts;
  assert.deepEqual(pushes.filter((receipt) => receipt.delivery === "delivered").map((receipt) => receipt.via), ["shim", "shim"]);
  assert.ok(pushes.some((receipt) => receipt.delivery === "skipped" && receipt.messageId === requests[2] && receipt.warnings[0]?.startsWith("push_over_budget")), "the third is recorded as over the budget");
});

test("a busy session is pushed to only once its reasons are gone", async (t) => {
  const { peerpost, reopen, clock } = tempPeerpost(t);
  clock.now = Date.now();
  peerpost.config.now = Date.now;
  const address = "copilot:busy";
  const started: string[] = [];
  const sessions = new ShimSessions(() => undefined, () => loop.kick());
  sessions.opened("busy");
  sessions.busy("busy", "prompt:editor:1", true);
  const loop = new PushLoop(peerpost, new ShimPush(address, "busy", sessions, async (text) => void started.push(text)), "copilot");
  t.after(() => loop.stop());
  await reopen().mailbox.send({ from: "claude:asker", fromVerified: true, to: address, body: "WHILE_BUSY", anticipation: "reply" });
  loop.start({ address, sessionId: "busy", source: "host-protocol", detail: "test", verified: true });
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.deepEqual(started, []);
  assert.equal(loop.state().available, false);
  sessions.busy("busy", "prompt:editor:1", false);
  await until(() => started.length === 1, 10_000, "the push once idle");
});

test("two shims watching one session start one turn for a message", async (t) => {
  const { reopen, clock } = tempPeerpost(t);
  clock.now = Date.now();
  const address = "grok:twice";
  const started: string[] = [];
  const loops = [reopen(), reopen()].map((peerpost) => {
    peerpost.config.now = Date.now;
    const sessions = new ShimSessions(() => undefined, () => undefined);
    sessions.opened("twice");
    const loop = new PushLoop(peerpost, new ShimPush(address, "twice", sessions, async (text) => void started.push(text)), "grok");
    t.after(() => loop.stop());
    return loop;
  });
  const { message } = await reopen().mailbox.send({ from: "claude:asker", fromVerified: true, to: address, body: "ONCE", anticipation: "reply" });
  for (const loop of loops) loop.start({ address, sessionId: "twice", source: "host-protocol", detail: "test", verified: true });
  await until(() => started.length >= 1, 10_000, "a pushed turn");
  for (const loop of loops) loop.kick();
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(started.length, 1);
  assert.equal(reopen().receipts.query({ kind: "push" }).receipts.filter((receipt) => receipt.messageId === message.id).length, 1);
});

test("the push budget's own refusals do not reset it: five requests at PEERPOST_WAKE_PER_HOUR=2 start two turns", async (t) => {
  const { peerpost, reopen, address, started, loop } = shimmedSession(t);
  for (const n of [1, 2, 3, 4, 5]) await reopen().mailbox.send({ from: "claude:asker", fromVerified: true, to: address, body: `REQUEST_${n}`, anticipation: "reply" });
  loop.start({ address, sessionId: "shimmed", source: "host-protocol", detail: "test", verified: true });
  await until(() => started.length >= 2, 10_000, "two pushed turns");
  for (let i = 0; i < 3; i++) {
    loop.kick();
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  const delivered = peerpost.receipts.query({ kind: "push" }).receipts.filter((receipt) => receipt.delivery === "delivered").length;
  assert.equal(started.length, 2, `PEERPOST_WAKE_PER_HOUR=2, but ${started.length} turns were pushed (${delivered} delivered push receipts)`);
});

test("a session's own requests pushed to its peer do not hide the pushes it got from the budget", async (t) => {
  const { peerpost, clock } = tempPeerpost(t, { PEERPOST_WAKE_PER_HOUR: "2" });
  const me = "codex:busy-asker";
  const record = (from: string, to: string) =>
    peerpost.receipts.record({ kind: "push", host: "codex", from, to, messageId: "01J0000000000000000000000A", delivery: "delivered", via: "shim", warnings: [], origin: { source: "host", detail: "test", pid: process.pid } });
  // Two turns were pushed into `me` this hour (its budget's worth)...
  await record("claude:peer", me);
  await record("claude:peer", me);
  // ...and, since, its own three requests were pushed into its peer (a back-and-forth).
  for (let i = 0; i < 3; i++) await record(me, "claude:peer");
  const refusal = liveBudgetRefusal(peerpost, me, clock.now);
  assert.equal(refusal?.code, "push_over_budget", "two delivered pushes at PEERPOST_WAKE_PER_HOUR=2: the next is over the budget");
});

test("a session pushed its hour's budget is not woken on top of it", async (t) => {
  const { peerpost, clock } = tempPeerpost(t, { PEERPOST_WAKE_PER_HOUR: "2" });
  const address = "codex:pushed-then-stopped";
  for (let i = 0; i < 2; i++)
    await peerpost.receipts.record({ kind: "push", host: "codex", from: "claude:peer", to: address, messageId: `01J000000000000000000000A${i}`, delivery: "delivered", via: "tmux", warnings: [], origin: { source: "host", detail: "test", pid: process.pid } });
  clock.now += 60_000;
  const refusal = budgetRefusal(peerpost, peerpost.wakes.fold(), address, clock.now);
  assert.equal(refusal?.code, "wake_over_budget", "two pushed turns this hour at PEERPOST_WAKE_PER_HOUR=2: a wake would be the third turn started in it");
  assert.match(refusal!.message, /PEERPOST_WAKE_PER_HOUR=2/);
});
