// A loopback fake of an OpenAI-compatible chat completions API, with the extra endpoints the
// Copilot CLI (BYOK "completions" wire API) and the Grok CLI (xAI model list and key check) call.
// A script decides each model turn; every request is recorded so tests can assert on what the
// model was shown (hook context, tool results, tool descriptions).
import type { ServerResponse } from "node:http";
import { startLoopbackServer, writeJson, writeSse, type RecordedRequest } from "./loopback-http.js";

export type Turn =
  | { text: string }
  | { toolCall: { name: string; arguments: unknown } };

export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  name?: string;
}

export interface ChatTool {
  type: string;
  function?: { name: string; description?: string; parameters?: unknown };
}

export interface ChatCompletionRequest {
  model?: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [key: string]: unknown;
}

export interface ChatCall {
  /** 0-based position among chat completion calls. */
  index: number;
  body: ChatCompletionRequest;
  request: RecordedRequest;
}

/** Decides one model turn; may wait (e.g. for a condition the test needs before the turn ends). */
export type ChatScript = (call: ChatCall) => Turn | Promise<Turn>;

export interface ShownHit {
  /** Index of the chat completion call (as in `chatCalls()`). */
  call: number;
  /** JSON path inside that request body, e.g. `messages[3].content`. */
  path: string;
  value: string;
}

export interface FakeOpenAIChatOptions {
  script: ChatScript;
  /** Model ids served by `GET /v1/models`. */
  models?: string[];
}

export interface FakeOpenAIChat {
  /** Server root, e.g. http://127.0.0.1:40123 */
  url: string;
  /** `${url}/v1`, what the CLIs take as their API base. */
  baseUrl: string;
  /** Every HTTP request, in arrival order. */
  requests: RecordedRequest[];
  chatCalls(): ChatCall[];
  /** Every string the model was shown (messages, tools) that contains `needle`. */
  findShown(needle: string): ShownHit[];
  close(): Promise<void>;
}

// Grok picks the first listed model in `agent stdio` mode; Copilot never lists models.
const DEFAULT_MODELS = ["grok-build", "gpt-4.1"];

export async function startFakeOpenAIChat(options: FakeOpenAIChatOptions): Promise<FakeOpenAIChat> {
  const models = options.models ?? DEFAULT_MODELS;
  const calls: ChatCall[] = [];
  const server = await startLoopbackServer(async (request, response) => {
    const path = request.path.split("?")[0] ?? "";
    if (request.method === "POST" && path.endsWith("/chat/completions")) {
      const call: ChatCall = { index: calls.length, body: asChatRequest(request.body), request };
      calls.push(call);
      answerChat(response, call, await options.script(call));
    } else if (request.method === "GET" && path.endsWith("/models")) {
      writeJson(response, 200, modelList(models));
    } else if (request.method === "GET" && path.endsWith("/api-key")) {
      writeJson(response, 200, apiKeyRecord());
    } else {
      writeJson(response, 404, { error: { message: `fake-openai-chat: no route for ${request.method} ${path}` } });
    }
  });
  return {
    url: server.url,
    baseUrl: `${server.url}/v1`,
    requests: server.requests,
    chatCalls: () => [...calls],
    findShown: (needle) => calls.flatMap((call) => findStrings(call.body, needle, "").map((hit) => ({ call: call.index, ...hit }))),
    close: () => server.close(),
  };
}

// ---- script helpers -------------------------------------------------------------------------

/** Names of the function tools offered in this call. */
export function offeredTools(body: ChatCompletionRequest): string[] {
  return (body.tools ?? []).flatMap((tool) => (tool.function ? [tool.function.name] : []));
}

/** Tool results (role "tool") sent back to the model, oldest first. */
export function toolResults(body: ChatCompletionRequest): string[] {
  return body.messages.filter((message) => message.role === "tool").map((message) => contentText(message.content));
}

/** True when the newest message is a tool result, i.e. the model is being asked to continue. */
export function endsWithToolResult(body: ChatCompletionRequest): boolean {
  return body.messages.at(-1)?.role === "tool";
}

