// Live delivery into a running, idle Claude Code session through its own cross-session inbox, offline:
// the pinned `claude` runs in stream-json mode with stdin kept open (idle, waiting for input), with the
// peerpost plugin installed and a loopback fake of the Messages API. A peer's request makes it take a
// turn; it answers once with peerpost's reply and once with Claude's own SendMessage to the `from`
// address; both reach the peer's wait. A session that refuses peer messages, and one that bypasses
// permission prompts, take no turn: the sender is told, and the message stays for the hooks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, connect } from "./helpers/mcp.js";
import { until } from "./helpers/poll.js";
import type { Script } from "./helpers/fake-anthropic.js";
import { claudeSkipReason } from "./helpers/claude-cli.js";
import { replyDir } from "../plugins/claude-code/inbox/replies.js";
import { NOTE, calls, lastText, liveWorld, quiet, runningSession, startIdleClaude, tool, typePrompt } from "./helpers/claude-inbox.js";

const skip = claudeSkipReason();

/**
 * The fake model: on a pushed note it answers the way the test asks for that message: `reply` (read,
 * then peerpost's reply) or `sendmessage` (Claude's SendMessage to the `from` address, as its tool
 * description tells a model to do).
 */
function answeringModel(how: Map<string, "reply" | "sendmessage">): Script {
  return (request) => {
    const note = NOTE.exec(lastText(request));
    if (note) {
      const id = note[1]!;
      if (how.get(id) === "sendmessage") {
        const from = /from="(uds:[^"]+)"/.exec(lastText(request))?.[1];
        return { toolUse: { name: "SendMessage", input: { to: from ?? "missing", summary: "answer", message: `ANSWER_BY_SENDMESSAGE ${id}` } } };
      }
      return { toolUse: { name: tool("read"), input: {} } };
    }
    if (request.lastToolResult?.toolName === tool("read")) {
      const id = [...request.shownText.matchAll(new RegExp(NOTE, "g"))].at(-1)?.[1];
      return { toolUse: { name: tool("reply"), input: { messageId: id, resolution: "reply", message: `ANSWER_BY_REPLY ${id}` } } };
    }
    return { text: "TURN_DONE" };
  };
}


