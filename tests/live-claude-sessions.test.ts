// A Claude Code session's inbox across its servers and turns, with the pinned `claude` offline: a second
// server for the session that comes and goes leaves the answer socket to the first; a second server reads
// the recipient's policy from the session's own process; a request pushed mid-turn is answered once; after
// /clear a request to the session left is not pushed into the new one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { connect as connectSocket } from "node:net";
import { join } from "node:path";
import { claudeSkipReason } from "./helpers/claude-cli.js";
import { CLI, connect } from "./helpers/mcp.js";
import { until } from "./helpers/poll.js";
import type { ModelRequest, Script } from "./helpers/fake-anthropic.js";
import { calls, heldSendMessage, pushedRequest, lastText, liveWorld, NOTE, quiet, runningSession, startIdleClaude, tool, typePrompt } from "./helpers/claude-inbox.js";
import { replyDir, ReplySockets } from "../plugins/claude-code/inbox/replies.js";
import { tempDir } from "./helpers/temp.js";

const skip = claudeSkipReason();

test("an answer sent with SendMessage reaches the sender after a second server for the session came and went", { skip, timeout: 300_000 }, async (t) => {
  const { script, release, noteSeen } = heldSendMessage((id) => `TWO_SERVERS_ANSWER ${id}`);
  const { world, session, peer, sent } = await pushedRequest(t, "peerpost-inbox-two-", script, "question");
  await until(noteSeen, 30_000, "the pushed note to reach the model");
  const socket = join(replyDir(world.stateDir), `${String(sent.messageId)}.sock`);

  // A second server for the same session comes up, reaches the inbox (and so keeps the open request's socket), and goes.
  const second = await connect(t, { ...world.env, CLAUDE_CODE_SESSION_ID: session.address.slice("claude:".length) } as Record<string, string>, CLI, ["serve", "--host", "claude-code"]);
  await until(async () => ((await second.call("health")).push as { available?: boolean }).available === true, 30_000, "the second server to reach the inbox");
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await second.client.close();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const present = existsSync(socket);

  release();
  await until(() => world.fake.modelRequests.some((request) => request.lastToolResult?.toolName === "SendMessage"), 30_000, "the SendMessage call's result");
  await quiet(world.fake);
  const result = world.fake.modelRequests.find((request) => request.lastToolResult?.toolName === "SendMessage")!.lastToolResult!;
  const answer = await peer.call("wait", { messageId: sent.messageId, timeoutMs: 10_000 });
  assert.equal(answer.outcome, "reply", `socket present after the second server left: ${present}; SendMessage told the model ${JSON.stringify(result.text.slice(0, 300))}\n${JSON.stringify(answer)}\n${calls(world.fake).slice(-1500)}`);
});

