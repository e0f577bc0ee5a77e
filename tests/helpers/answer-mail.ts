// What the fake models of the wake and launch tests do with peerpost mail: read it, then reply to each
// request the read showed, one per turn, then end the turn.
import { toolResults, type ChatScript, type Turn } from "./fake-openai-chat.js";
import type { Script } from "./fake-anthropic.js";
import type { FakeResponses, Script as ResponsesScript } from "./fake-openai-responses.js";

/** The ids of the requests (reply/action) in a `read` result as a host showed it (it may add text around the JSON, or pretty-print it). */
export function requestIds(readResult: string): string[] {
  return [...readResult.matchAll(/"id":\s*"([0-9A-HJKMNP-TV-Z]{26})",\s*"from":[^{}]*?"anticipation":\s*"(reply|action|fyi)"/g)].filter((match) => match[2] !== "fyi").map((match) => match[1]!);
}

/**
 * For hosts on the chat-completions fake (Copilot, Grok): `call(tool, args)` is how that host's model
 * calls a peerpost tool; each reply says `<answer> <message id>`.
 */
export function chatAnswerMail(call: (tool: string, args: unknown) => Turn, answer: string): ChatScript {
  let phase: "read" | "replying" = "read";
  let queue: string[] = [];
  return (request) => {
    if (phase === "read") {
      phase = "replying";
      return call("read", {});
    }
    const last = toolResults(request.body).at(-1) ?? "";
    if (last.includes('"messages"')) queue = requestIds(last);
    const next = queue.shift();
    return next ? call("reply", { messageId: next, resolution: "reply", message: `${answer} ${next}` }) : { text: "ANSWERED" };
  };
}

/** For Claude Code on the Messages fake: `tool(name)` is the model-facing name of a peerpost tool. */
export function claudeAnswerMail(tool: (name: string) => string, answer: string): Script {
  let queue: string[] = [];
  return (request) => {
    if (request.lastToolResult?.toolName === tool("read")) queue = requestIds(request.lastToolResult.text);
    const next = queue.shift();
    if (next) return { toolUse: { name: tool("reply"), input: { messageId: next, resolution: "reply", message: `${answer} ${next}` } } };
    if (request.lastToolResult?.toolName === tool("reply")) return { text: "ANSWERED" };
    return request.toolNames.includes(tool("read")) ? { toolUse: { name: tool("read"), input: {} } } : { text: "NO PEERPOST TOOLS" };
  };
}

/**
 * For Codex on the Responses fake: read, then reply to each request the read showed (one per turn), then
 * end the turn. Decided from what each request shows, so an extra call Codex makes on its own changes nothing.
 */
export function responsesAnswerMail(fake: () => FakeResponses, namespace: string, answer: string): ResponsesScript {
  const replied = new Set<string>();
  return (request) => {
    // Codex shows a tool's output after a "Wall time … Output:" header.
    const readOutput = fake().shown(request).filter((shown) => shown.source === "tool_output" && shown.text.includes('"messages"')).at(-1);
    if (!readOutput) return { toolCall: { namespace, name: "read", arguments: {} } };
    const next = requestIds(readOutput.text).find((id) => !replied.has(id));
    if (next === undefined) return { text: "ANSWERED" };
    replied.add(next);
    return { toolCall: { namespace, name: "reply", arguments: { messageId: next, resolution: "reply", message: `${answer} ${next}` } } };
  };
}
