// What every terminal-delivery test checks once a real host TUI is idle in a tmux pane (directly, or
// under `peerpost run`): a request is typed and answered through read and reply, with a push receipt;
// text in the person's input line holds the typing until it is erased, a draft whose first line is empty
// too; a request that goes stale meanwhile is never typed.
import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import { connect } from "./mcp.js";
import { until } from "./poll.js";
import type { TmuxServer } from "./tmux.js";
import { screenLines, type InputLineReader } from "../../core/live/screen.js";
import { openPeerpost } from "../../core/peerpost.js";
import { readTurn, turnEnded } from "../../core/live/turns.js";
import { contentText, type ChatScript, type Turn } from "./fake-openai-chat.js";
import { requestIds } from "./answer-mail.js";
import type { FakeResponses, Script } from "./fake-openai-responses.js";
import type { ContentBlock, Message, Script as MessagesScript } from "./fake-anthropic.js";
import { CLI } from "./mcp.js";

export interface TypingTarget {
  tmux: TmuxServer;
  inputLine: InputLineReader;
  stateDir: string;
  home: string;
  address: string;
  /** The transport expected in `delivered.via` and the receipt. */
  via: "tmux" | "pty";
  /** The key that starts a new line in the host's input without submitting it, where known. */
  lineBreak?: string;
  /** How many model requests the host made so far. */
  modelRequests(): number;
  modelSaw(needle: string): boolean;
}

export function sessionIdle(stateDir: string, address: string): boolean {
  return turnEnded(readTurn(stateDir, address));
}

export async function checkTypedDelivery(t: TestContext, target: TypingTarget, answer: string): Promise<void> {
  const { tmux, inputLine, stateDir, address } = target;
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: target.home });
  const peer = await connect(t, { HOME: target.home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "claude:peer" });
  await peer.call("health");

  const asked = await peer.call("message", { to: address, message: "Which branch are you on?", anticipation: "reply" });
  const waited = await peer.call("wait", { messageId: asked.messageId, timeoutMs: 120_000 });
  assert.equal(waited.outcome, "reply", JSON.stringify({ waited, screen: tmux.capture() }));
  assert.match(String((waited.reply as { envelope: string }).envelope), new RegExp(`${answer} ${String(asked.messageId)}`));
  assert.equal(store().mailbox.view(address).state.messages[String(asked.messageId)]!.delivered?.via, target.via);
  assert.ok(target.modelSaw(`peerpost: claude:peer sent you a request (message ${String(asked.messageId)})`), "the typed line reached the model as the person's prompt");
  // The receipt is written once the delivery returns, which can be after the answer (under `peerpost run`
  // a host without a prompt hook is given 2 s for one before the delivery ends).
  const pushed = () => store().receipts.query({ kind: "push", address }).receipts.find((receipt) => receipt.messageId === String(asked.messageId));
  await until(() => pushed() !== undefined, 10_000, "the push receipt");
  assert.equal(pushed()?.via, target.via, JSON.stringify(pushed()));
  assert.equal(pushed()?.delivery, "delivered");
  // Senders (message's confirmation, agents' LIVE column) see how the session is reached.
  assert.equal(store().sessions.get(address)?.push, target.via, "the registry names the transport that typed");

  // The person starts typing: a new request waits; one that goes stale meanwhile is never typed.
  await until(() => sessionIdle(stateDir, address), 60_000, "the answering turn to end");
  await tmux.inputShows(inputLine, "");
  tmux.type("half a thought");
  await tmux.inputShows(inputLine, "half a thought");
  const soonStale = await peer.call("message", { to: address, message: "Quick: yes or no?", anticipation: "reply", replyBy: new Date(Date.now() + 4_000).toISOString() });
  const later = await peer.call("message", { to: address, message: "And which tests fail?", anticipation: "reply" });
  const requestsBefore = target.modelRequests();
  // Several passes of the push loop (it looks at least once a second, and on every mailbox change).
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  assert.equal(store().mailbox.view(address).state.messages[String(later.messageId)]?.delivered, undefined, "nothing is typed while the input line has text");
  assert.equal(target.modelRequests(), requestsBefore, "no turn started while the person was typing");
  assert.equal(inputLine(tmuxLines(tmux)), "half a thought", "the person's text is untouched");
  for (let i = 0; i < "half a thought".length; i++) tmux.sendKeys("BSpace");
  const answered = await peer.call("wait", { messageId: later.messageId, timeoutMs: 120_000 });
  assert.equal(answered.outcome, "reply", JSON.stringify({ answered, screen: tmux.capture() }));
  const after = store().mailbox.view(address).state.messages;
  assert.equal(after[String(later.messageId)]?.delivered?.via, target.via);
  assert.equal(after[String(soonStale.messageId)]?.delivered, undefined, "the stale request was never typed");
  assert.ok(!target.modelSaw(`(message ${String(soonStale.messageId)})`), "the stale request's line never reached the model");

  if (target.lineBreak === undefined) return;
  // A draft whose first line is empty (a line break first, or a paste that starts with one) holds the typing too.
  await until(() => sessionIdle(stateDir, address), 60_000, "the answering turn to end");
  await tmux.inputShows(inputLine, "");
  tmux.sendKeys(target.lineBreak);
  tmux.type("my unfinished draft");
  await tmux.inputShows(inputLine, "my unfinished draft");
  const duringDraft = await peer.call("message", { to: address, message: "One more thing?", anticipation: "reply" });
  const beforeDraft = target.modelRequests();
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  assert.equal(store().mailbox.view(address).state.messages[String(duringDraft.messageId)]?.delivered, undefined, `nothing is typed into a draft\n${tmux.capture()}`);
  assert.equal(target.modelRequests(), beforeDraft, "no turn started");
  assert.ok(!target.modelSaw("my unfinished draft"), "the person's draft never reached the model");
}

