// The MCP stdio transport: one JSON-RPC message per line. Unlike the SDK's, every line gets an answer
// by the JSON-RPC rules — -32700 for a line that is not JSON, -32600 for one that is not a JSON-RPC
// message (or is too large to read), -32602 with a readable message for a known request with bad
// params — and a line over the size limit is skipped and reported instead of ending the server.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolRequestSchema, ErrorCode, InitializeRequestSchema, JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isPlainObject } from "../common/values.js";

/** The SDK's read limit; peerpost's largest request (a 64 KiB body) is far below it. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;
/** How much of an oversized line is kept, to answer with its id. */
const HEAD_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/** Requests whose params the SDK would otherwise reject with a raw schema dump. */
const PARAMS_SCHEMAS: Record<string, { safeParse(value: unknown): { success: boolean; error?: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> } } }> = {
  "tools/call": CallToolRequestSchema,
  initialize: InitializeRequestSchema,
};

type RequestId = string | number | null;

/** `params.arguments: expected object, received array`, one issue per field (zod's "record" is a JSON object). */
function readableIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  return issues
    .slice(0, 5)
    .map((issue) => `${issue.path.map(String).join(".") || "(message)"}: ${issue.message.replace(/^Invalid input: /, "").replace(/\bexpected record\b/, "expected object")}`)
    .join("; ");
}

/** The id of a request, when it can be told: a reply to an unreadable request still names it if it can. */
function idOf(value: unknown): RequestId {
  const id = isPlainObject(value) ? value.id : undefined;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

function idFromHead(head: string): RequestId {
  const match = /"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")/.exec(head);
  if (!match) return null;
  try {
    return JSON.parse(match[1]!) as string | number;
  } catch {
    return null;
  }
}

export interface StdioTransportOptions {
  /** Told about every line that could not be handed to the server (for the error log and stderr). */
  report: (problem: string) => void;
  maxLineBytes?: number;
}

export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private bytes = 0;
  /** Set while skipping the rest of an oversized line: its first bytes and its length so far. */
  private oversized: { head: string; bytes: number } | undefined;
  private closed = false;
  private readonly maxLineBytes: number;

  constructor(
    private readonly options: StdioTransportOptions,
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {
    this.maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  }

  private readonly onData = (chunk: Buffer) => {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      this.take(chunk.subarray(start, newline < 0 ? chunk.length : newline));
      if (newline < 0) return;
      this.endLine();
      start = newline + 1;
    }
  };
  private readonly onEnd = () => void this.close();
  private readonly onStreamError = (error: Error) => this.onerror?.(error);

  async start(): Promise<void> {
    this.stdin.on("data", this.onData);
    this.stdin.on("end", this.onEnd);
    this.stdin.on("error", this.onStreamError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.write(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off("data", this.onData);
    this.stdin.off("end", this.onEnd);
    this.stdin.off("error", this.onStreamError);
    this.stdin.pause();
    this.chunks = [];
    this.onclose?.();
  }

  private write(message: unknown): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(message) + "\n")) resolve();
      else this.stdout.once("drain", resolve);
    });
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.oversized) {
      this.oversized.bytes += piece.length;
      return;
    }
    if (this.bytes + piece.length > this.maxLineBytes) {
      // Keep only enough to find the request's id; never buffer the line whole.
      const head = Buffer.concat([...this.chunks, piece.subarray(0, HEAD_BYTES)]).subarray(0, HEAD_BYTES).toString("utf8");
      this.oversized = { head, bytes: this.bytes + piece.length };
      this.chunks = [];
      this.bytes = 0;
      return;
    }
    this.chunks.push(Buffer.from(piece));
    this.bytes += piece.length;
  }

  private endLine(): void {
    const oversized = this.oversized;
    const line = oversized ? "" : Buffer.concat(this.chunks).toString("utf8").replace(/\r$/, "");
    this.chunks = [];
    this.bytes = 0;
    this.oversized = undefined;
    if (oversized) {
      const message = `Request too large: ${oversized.bytes} bytes, over the ${this.maxLineBytes}-byte limit of one message; it was skipped.`;
      this.options.report(message);
      void this.fail(idFromHead(oversized.head), ErrorCode.InvalidRequest, message);
      return;
    }
    if (line.trim() === "") return;
    this.handle(line);
  }

  private handle(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      this.options.report(`unparseable line (${line.length} chars): ${why}`);
      void this.fail(null, ErrorCode.ParseError, `Parse error: the line is not JSON (${why}). peerpost speaks MCP (JSON-RPC 2.0) on stdio, one JSON message per line.`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      void this.fail(idOf(value), ErrorCode.InvalidRequest, `Invalid request: not a JSON-RPC 2.0 message (${readableIssues(parsed.error.issues)}).`);
      return;
    }
    const message = parsed.data;
    const schema = "method" in message && "id" in message ? PARAMS_SCHEMAS[message.method] : undefined;
    const checked = schema?.safeParse(message);
    if (checked && !checked.success) {
      void this.fail(idOf(message), ErrorCode.InvalidParams, `Invalid params for ${(message as { method: string }).method}: ${readableIssues(checked.error?.issues ?? [])}.`);
      return;
    }
    this.onmessage?.(message);
  }

  private fail(id: RequestId, code: number, message: string): Promise<void> {
    return this.write({ jsonrpc: "2.0", id, error: { code, message } });
  }
}
