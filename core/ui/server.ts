// The web view's HTTP server: 127.0.0.1 only, every request through the guard, the page (with its first
// state inside) and its assets from the bundle, the state as JSON, live changes pushed to each page as
// deltas of its state over server-sent events, and the writes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { logError } from "../common/error-log.js";
import { PeerpostError, toErrorValue, type ErrorCode } from "../common/errors.js";
import type { Peerpost } from "../peerpost.js";
import { waitFor } from "../mail/wait.js";
import { Guard } from "./guard.js";
import { redirectHtml } from "./opening-page.js";
import { securityHeaders } from "./headers.js";
import { pageHtml, pageTemplate } from "./document.js";
import { BuiltState, LiveStreams } from "./pushes.js";
import { parseFilters } from "./filters.js";
import type { UiFilters } from "./types.js";
import { UiSource } from "./source.js";
import { UiStateBuilder } from "./state.js";
import { UiWrites } from "./writes.js";
import type { WakeDeps } from "../wake/waker.js";

export interface PageAssets {
  /** The page; `{{token}}` marks where the token goes in its asset URLs. */
  html: string;
  css: string;
  icon: string;
  script: string;
}

export interface UiServerOptions {
  peerpost: Peerpost;
  assets: PageAssets;
  /** 0 picks a free port. */
  port: number;
  author: string | null;
  /** Set-up commands for the hosts found on PATH, shown while there is nothing else to see. */
  setUp?: Array<{ host: string; command: string }>;
  /** The hosts on PATH where peerpost is set up already. */
  ready?: string[];
  /** The hosts on PATH where peerpost's set-up needs a fix first. */
  attention?: string[];
  /** What wakes a dormant recipient of a request sent from the page, as `peerpost send` does. */
  wake?: WakeDeps;
}

/** Largest write body read: a 64 KiB message escaped as JSON, with room to spare. */
const MAX_WRITE_BYTES = 512 * 1024;
/** A change check at least this often behind the state dir's watch, and a heartbeat for idle streams. */
const POLL_MS = 1000;
const HEARTBEAT_MS = 25_000;
/** After a failed look at the store, the wait before the next. */
const WATCH_RETRY_MS = 1000;
/** Built states kept (one per distinct filter set, until the logs move on). */
const BUILT_KEPT = 50;

const STATUS_OF: Partial<Record<ErrorCode, number>> = { invalid_arguments: 400, body_too_large: 413, not_found: 404, ambiguous: 409, wrong_recipient: 403, permission_denied: 403, already_resolved: 409, hop_limit: 409, claim_conflict: 409, task_blocked: 409 };

/**
 * The request's target as a URL of this server, or undefined when it is not a path: browsers send only the
 * origin form ("/…"). Joined to the origin rather than resolved against it, so "//x" stays a path (404)
 * instead of naming a host, and no target can make the URL parser throw.
 */
function originFormUrl(target: string | undefined): URL | undefined {
  if (target === undefined || !target.startsWith("/")) return undefined;
  try {
    return new URL(`http://127.0.0.1${target}`);
  } catch {
    return undefined;
  }
}

export class UiServer {
  readonly token = randomBytes(24).toString("base64url");
  private readonly server: Server;
  private readonly source: UiSource;
  private readonly builder: UiStateBuilder;
  private readonly writes: UiWrites;
  private readonly streams: LiveStreams;
  private readonly stop = new AbortController();
  private readonly headers: Record<string, string>;
  private readonly page: string;
  private guard: Guard | undefined;
  private version = "";
  /** The states built since the logs last moved on, by filter set. */
  private readonly built = new Map<string, BuiltState>();
  private serial = 0;

  constructor(private readonly options: UiServerOptions) {
    this.source = new UiSource(options.peerpost);
    this.builder = new UiStateBuilder(this.source, options.author, options.setUp, options.ready, options.attention);
    this.writes = new UiWrites(options.peerpost, options.author, options.wake);
    this.headers = securityHeaders(options.assets.css);
    this.page = pageTemplate(options.assets.html, options.assets.css);
    this.streams = new LiveStreams((filters) => this.stateFor(filters), this.headers);
    // A failure outside handle's own catch must end this answer, never the process (a rejected promise would).
    this.server = createServer((request, response) => void this.handle(request, response).catch((error: unknown) => this.fail(response, error)));
  }

