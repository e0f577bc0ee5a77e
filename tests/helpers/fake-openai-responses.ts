// A loopback fake of the OpenAI Responses API (`POST /v1/responses`, server-sent events) for driving
// the real `codex` CLI offline. A script decides each reply; every request is kept so tests can ask
// what the model was shown.
import type { ServerResponse } from "node:http";
import { startLoopbackServer, writeJson, writeSse, type LoopbackServer, type RecordedRequest } from "./loopback-http.js";

/**
 * One model reply: plain assistant text, a single function call (MCP tools use a namespace), or a call of a
 * freeform tool, whose input is plain text (Codex's apply_patch for the models it offers it to that way).
 */
export type Turn =
  | { text: string }
  | { toolCall: { namespace?: string; name: string; arguments: unknown } }
  | { customToolCall: { name: string; input: string } };

/** Decides the reply to the n-th (0-based) `/v1/responses` request. May wait, to hold a turn open. */
export type Script = (request: ResponsesRequest, index: number) => Turn | Promise<Turn>;

export interface ResponsesRequest {
  recorded: RecordedRequest;
  body: Record<string, unknown>;
}

/** A piece of text the model was shown, labelled with where it came from. */
export interface ShownText {
  source: "instructions" | "developer" | "user" | "system" | "assistant" | "tool_output" | "tool_call";
  text: string;
}

export interface FakeResponses {
  /** Base URL for a provider's `base_url`, e.g. http://127.0.0.1:40123/v1 */
  baseUrl: string;
  server: LoopbackServer;
  /** Every `POST /v1/responses` body, in arrival order. */
  requests(): ResponsesRequest[];
  /** Everything one request showed the model. */
  shown(request: ResponsesRequest): ShownText[];
  /** True when any request showed the model `needle` anywhere. */
  modelSaw(needle: string): boolean;
  /** How many requests showed the model `needle` (history repeats it in later requests of a thread). */
  requestsContaining(needle: string): number;
  /** How many times `needle` occurs in what one request showed the model. */
  occurrences(request: ResponsesRequest, needle: string): number;
  close(): Promise<void>;
}

export async function startFakeResponses(script: Script): Promise<FakeResponses> {
  const responses: ResponsesRequest[] = [];
  const server = await startLoopbackServer(async (recorded, response) => {
    if (recorded.method !== "POST" || !recorded.path.startsWith("/v1/responses")) {
      writeJson(response, 404, { error: { message: `fake Responses API: no route ${recorded.method} ${recorded.path}` } });
      return;
    }
    const request: ResponsesRequest = { recorded, body: asRecord(recorded.body) };
    const index = responses.push(request) - 1;
    writeTurn(response, index, await script(request, index));
  });
  return {
    baseUrl: `${server.url}/v1`,
    server,
    requests: () => [...responses],
    shown: shownTexts,
    modelSaw: (needle) => responses.some((request) => occurrencesIn(request, needle) > 0),
    requestsContaining: (needle) => responses.filter((request) => occurrencesIn(request, needle) > 0).length,
    occurrences: occurrencesIn,
    close: () => server.close(),
  };
}

/** A script that answers every request with the same text. */
export function alwaysText(text: string): Script {
  return () => ({ text });
}

/** A script that plays the given turns in order, then repeats the last one. */
export function sequence(turns: Turn[]): Script {
  return (_request, index) => turns[Math.min(index, turns.length - 1)] ?? { text: "" };
}

function writeTurn(response: ServerResponse, index: number, turn: Turn): void {
  const responseId = `resp-${index + 1}`;
  const item = "text" in turn
    ? { type: "message", role: "assistant", id: `msg-${index + 1}`, content: [{ type: "output_text", text: turn.text, annotations: [] }] }
    : "customToolCall" in turn
      ? { type: "custom_tool_call", id: `ctc-${index + 1}`, call_id: `call-${index + 1}`, name: turn.customToolCall.name, input: turn.customToolCall.input }
      : functionCallItem(index, turn.toolCall);
  writeSse(response, [
    { event: "response.created", data: { type: "response.created", response: { id: responseId } } },
    { event: "response.output_item.done", data: { type: "response.output_item.done", output_index: 0, item } },
    { event: "response.completed", data: { type: "response.completed", response: { id: responseId, usage: USAGE } } },
  ]);
}

function functionCallItem(index: number, call: { namespace?: string; name: string; arguments: unknown }): Record<string, unknown> {
  const item: Record<string, unknown> = {
    type: "function_call",
    id: `fc-${index + 1}`,
    call_id: `call-${index + 1}`,
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
  };
  if (call.namespace !== undefined) item["namespace"] = call.namespace;
  return item;
}

const USAGE = { input_tokens: 1, input_tokens_details: null, output_tokens: 1, output_tokens_details: null, total_tokens: 2 };

function shownTexts(request: ResponsesRequest): ShownText[] {
  const shown: ShownText[] = [];
  const instructions = request.body["instructions"];
  if (typeof instructions === "string") shown.push({ source: "instructions", text: instructions });
  const input = request.body["input"];
  if (typeof input === "string") shown.push({ source: "user", text: input });
  if (Array.isArray(input)) for (const item of input) shown.push(...itemTexts(asRecord(item)));
  return shown;
}

function itemTexts(item: Record<string, unknown>): ShownText[] {
  switch (item["type"]) {
    case "message":
    case undefined:
      return contentTexts(item["content"]).map((text) => ({ source: roleSource(item["role"]), text }));
    case "function_call_output":
    case "custom_tool_call_output":
      return contentTexts(item["output"]).map((text) => ({ source: "tool_output", text }));
    case "function_call":
      return typeof item["arguments"] === "string" ? [{ source: "tool_call", text: item["arguments"] }] : [];
    default:
      return [];
  }
}

function roleSource(role: unknown): ShownText["source"] {
  if (role === "developer" || role === "user" || role === "system" || role === "assistant") return role;
  return "user";
}

/** Content is a string or an array of parts (`input_text`, `output_text`, …) carrying `text`. */
function contentTexts(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) => {
    const text = asRecord(part)["text"];
    return typeof text === "string" ? [text] : [];
  });
}

function occurrencesIn(request: ResponsesRequest, needle: string): number {
  if (needle === "") return 0;
  return shownTexts(request).reduce((count, { text }) => count + text.split(needle).length - 1, 0);
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