function tmuxLines(tmux: TmuxServer): string[] {
  return screenLines(tmux.capture());
}

/**
 * For hosts on the chat-completions fake (Copilot, Grok): the person's "hello" gets plain text; a typed
 * peerpost line gets read, then a reply to each request the read showed, one per step.
 */
export function chatTypedTurns(call: (tool: string, args: unknown) => Turn, answer: string): ChatScript {
  const replied = new Set<string>();
  return ({ body }) => {
    const messages = body.messages;
    const prompts = messages.map((message, index) => (message.role === "user" && /peerpost:|hello/.test(contentText(message.content)) ? index : -1));
    const promptAt = Math.max(-1, ...prompts);
    if (promptAt < 0 || !contentText(messages[promptAt]!.content).includes("peerpost:")) return { text: "DONE" };
    const read = messages.slice(promptAt + 1).filter((message) => message.role === "tool").map((message) => contentText(message.content)).find((text) => text.includes('"messages"'));
    if (read === undefined) return call("read", {});
    const next = requestIds(read).find((id) => !replied.has(id));
    if (next === undefined) return { text: "DONE" };
    replied.add(next);
    return call("reply", { messageId: next, resolution: "reply", message: `${answer} ${next}` });
  };
}

/**
 * For Claude Code on the Messages fake (`tool(name)` is the model-facing name of a peerpost tool): the
 * person's "hello" gets plain text; a typed peerpost line gets read, then a reply to each request the
 * read showed, one per step.
 */
export function messagesTypedTurns(tool: (name: string) => string, answer: string): MessagesScript {
  const replied = new Set<string>();
  const blocks = (content: Message["content"]): ContentBlock[] => (typeof content === "string" ? [{ type: "text", text: content }] : content);
  const texts = (content: Message["content"], type: string): string => blocks(content).filter((block) => block.type === type).map((block) => (type === "text" ? (block.text ?? "") : texts(block.content ?? "", "text"))).join("\n");
  return (request) => {
    const { messages } = request;
    const promptAt = Math.max(-1, ...messages.map((message, index) => (message.role === "user" && /peerpost:|hello/.test(texts(message.content, "text")) ? index : -1)));
    if (promptAt < 0 || !texts(messages[promptAt]!.content, "text").includes("peerpost:")) return { text: "DONE" };
    const read = messages.slice(promptAt + 1).map((message) => texts(message.content, "tool_result")).find((text) => text.includes('"messages"'));
    if (read === undefined) return request.toolNames.includes(tool("read")) ? { toolUse: { name: tool("read"), input: {} } } : { text: "NO PEERPOST TOOLS" };
    const next = requestIds(read).find((id) => !replied.has(id));
    if (next === undefined) return { text: "DONE" };
    replied.add(next);
    return { toolUse: { name: tool("reply"), input: { messageId: next, resolution: "reply", message: `${answer} ${next}` } } };
  };
}

/**
 * For Codex on the Responses fake: the person's "hello" gets a call to health (so the server learns its thread); a typed
 * peerpost line gets read, then a reply to each request the read showed, one per step.
 */
export function responsesTypedTurns(fake: () => FakeResponses, answer: string): Script {
  const replied = new Set<string>();
  return (request) => {
    const shown = fake().shown(request);
    const prompts = shown.map((item, index) => (item.source === "user" && (item.text.includes("peerpost:") || item.text.includes("hello")) ? index : -1));
    const promptAt = Math.max(-1, ...prompts);
    const outputs = shown.slice(promptAt + 1).filter((item) => item.source === "tool_output");
    // Codex may ask the model before the person's prompt is in (and show that answer for the turn), or
    // before peerpost's server is up (the call then fails): health is asked until its result is shown.
    if (promptAt < 0 || !shown[promptAt]!.text.includes("peerpost:")) return outputs.some(isHealthResult) || outputs.length >= 5 ? { text: "DONE" } : responsesCall("health");
    const read = outputs.find((item) => item.text.includes('"messages"'));
    if (!read) return responsesCall("read");
    const next = requestIds(read.text).find((id) => !replied.has(id));
    if (next === undefined) return { text: "DONE" };
    replied.add(next);
    return responsesCall("reply", { messageId: next, resolution: "reply", message: `${answer} ${next}` });
  };
}

/**
 * Starts a host's TUI in the pane: directly (`via` tmux), or under `peerpost run <name>` (`via` pty),
 * which finds the host's binary on `env.PATH`.
 */
export function startTui(tmux: TmuxServer, via: "tmux" | "pty", run: { name: string; binary: string; args: string[] }, env: Record<string, string>, cwd: string): void {
  if (via === "pty") tmux.start(process.execPath, [CLI, "run", run.name, ...run.args], env, cwd);
  else tmux.start(run.binary, run.args, env, cwd);
}

function responsesCall(name: string, args: Record<string, unknown> = {}): { toolCall: { namespace: string; name: string; arguments: unknown } } {
  return { toolCall: { namespace: "mcp__peerpost", name, arguments: args } };
}

/** What health returns (its version and state dir), as the model was shown it. */
export function isHealthResult(item: { text: string }): boolean {
  return item.text.includes('"stateDir"');
}