test("claude inbox: an idle session takes a turn on a request and answers with reply, then with SendMessage; both reach wait", { skip, timeout: 300_000 }, async (t) => {
  const how = new Map<string, "reply" | "sendmessage">();
  const world = { ...(await liveWorld(t, "peerpost-live-claude-", answeringModel(how))), how };
  const { env, cwd, fake, store } = world;
  assert.equal((await world.cli(["allow", "claude-code"])).code, 0, "peerpost allow claude-code");
  const claude = startIdleClaude(t, env, cwd);
  const session = await runningSession(store, claude);
  assert.equal(session.push, "claude-inbox");

  const doctor = JSON.parse((await world.cli(["doctor", "--json"])).stdout) as { live: { sessions: Array<{ address: string; push: string }>; allow: Array<{ host: string; allow: string }> } };
  assert.deepEqual(doctor.live.sessions.find((entry) => entry.address === session.address), { address: session.address, push: "claude-inbox" }, "doctor names the session's transport");
  assert.equal(doctor.live.allow.find((entry) => entry.host === "claude-code")?.allow, "set");
  const peer = await connect(t, world.peerEnv);
  const agents = await peer.call("agents", {});
  assert.equal((agents.sessions as Array<{ address: string; push?: string }>).find((entry) => entry.address === session.address)?.push, "claude-inbox", "agents shows the live transport");

  // 1: answered with peerpost's reply.
  const first = await peer.call("message", { to: session.address, message: "What is 6 times 7?", anticipation: "reply" });
  assert.equal(first.ok, true, JSON.stringify(first));
  how.set(String(first.messageId), "reply");
  assert.deepEqual([first.delivery, first.deliveredVia], ["delivered", "claude-inbox"], JSON.stringify(first));
  const firstAnswer = await peer.call("wait", { messageId: first.messageId, timeoutMs: 30_000 });
  assert.equal(firstAnswer.outcome, "reply", `${JSON.stringify(firstAnswer)}\n${calls(fake)}`);
  assert.match(String((firstAnswer.reply as { envelope: string }).envelope), new RegExp(`ANSWER_BY_REPLY ${String(first.messageId)}`));
  const pushed = fake.modelRequests.filter((request) => lastText(request).includes(`(message ${String(first.messageId)})`));
  assert.equal(pushed.length, 1, "one turn started on the pushed note");
  assert.ok(lastText(pushed[0]!).includes('from-name="peerpost"'), "framed as Claude's own sender frames it");
  assert.ok(!fake.sawText("What is 6 times 7?") || fake.modelRequests.some((request) => request.lastToolResult?.toolName === tool("read")), "the body reaches the model only through read");

  // 2: answered with Claude's own SendMessage to the `from` socket: recorded as the reply (via claude-inbox).
  const second = await peer.call("message", { to: session.address, message: "And 7 times 8?", anticipation: "reply" });
  how.set(String(second.messageId), "sendmessage");
  assert.equal(second.deliveredVia, "claude-inbox", JSON.stringify(second));
  const secondAnswer = await peer.call("wait", { messageId: second.messageId, timeoutMs: 60_000 });
  assert.equal(secondAnswer.outcome, "reply", `${JSON.stringify(secondAnswer)}\n${calls(fake)}`);
  assert.match(String((secondAnswer.reply as { envelope: string }).envelope), new RegExp(`ANSWER_BY_SENDMESSAGE ${String(second.messageId)}`));
  // The answering server writes its receipts after the resolution that ends the sender's wait.
  const receipts = () => store()!.receipts.query({ address: session.address }).receipts;
  await until(() => receipts().some((receipt) => receipt.kind === "push" && receipt.messageId === second.messageId && receipt.delivery === "delivered" && receipt.via === "claude-inbox"), 10_000, "the push receipt of the second request");
  await until(() => receipts().some((receipt) => receipt.kind === "reply" && receipt.via === "claude-inbox"), 10_000, "the SendMessage answer's reply receipt via claude-inbox");
  const socketDir = replyDir(world.stateDir);
  assert.equal(statSync(socketDir).mode & 0o777, 0o700);

  // An fyi is never pushed: it waits for read and the hooks.
  await quiet(fake);
  const before = fake.modelRequests.length;
  const fyi = await peer.call("message", { to: session.address, message: "just so you know", anticipation: "fyi" });
  assert.equal(fyi.delivery, "queued");
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(fake.modelRequests.length, before, "no turn for an fyi");
  assert.deepEqual(fake.errors, []);
});