/** Flattens chat message content (a string or an array of `{type:"text", text}` parts). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: unknown) => (isRecord(part) && typeof part["text"] === "string" ? part["text"] : "")).join("");
}

// ---- responses ------------------------------------------------------------------------------

function answerChat(response: ServerResponse, call: ChatCall, turn: Turn): void {
  const id = `chatcmpl-${call.index + 1}`;
  const model = call.body.model ?? "fake-model";
  if (call.body.stream === true) writeSse(response, streamEvents(id, model, call, turn), "[DONE]");
  else writeJson(response, 200, completion(id, model, call, turn));
}

function toolCallOf(call: ChatCall, turn: Turn) {
  if (!("toolCall" in turn)) return undefined;
  return { id: `call_${call.index + 1}`, type: "function", function: { name: turn.toolCall.name, arguments: JSON.stringify(turn.toolCall.arguments ?? {}) } };
}

function completion(id: string, model: string, call: ChatCall, turn: Turn): unknown {
  const toolCall = toolCallOf(call, turn);
  const message = toolCall
    ? { role: "assistant", content: null, tool_calls: [toolCall] }
    : { role: "assistant", content: "text" in turn ? turn.text : "" };
  return {
    id, object: "chat.completion", created: nowSeconds(), model,
    choices: [{ index: 0, message, finish_reason: toolCall ? "tool_calls" : "stop" }],
    usage: usage(),
  };
}

// The event name "message" is the SSE default, so clients that ignore `event:` and clients that
// dispatch on it read the stream the same way.
function streamEvents(id: string, model: string, call: ChatCall, turn: Turn): Array<{ event: string; data: unknown }> {
  const chunk = (delta: unknown, finish: string | null): { event: string; data: unknown } => ({
    event: "message",
    data: { id, object: "chat.completion.chunk", created: nowSeconds(), model, choices: [{ index: 0, delta, finish_reason: finish }] },
  });
  const toolCall = toolCallOf(call, turn);
  const events = [chunk({ role: "assistant", content: "" }, null)];
  if (toolCall) {
    const { name, arguments: args } = toolCall.function;
    events.push(chunk({ tool_calls: [{ index: 0, id: toolCall.id, type: "function", function: { name, arguments: "" } }] }, null));
    events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }, null));
  } else if ("text" in turn) {
    events.push(chunk({ content: turn.text }, null));
  }
  events.push(chunk({}, toolCall ? "tool_calls" : "stop"));
  if (call.body.stream_options?.include_usage) {
    events.push({ event: "message", data: { id, object: "chat.completion.chunk", created: nowSeconds(), model, choices: [], usage: usage() } });
  }
  return events;
}

function modelList(models: string[]): unknown {
  return { object: "list", data: models.map((id) => ({ id, object: "model", created: 1700000000, owned_by: "fake" })) };
}

// The shape xAI's `GET /v1/api-key` returns; the Grok CLI checks the ACLs before chatting.
function apiKeyRecord(): unknown {
  return {
    api_key_id: "fake-key", name: "fake", redacted_api_key: "x***", user_id: "fake-user", team_id: "fake-team",
    acls: ["api-key:model:*", "api-key:endpoint:*"],
    api_key_blocked: false, api_key_disabled: false, team_blocked: false,
  };
}

function usage() {
  return { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

// ---- searching what the model saw -----------------------------------------------------------

function findStrings(value: unknown, needle: string, path: string): Array<{ path: string; value: string }> {
  if (typeof value === "string") return value.includes(needle) ? [{ path, value }] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => findStrings(item, needle, `${path}[${i}]`));
  if (isRecord(value)) {
    return Object.entries(value).flatMap(([key, item]) => findStrings(item, needle, path ? `${path}.${key}` : key));
  }
  return [];
}

function asChatRequest(body: unknown): ChatCompletionRequest {
  const record = isRecord(body) ? body : {};
  const messages = Array.isArray(record["messages"]) ? (record["messages"] as ChatMessage[]) : [];
  return { ...record, messages } as ChatCompletionRequest;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
