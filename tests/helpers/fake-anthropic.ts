// A scripted fake of the Anthropic Messages API on 127.0.0.1, enough for the real `claude` CLI:
// it streams each model turn as server-sent events, the way the CLI asks for it.
import type { ServerResponse } from "node:http";
import { startLoopbackServer, writeJson, writeSse, type RecordedRequest } from "./loopback-http.js";

export interface ContentBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: string | ContentBlock[];
  is_error?: boolean;
}

/** The CLI also sends role "system" entries (hook context lands there), so role stays open. */
export interface Message {
  role: string;
  content: string | ContentBlock[];
}

export interface MessagesBody {
  model?: string;
  stream?: boolean;
  system?: string | ContentBlock[];
  messages?: Message[];
  tools?: Array<{ name?: string }>;
}

export interface ToolResult {
  toolUseId: string;
  toolName: string | undefined;
  text: string;
  isError: boolean;
}

/** What one call of the model looked like, reduced to what a script decides on. */
export interface ModelRequest {
  index: number;
  body: MessagesBody;
  toolNames: string[];
  systemText: string;
  messages: Message[];
  /** The tool result in the last message, when the CLI is answering a tool call. */
  lastToolResult?: ToolResult;
  /** Every text the model was shown: system prompt and all messages, tool results included. */
  shownText: string;
}

export type Turn = { text: string } | { toolUse: { name: string; input?: Record<string, unknown> } };
/** A script may answer later (a model that takes its time), e.g. to let a clock-based reminder fall due. */
export type Script = (request: ModelRequest) => Turn | Promise<Turn>;

export interface FakeAnthropic {
  url: string;
  /** Every HTTP request, including ones that are not model calls. */
  requests: RecordedRequest[];
  /** Only the model calls (POST /v1/messages), in order. */
  modelRequests: ModelRequest[];
  /** Script failures, answered with an error text so the CLI ends instead of retrying. */
  errors: string[];
  /** True when any model call showed the model this string. */
  sawText(needle: string): boolean;
  close(): Promise<void>;
}

export async function startFakeAnthropic(script: Script): Promise<FakeAnthropic> {
  const modelRequests: ModelRequest[] = [];
  const errors: string[] = [];
  let nextToolId = 1;
  const server = await startLoopbackServer(async (recorded, response) => {
    const path = recorded.path.split("?")[0] ?? "";
    if (recorded.method !== "POST" || !path.startsWith("/v1/messages")) return writeJson(response, 200, {});
    const body = (recorded.body ?? {}) as MessagesBody;
    if (path === "/v1/messages/count_tokens") return writeJson(response, 200, { input_tokens: estimateTokens(recorded.rawBody) });
    const request = toModelRequest(body, modelRequests.length);
    modelRequests.push(request);
    const turn = await runScript(script, request, errors);
    const blocks = turnToBlocks(turn, () => `toolu_fake_${nextToolId++}`);
    answer(response, body, blocks);
  });
  return {
    url: server.url,
    requests: server.requests,
    modelRequests,
    errors,
    sawText: (needle) => modelRequests.some((request) => request.shownText.includes(needle)),
    close: () => server.close(),
  };
}

/** A script that calls one tool once, then answers with text on every later turn (Stop-hook turns too). */
export function callToolOnce(toolName: string, input: Record<string, unknown>, finalText: string): Script {
  return (request) => {
    const alreadyCalled = request.messages.some((message) => blocksOf(message).some((block) => block.type === "tool_use" && block.name === toolName));
    if (!alreadyCalled && request.toolNames.includes(toolName)) return { toolUse: { name: toolName, input } };
    return { text: finalText };
  };
}

export function toModelRequest(body: MessagesBody, index: number): ModelRequest {
  const messages = body.messages ?? [];
  const systemText = textOf(body.system ?? "");
  const request: ModelRequest = {
    index,
    body,
    toolNames: (body.tools ?? []).flatMap((tool) => (typeof tool.name === "string" ? [tool.name] : [])),
    systemText,
    messages,
    shownText: [systemText, ...messages.map((message) => textOf(message.content))].join("\n"),
  };
  const lastToolResult = findLastToolResult(messages);
  if (lastToolResult) request.lastToolResult = lastToolResult;
  return request;
}

async function runScript(script: Script, request: ModelRequest, errors: string[]): Promise<Turn> {
  try {
    return await script(request);
  } catch (error) {
    const message = `fake-anthropic script failed on request ${request.index}: ${String(error)}`;
    errors.push(message);
    return { text: message };
  }
}

function blocksOf(message: Message): ContentBlock[] {
  return typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
}

/** Flattens text, tool_use input and tool_result content into one string to search. */
function textOf(content: string | ContentBlock[]): string {
  if (typeof content === "string") return content;
  return content.map(blockText).join("\n");
}

function blockText(block: ContentBlock): string {
  if (block.type === "tool_use") return JSON.stringify(block.input ?? {});
  if (block.type === "tool_result") return textOf(block.content ?? "");
  return block.text ?? "";
}

function findLastToolResult(messages: Message[]): ToolResult | undefined {
  const last = messages[messages.length - 1];
  if (!last || last.role !== "user") return undefined;
  const result = blocksOf(last).find((block) => block.type === "tool_result");
  if (!result) return undefined;
  const toolUseId = result.tool_use_id ?? "";
  return { toolUseId, toolName: toolNameFor(messages, toolUseId), text: textOf(result.content ?? ""), isError: result.is_error === true };
}

function toolNameFor(messages: Message[], toolUseId: string): string | undefined {
  for (const message of messages) {
    const use = blocksOf(message).find((block) => block.type === "tool_use" && block.id === toolUseId);
    if (use) return use.name;
  }
  return undefined;
}

function turnToBlocks(turn: Turn, newToolId: () => string): ContentBlock[] {
  if ("text" in turn) return [{ type: "text", text: turn.text }];
  return [{ type: "tool_use", id: newToolId(), name: turn.toolUse.name, input: turn.toolUse.input ?? {} }];
}

function answer(response: ServerResponse, body: MessagesBody, blocks: ContentBlock[]): void {
  const stopReason = blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn";
  const model = body.model ?? "claude-fake";
  if (body.stream !== true) {
    return writeJson(response, 200, { ...messageShell(model), content: blocks, stop_reason: stopReason, usage: { input_tokens: 10, output_tokens: 5 } });
  }
  writeSse(response, [
    sse("message_start", { message: { ...messageShell(model), content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } }),
    ...blocks.flatMap(blockEvents),
    sse("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } }),
    sse("message_stop", {}),
  ]);
}

function messageShell(model: string): Record<string, unknown> {
  return { id: `msg_fake_${Date.now()}`, type: "message", role: "assistant", model, stop_sequence: null };
}

function blockEvents(block: ContentBlock, index: number): Array<{ event: string; data: unknown }> {
  const delta =
    block.type === "tool_use"
      ? { type: "input_json_delta", partial_json: JSON.stringify(block.input ?? {}) }
      : { type: "text_delta", text: block.text ?? "" };
  const start = block.type === "tool_use" ? { ...block, input: {} } : { type: "text", text: "" };
  return [
    sse("content_block_start", { index, content_block: start }),
    sse("content_block_delta", { index, delta }),
    sse("content_block_stop", { index }),
  ];
}

/** Every event's data repeats its type, as the real API does. */
function sse(type: string, data: Record<string, unknown>): { event: string; data: unknown } {
  return { event: type, data: { type, ...data } };
}

function estimateTokens(rawBody: string): number {
  return Math.max(1, Math.ceil(rawBody.length / 4));
}