  async listen(): Promise<string> {
    await this.source.refresh();
    this.version = this.source.fingerprint();
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", (error: NodeJS.ErrnoException) =>
        reject(
          error.code === "EADDRINUSE"
            ? new PeerpostError("invalid_arguments", `Port ${this.options.port} on 127.0.0.1 is already in use.`, { details: { field: "port", value: this.options.port }, hint: "Pick another --port, or leave it out to get a free one." })
            : error,
        ),
      );
      this.server.listen(this.options.port, "127.0.0.1", () => resolve());
    });
    const { port } = this.server.address() as AddressInfo;
    this.guard = new Guard(this.token, port);
    void this.watch();
    // The page the printed URL opens asks for the unfiltered state first: have it ready.
    setImmediate(() => void this.state(new URLSearchParams()).catch(() => undefined));
    return `http://127.0.0.1:${port}/?token=${this.token}`;
  }

  /** The URL to open the browser at (opening-page.ts): a one-time code in place of the token. */
  openingUrl(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/?open=${this.guard!.allowOpening()}`;
  }

  /** The page's URL, relative, with the token in place of an opening code (the guard let the load through: its code, or the token). */
  private withToken(url: URL): string {
    const params = new URLSearchParams(url.searchParams);
    params.delete("open");
    params.set("token", this.token);
    return `/?${params}`;
  }

  async close(): Promise<void> {
    this.stop.abort();
    this.streams.closeAll();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Wakes on the state dir's changes and updates every open page; a timeout does too, since statuses move with time. */
  private async watch(): Promise<void> {
    const { peerpost } = this.options;
    while (!this.stop.signal.aborted) {
      const outcome = await waitFor(() => (this.source.fingerprint() !== this.version ? true : undefined), { watchDir: peerpost.stateDir.path, pollMs: POLL_MS, timeoutMs: HEARTBEAT_MS, signal: this.stop.signal }).catch(() => ({ outcome: "timeout" as const }));
      if (outcome.outcome === "aborted") return;
      try {
        if (!(await this.sync())) this.broadcast();
      } catch (error) {
        // The store could not be read this time (out of descriptors, a file swapped for something else):
        // pages keep what they show, the error log says why, and the next look tries again after a pause.
        logError(peerpost.stateDir.path, "ui watch", error);
        await new Promise((resolve) => setTimeout(resolve, WATCH_RETRY_MS));
      }
    }
  }

  /** Folds what was appended since the last look; true (and every page told) when something was. */
  private async sync(): Promise<boolean> {
    const fingerprint = this.source.fingerprint();
    if (fingerprint === this.version) return false;
    await this.source.refresh();
    this.version = fingerprint;
    this.broadcast();
    return true;
  }

  /** Sends every open page what changed in its state, whether the logs moved on or only time did (statuses such as expired move with it). */
  private broadcast(): void {
    this.built.clear();
    this.streams.pushAll();
  }

  private send(response: ServerResponse, status: number, type: string, body: string): void {
    response.writeHead(status, { ...this.headers, "content-type": type, "content-length": Buffer.byteLength(body) });
    response.end(body);
  }

  private sendJson(response: ServerResponse, status: number, value: unknown): void {
    this.send(response, status, "application/json; charset=utf-8", typeof value === "string" ? value : JSON.stringify(value));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = originFormUrl(request.url);
    if (!url) {
      request.resume();
      return this.send(response, 400, "text/plain; charset=utf-8", "400 bad request target\n");
    }
    const refusal = this.guard!.check({ method: request.method ?? "GET", headers: request.headers, url });
    if (refusal) {
      request.resume();
      if (isApi(url.pathname, request.method)) return this.sendJson(response, refusal.status, { ok: false, error: { code: refusal.status === 405 || refusal.status === 415 ? "invalid_arguments" : "permission_denied", message: refusal.reason } });
      return this.send(response, refusal.status, "text/plain; charset=utf-8", `${refusal.status} ${refusal.reason}\n`);
    }
    try {
      if (request.method === "POST") return await this.write(url.pathname, request, response);
      switch (url.pathname) {
        case "/":
          if (url.searchParams.has("open")) return this.send(response, 200, "text/html; charset=utf-8", redirectHtml(this.withToken(url)));
          return this.send(response, 200, "text/html; charset=utf-8", pageHtml(this.page, this.token, await this.state(url.searchParams).catch(() => null)));
        case "/app.js":
          return this.send(response, 200, "text/javascript; charset=utf-8", this.options.assets.script);
        case "/icon.svg":
          return this.send(response, 200, "image/svg+xml", this.options.assets.icon);
        case "/api/state":
          return this.sendJson(response, 200, await this.state(url.searchParams));
        case "/events":
          return await this.events(url.searchParams, response);
        default:
          return this.send(response, 404, "text/plain; charset=utf-8", "404 not found\n");
      }
    } catch (error) {
      this.fail(response, error);
    }
  }

  private fail(response: ServerResponse, error: unknown): void {
    // A person reads it on the page: the hint that names commands, not the model's tools and arguments.
    const value = toErrorValue(error, "cli");
    if (response.headersSent) response.destroy();
    else this.sendJson(response, STATUS_OF[value.code] ?? 500, { ok: false, error: value });
  }

  /** The state for these filters, as JSON; built once per change of the logs for each distinct filter set. */
  private async state(params: URLSearchParams): Promise<string> {
    const filters = parseFilters(params);
    await this.sync();
    return this.stateFor(filters).body;
  }

  private stateFor(filters: UiFilters): BuiltState {
    const key = JSON.stringify(filters);
    let built = this.built.get(key);
    if (built === undefined) {
      built = new BuiltState(this.builder.build(filters, this.version, ++this.serial));
      if (this.built.size >= BUILT_KEPT) this.built.clear();
      this.built.set(key, built);
    }
    return built;
  }

  /** A page's stream of deltas for its filters, from the state it holds (`since`: that state's serial). */
  private async events(params: URLSearchParams, response: ServerResponse): Promise<void> {
    const filters = parseFilters(params);
    await this.sync();
    if (this.streams.full) return this.sendJson(response, 503, { ok: false, error: { code: "unsupported", message: "Too many live pages are open; close some tabs.", hint: "Each open page of peerpost ui keeps one stream." } });
    const held = this.built.get(JSON.stringify(filters));
    this.streams.open(response, filters, held !== undefined && String(held.serial) === params.get("since") ? held : undefined);
  }

  private async write(path: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const act = this.writeAt(path);
    if (!act) {
      request.resume();
      return this.sendJson(response, 404, { ok: false, error: { code: "not_found", message: `No write at ${path}.` } });
    }
    const raw = await readBody(request);
    if (raw === undefined) {
      // Cut off: answer now, then close the connection rather than read the rest.
      response.shouldKeepAlive = false;
      response.on("finish", () => request.socket.destroySoon());
      return this.sendJson(response, 413, { ok: false, error: { code: "body_too_large", message: `A request body is limited to ${MAX_WRITE_BYTES} bytes.` } });
    }
    let input: unknown;
    try {
      input = JSON.parse(raw);
    } catch {
      return this.sendJson(response, 400, { ok: false, error: { code: "invalid_arguments", message: "The request body is not JSON." } });
    }
    const result = await act(input);
    this.sendJson(response, 200, { ok: true, ...result });
  }

  /** The write a POST path names, or undefined. */
  private writeAt(path: string): ((input: unknown) => Promise<object>) | undefined {
    const writes = this.writes;
    switch (path) {
      case "/api/send":
        return (input) => writes.send(input);
      case "/api/resolve":
        return (input) => writes.resolve(input);
      case "/api/release":
        return (input) => writes.release(input);
      case "/api/task":
        return (input) => writes.task(input);
      default:
        return undefined;
    }
  }
}

/** Whether a request is the page's fetch or stream (answered as JSON), not a navigation. */
function isApi(path: string, method: string | undefined): boolean {
  return method === "POST" || path.startsWith("/api/") || path === "/events";
}

/** The request body as text, or undefined when it is over the limit. */
function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    if (Number(request.headers["content-length"] ?? 0) > MAX_WRITE_BYTES) return resolve(undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_WRITE_BYTES) return void chunks.push(chunk);
      request.off("data", onData);
      request.pause();
      resolve(undefined);
    };
    request.on("data", onData);
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}