test("claude inbox: crossSessionInbound refuse, and a session bypassing permissions, take no turn; the sender is warned; the hooks still tell", { skip, timeout: 300_000 }, async (t) => {
  const how = new Map<string, "reply" | "sendmessage">();
  const world = { ...(await liveWorld(t, "peerpost-live-policy-", answeringModel(how))), how };
  const { env, cwd, fake, store } = world;
  const settingsPath = join(env.CLAUDE_CONFIG_DIR!, "settings.json");
  const peer = await connect(t, world.peerEnv);
  const seen = new Set<string>();

  const cases: Array<{ name: string; code: string; args: string[]; settings?: Record<string, unknown> }> = [
    { name: "refuse", code: "push_refused", args: [], settings: { crossSessionInbound: "refuse" } },
    { name: "bypass", code: "push_held", args: ["--dangerously-skip-permissions"] },
  ];
  for (const each of cases) {
    const original = readFileSync(settingsPath, "utf8");
    if (each.settings) writeFileSync(settingsPath, JSON.stringify({ ...JSON.parse(original), ...each.settings }));
    const projectDir = join(cwd, each.name);
    mkdirSync(projectDir);
    const claude = startIdleClaude(t, env, projectDir, ["--allowedTools", tool("read"), ...each.args]);
    const session = await runningSession(() => store(), claude, seen);
    const before = fake.modelRequests.length;
    const sent = await peer.raw("message", { to: session.address, message: `policy ${each.name}`, anticipation: "reply" });
    const result = sent.structuredContent!;
    assert.equal(result.delivery, "queued", JSON.stringify(result));
    const warning = (result.warnings as Array<{ code: string; message: string }>).find((entry) => entry.code === each.code);
    assert.ok(warning, `${each.name}: ${JSON.stringify(result.warnings)}`);
    const receipt = store()!.receipts.query({ kind: "push", address: session.address }).receipts.find((entry) => entry.messageId === result.messageId);
    assert.equal(receipt?.delivery, "skipped");
    assert.match(receipt!.warnings[0]!, new RegExp(`^${each.code}: `));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(fake.modelRequests.length, before, `${each.name}: no turn was started`);
    const status = await peer.call("status", { messageId: result.messageId });
    assert.equal((status.message as { status: string }).status, "queued", "the message stays unread");
    // The person's next prompt: the prompt hook tells of the waiting request.
    typePrompt(claude, "hello");
    await until(() => fake.modelRequests.length > before, 60_000, "the typed prompt's turn");
    assert.ok(fake.modelRequests[before]!.shownText.includes("1 new message from other AI agents on this machine (codex:peer)"), fake.modelRequests[before]!.shownText.slice(-1500));
    process.kill(-claude.pid!, "SIGKILL");
    writeFileSync(settingsPath, original);
  }
});

test("claude inbox: two servers watching one session push a request once", { skip, timeout: 300_000 }, async (t) => {
  const how = new Map<string, "reply" | "sendmessage">();
  const world = { ...(await liveWorld(t, "peerpost-live-once-", answeringModel(how))), how };
  const { env, cwd, fake, store } = world;
  assert.equal((await world.cli(["allow", "claude-code"])).code, 0);
  const claude = startIdleClaude(t, env, cwd);
  const session = await runningSession(store, claude);
  // A second server for the same session, outside the session's process tree.
  const sessionId = session.address.slice("claude:".length);
  const second = await connect(t, { ...env, CLAUDE_CODE_SESSION_ID: sessionId } as Record<string, string>, CLI, ["serve", "--host", "claude-code"]);
  // Both servers can push: the second finds the session's inbox through its record, not its process tree.
  await until(async () => ((await second.call("health")).push as { available?: boolean }).available === true, 30_000, "the second server to reach the inbox");
  assert.equal(((await second.call("health")).push as { transport: string }).transport, "claude-inbox");
  const peer = await connect(t, world.peerEnv);
  world.how.set("*", "reply");
  const ids: string[] = [];
  for (let index = 0; index < 3; index++) {
    const sent = await peer.call("message", { to: session.address, message: `once ${index}`, anticipation: "reply" });
    world.how.set(String(sent.messageId), "reply");
    ids.push(String(sent.messageId));
  }
  await until(() => ids.every((id) => store()!.mailbox.view(session.address).state.messages[id]?.delivered !== undefined), 60_000, "every request to be pushed");
  await quiet(fake);
  for (const id of ids) {
    // The conversation as the model last saw it holds each note once (Claude may merge notes queued together into one turn).
    const history = fake.modelRequests.at(-1)!.shownText;
    assert.equal(history.split(`sent you a request (message ${id})`).length - 1, 1, `message ${id} pushed once\n${calls(fake)}`);
    const delivered = store()!.receipts.query({ kind: "push", address: session.address }).receipts.filter((receipt) => receipt.messageId === id && receipt.delivery === "delivered");
    assert.equal(delivered.length, 1, `one push receipt for ${id}`);
  }
});
