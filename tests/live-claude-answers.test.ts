// Answers that reach a Claude Code session's reply socket (Claude's SendMessage to a pushed note's `from`),
// with the pinned `claude` offline: a second answer after peerpost's reply, and an answer to a request the
// person handed to a role's new holder meanwhile, each reach the sender as a follow-up; a request left
// open leaves no socket behind when the session ends (Claude stops its MCP servers with a signal).
import { test } from "node:test";
import assert from "node:assert/strict";
import { claudeSkipReason } from "./helpers/claude-cli.js";
import { connect } from "./helpers/mcp.js";
import { until } from "./helpers/poll.js";
import type { Script } from "./helpers/fake-anthropic.js";
import { calls, heldSendMessage, pushedRequest, lastText, liveWorld, NOTE, quiet, runningSession, startIdleClaude, tool } from "./helpers/claude-inbox.js";
import { existsSync, readdirSync } from "node:fs";
import { replyDir } from "../plugins/claude-code/inbox/replies.js";

const skip = claudeSkipReason();

test("a SendMessage answer after peerpost's reply to the same pushed request reaches the sender as a follow-up", { skip, timeout: 300_000 }, async (t) => {
  let from: string | undefined;
  let id: string | undefined;
  const script: Script = (request) => {
    const note = NOTE.exec(lastText(request));
    if (note) {
      id = note[1]!;
      from = /from="(uds:[^"]+)"/.exec(lastText(request))?.[1];
      return { toolUse: { name: tool("read"), input: {} } };
    }
    const last = request.lastToolResult?.toolName;
    if (last === tool("read")) return { toolUse: { name: tool("reply"), input: { messageId: id, resolution: "reply", message: `FIRST_ANSWER ${id}` } } };
    if (last === tool("reply")) return { toolUse: { name: "SendMessage", input: { to: from ?? "missing", summary: "more", message: `SECOND_ANSWER ${id}` } } };
    return { text: "TURN_DONE" };
  };
  const world = await liveWorld(t, "peerpost-inbox-late-", script);
  assert.equal((await world.cli(["allow", "claude-code"])).code, 0);
  const claude = startIdleClaude(t, world.env, world.cwd);
  const session = await runningSession(world.store, claude);
  const peer = await connect(t, world.peerEnv);
  const sent = await peer.call("message", { to: session.address, message: "What is 6 times 7?", anticipation: "reply" });
  assert.equal(sent.deliveredVia, "claude-inbox", JSON.stringify(sent));
  const answer = await peer.call("wait", { messageId: sent.messageId, timeoutMs: 30_000 });
  assert.equal(answer.outcome, "reply", JSON.stringify(answer));
  await until(() => world.fake.modelRequests.some((request) => request.lastToolResult?.toolName === "SendMessage"), 30_000, "the SendMessage call's result");
  await quiet(world.fake);
  const sendResult = world.fake.modelRequests.find((request) => request.lastToolResult?.toolName === "SendMessage")!.lastToolResult!;
  // The second answer reaches the peer's mailbox as a follow-up to its request.
  const followUp = () => Object.values(world.store().mailbox.view("codex:peer").state.messages).find((message) => message.from === session.address && world.store().mailbox.body(message).includes("SECOND_ANSWER"));
  await until(() => followUp() !== undefined, 10_000, "the second answer as a follow-up").catch((error: unknown) => {
    throw new Error(`${String(error)}\nSendMessage's result: ${JSON.stringify(sendResult)}\n${calls(world.fake)}`);
  });
  assert.equal(followUp()!.inReplyTo, sent.messageId);
});

test("an answer sent with SendMessage after the request moved to the role's new holder is not silently dropped", { skip, timeout: 300_000 }, async (t) => {
  // The model thinks for a while; meanwhile the person gives the role to another session.
  const { script, release, noteSeen } = heldSendMessage(() => "ROLE_ANSWER_BY_SENDMESSAGE");
  const world = await liveWorld(t, "peerpost-inbox-role-", script);
  const claude = startIdleClaude(t, world.env, world.cwd);
  const session = await runningSession(world.store, claude);
  assert.equal((await world.cli(["role", "set", "rev", session.address])).code, 0);
  const peer = await connect(t, world.peerEnv);
  // The role's next holder, a session peerpost knows.
  const other = await connect(t, { ...world.peerEnv, PEERPOST_ADDRESS: "codex:other" });
  await other.call("read", {});
  const sent = await peer.call("message", { to: "role:rev", message: "review this please", anticipation: "reply" });
  assert.equal(sent.ok, true, JSON.stringify(sent));
  await until(noteSeen, 30_000, "the pushed note to reach the model");
  const moved = await world.cli(["role", "set", "rev", "codex:other"]);
  assert.equal(moved.code, 0, moved.stderr);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  release();
  await until(() => world.fake.modelRequests.some((request) => request.lastToolResult?.toolName === "SendMessage"), 30_000, "the SendMessage call's result");
  await quiet(world.fake);
  const result = world.fake.modelRequests.find((request) => request.lastToolResult?.toolName === "SendMessage")!.lastToolResult!;
  // The answer reaches the sender as a follow-up to its request, which waits on the new holder.
  const followUp = () => Object.values(world.store().mailbox.view("codex:peer").state.messages).find((message) => message.to === "codex:peer" && world.store().mailbox.body(message).includes("ROLE_ANSWER_BY_SENDMESSAGE"));
  await until(() => followUp() !== undefined, 10_000, "the answer to reach the sender").catch((error: unknown) => {
    throw new Error(`${String(error)}\nSendMessage told the model ${JSON.stringify(result.text.slice(0, 300))}\n${calls(world.fake)}`);
  });
  assert.equal(followUp()!.inReplyTo, sent.messageId);
  assert.equal(world.store().mailbox.find(String(sent.messageId))?.to, "codex:other");
});

test("the reply socket of a request left open is not left behind when the session ends", { skip, timeout: 300_000 }, async (t) => {
  const script: Script = (request) => (NOTE.test(lastText(request)) ? { text: "LATER" } : { text: "TURN_DONE" });
  const { world, claude, sent } = await pushedRequest(t, "peerpost-inbox-left-", script, "open question");
  await quiet(world.fake);
  const dir = replyDir(world.stateDir);
  assert.deepEqual(readdirSync(dir), [`${String(sent.messageId)}.sock`]);
  // The person ends the session (end of input, as Ctrl-D ends the TUI).
  claude.stdin!.end();
  await until(() => claude.exitCode !== null || claude.signalCode !== null, 30_000, "claude to exit");
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const left = existsSync(dir) ? readdirSync(dir) : [];
  assert.deepEqual(left, [], `socket files left in ${dir} after the session ended`);
});
