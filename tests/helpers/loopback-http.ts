// A tiny HTTP server bound to 127.0.0.1 that records every request and lets a fake model API
// answer it. Shared by the fake Anthropic, OpenAI Responses and chat-completions APIs in tests.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: unknown;
  rawBody: string;
}

export type Handler = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

export interface LoopbackServer {
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startLoopbackServer(handler: Handler): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      let body: unknown = undefined;
      try { body = rawBody ? JSON.parse(rawBody) : undefined; } catch { body = undefined; }
      const recorded: RecordedRequest = { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body, rawBody };
      requests.push(recorded);
      Promise.resolve(handler(recorded, res)).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(error) } }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** Writes a server-sent event stream: each event as `event: <type>\ndata: <json>\n\n`. */
export function writeSse(response: ServerResponse, events: Array<{ event: string; data: unknown }>, done?: string): void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const { event, data } of events) response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  if (done !== undefined) response.write(`data: ${done}\n\n`);
  response.end();
}

export function writeJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}