test("two ReplySockets for one state dir: the one that goes away leaves the other's socket in place, and a bind after it serves again", async (t) => {
  const stateDir = join(tempDir(t), "state");
  mkdirSync(stateDir, { recursive: true });
  const got: string[] = [];
  const first = new ReplySockets(replyDir(stateDir), (_id, frame) => got.push(`first ${String((frame.message as { content: string }).content)}`));
  const second = new ReplySockets(replyDir(stateDir), (_id, frame) => got.push(`second ${String((frame.message as { content: string }).content)}`));
  t.after(() => {
    first.closeAll();
    second.closeAll();
  });
  const id = "01JAAAAAAAAAAAAAAAAAAAAAAA";
  const path = await first.bind(id);
  await second.bind(id);
  second.closeAll();
  const send = (text: string) =>
    new Promise<boolean>((resolve) => {
      const client = connectSocket({ path }, () => client.end(`${JSON.stringify({ type: "user", message: { role: "user", content: text } })}\n`));
      client.on("error", () => resolve(false));
      client.on("close", () => resolve(true));
    });
  // Whatever the first server's next pass does (it binds the open request's socket again), answers reach it.
  await first.bind(id);
  assert.equal(await send("ANSWER"), true, `nothing listens at ${path} after the second server left`);
  for (let tries = 0; tries < 50 && got.length === 0; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(got, ["first ANSWER"]);
});

test("a second server for a session that bypasses permission prompts does not push into it either", { skip, timeout: 300_000 }, async (t) => {
  const script: Script = (request) => (NOTE.test(lastText(request)) ? { text: "PUSHED_TURN" } : { text: "TURN_DONE" });
  const world = await liveWorld(t, "peerpost-inbox-policy2-", script);
  const claude = startIdleClaude(t, world.env, world.cwd, ["--dangerously-skip-permissions"]);
  const session = await runningSession(world.store, claude);
  // The second server runs elsewhere (its own cwd), as a server outside the session's process tree does.
  const elsewhere = join(world.base, "elsewhere");
  mkdirSync(elsewhere);
  const second = await connect(t, { ...world.env, CLAUDE_CODE_SESSION_ID: session.address.slice("claude:".length) } as Record<string, string>, CLI, ["serve", "--host", "claude-code"], elsewhere);
  await until(async () => ((await second.call("health")).push as { available?: boolean }).available === true, 30_000, "the second server to reach the inbox");
  const peer = await connect(t, world.peerEnv);
  const sent = await peer.call("message", { to: session.address, message: "are you there?", anticipation: "reply" });
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const state = world.store().mailbox.view(session.address).state.messages[String(sent.messageId)];
  const pushed = world.fake.modelRequests.filter((request) => lastText(request).includes(`(message ${String(sent.messageId)})`)).length;
  assert.deepEqual({ delivered: state?.delivered?.via, pushedTurns: pushed }, { delivered: undefined, pushedTurns: 0 }, `the message tool said ${JSON.stringify({ delivery: sent.delivery, deliveredVia: sent.deliveredVia, warnings: sent.warnings })}`);
});

test("a request pushed mid-turn and answered after the stop hook's note starts no second turn on the same request", { skip, timeout: 300_000 }, async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let working = false;
  let answered: string | undefined;
  let requestId: string | undefined;
  const afterAnswer: ModelRequest[] = [];
  const script: Script = async (request) => {
    const text = lastText(request);
    if (answered !== undefined) afterAnswer.push(request);
    if (text.includes("LONG_TASK") && request.lastToolResult === undefined) {
      working = true;
      await gate;
      return { text: "LONG_TASK_DONE" };
    }
    // (The fake cannot always name the tool of a result after a blocked stop: known by its text.)
    const result = request.lastToolResult?.text ?? text;
    if (result.includes('"markedRead"')) {
      const id = requestId;
      if (id === undefined || answered !== undefined) return { text: "NOTHING_TO_ANSWER" };
      answered = id;
      return { toolUse: { name: tool("reply"), input: { messageId: id, resolution: "reply", message: `ANSWER ${id}` } } };
    }
    if (result.includes('"replyId"')) return { text: "ANSWERED" };
    if (NOTE.test(text) || text.includes("new message from other AI agents")) return { toolUse: { name: tool("read"), input: {} } };
    return { text: "TURN_DONE" };
  };
  const world = await liveWorld(t, "peerpost-inbox-midturn-", script);
  assert.equal((await world.cli(["allow", "claude-code"])).code, 0);
  const claude = startIdleClaude(t, world.env, world.cwd);
  const session = await runningSession(world.store, claude);
  typePrompt(claude, "LONG_TASK");
  await until(() => working, 30_000, "the long turn to start");
  const peer = await connect(t, world.peerEnv);
  const sent = await peer.call("message", { to: session.address, message: "quick question", anticipation: "reply" });
  assert.equal(sent.deliveredVia, "claude-inbox", JSON.stringify(sent));
  requestId = String(sent.messageId);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  release();
  const answer = await peer.call("wait", { messageId: sent.messageId, timeoutMs: 30_000 });
  assert.equal(answer.outcome, "reply", `${JSON.stringify(answer)}\n${calls(world.fake)}`);
  await quiet(world.fake, 3000);
  const stale = afterAnswer.filter((request) => lastText(request).includes(`(message ${String(sent.messageId)})`));
  assert.equal(stale.length, 0, `after the request was answered, ${stale.length} more turn(s) started on its note\n${calls(world.fake)}`);
});

test("after /clear, a request to the session left is not pushed into the new one; one to the new session is", { skip, timeout: 300_000 }, async (t) => {
  const script: Script = (request) => (NOTE.test(lastText(request)) ? { text: "NOTED" } : { text: "TURN_DONE" });
  const world = await liveWorld(t, "peerpost-inbox-clear-", script);
  const claude = startIdleClaude(t, world.env, world.cwd);
  const seen = new Set<string>();
  const before = await runningSession(world.store, claude, seen);
  const peer = await connect(t, world.peerEnv);
  const first = await peer.call("message", { to: before.address, message: "one", anticipation: "reply" });
  assert.equal(first.deliveredVia, "claude-inbox", JSON.stringify(first));
  await quiet(world.fake);
  typePrompt(claude, "/clear");
  const after = await runningSession(world.store, claude, seen);
  assert.notEqual(after.address, before.address);
  const dir = replyDir(world.stateDir);
  await until(() => !existsSync(dir) || readdirSync(dir).length === 0, 10_000, "the left session's reply socket to go");
  const toLeft = await peer.call("message", { to: before.address, message: "two", anticipation: "reply" });
  const toNew = await peer.call("message", { to: after.address, message: "three", anticipation: "reply" });
  assert.equal(toNew.deliveredVia, "claude-inbox", JSON.stringify(toNew));
  await quiet(world.fake);
  const shown = (id: unknown) => world.fake.modelRequests.filter((request) => lastText(request).includes(`(message ${String(id)})`)).length;
  assert.deepEqual({ toLeft: shown(toLeft.messageId), toNew: shown(toNew.messageId), leftDelivered: world.store().mailbox.view(before.address).state.messages[String(toLeft.messageId)]?.delivered }, { toLeft: 0, toNew: 1, leftDelivered: undefined }, JSON.stringify(toLeft));
});
