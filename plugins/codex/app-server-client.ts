// A small JSON-RPC 2.0 client for `codex app-server` (protocol of codex-cli 0.171.0), used to push
// peer messages into a Codex thread. Two transports: the child's stdio (one JSON object per line)
// and the app-server's unix socket (`--listen unix://PATH`), which speaks WebSocket text frames.
// Every failure is returned as a value with a code; nothing here throws to the caller.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import type { Socket } from "node:net";

// ---------------------------------------------------------------------------------------------
// Results and errors

export type AppServerErrorCode =
  | "spawn_failed" // the app-server process could not start
  | "connect_failed" // the socket is missing or refused the WebSocket upgrade
  | "closed" // the connection ended before the answer came
  | "timeout" // no answer within the deadline
  | "rpc_error" // the server answered with a JSON-RPC error
  | "protocol_error"; // the server sent something this client cannot read

export interface AppServerError {
  code: AppServerErrorCode;
  message: string;
  method?: string;
  /** JSON-RPC error code when `code` is `rpc_error` (-32600 invalid request, -32603 internal, …). */
  rpcCode?: number;
  data?: unknown;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: AppServerError };

const ok = <T>(value: T): Result<T> => ({ ok: true, value });
const fail = <T>(code: AppServerErrorCode, message: string, extra: Partial<AppServerError> = {}): Result<T> => ({ ok: false, error: { code, message, ...extra } });

// ---------------------------------------------------------------------------------------------
// The protocol subset peerpost uses (field names exactly as in `codex app-server generate-ts`)

export interface ClientInfo { name: string; title: string | null; version: string }
export interface InitializeCapabilities { experimentalApi: boolean; requestAttestation: boolean; optOutNotificationMethods?: string[] | null }
export interface InitializeResponse { userAgent: string; codexHome: string; platformFamily: string; platformOs: string }

export type UserInput = { type: "text"; text: string; text_elements: unknown[] };
export type SandboxMode = "read-only" | "workspace-write" | "danger-full-access";
export type AskForApproval = "untrusted" | "on-request" | "never" | { granular: Record<string, boolean> };

export interface ThreadStartParams {
  model?: string | null;
  modelProvider?: string | null;
  cwd?: string | null;
  approvalPolicy?: AskForApproval | null;
  sandbox?: SandboxMode | null;
  config?: Record<string, unknown> | null;
  developerInstructions?: string | null;
  ephemeral?: boolean | null;
}


export type ThreadStatus = { type: "notLoaded" } | { type: "idle" } | { type: "systemError" } | { type: "active"; activeFlags: string[] };
export type TurnStatus = "completed" | "interrupted" | "failed" | "inProgress";

/** A thread item; `userMessage.clientId` is the `clientUserMessageId` given to turn/start or turn/steer. */
export type ThreadItem =
  | { type: "userMessage"; id: string; clientId: string | null; content: UserInput[] }
  | { type: "agentMessage"; id: string; text: string }
  | { type: string; id: string; [key: string]: unknown };

export interface Turn { id: string; items: ThreadItem[]; status: TurnStatus; error: unknown; startedAt: number | null; completedAt: number | null }
export interface Thread { id: string; sessionId: string; preview: string; ephemeral: boolean; status: ThreadStatus; path: string | null; cwd: string; cliVersion: string; source: unknown; name: string | null; turns: Turn[] }

export interface ThreadStartResponse { thread: Thread; model: string; modelProvider: string; cwd: string }
export interface ThreadTurnsListParams { threadId: string; cursor?: string | null; limit?: number | null; sortDirection?: "asc" | "desc" | null; itemsView?: "summary" | "full" | null }
export interface ThreadTurnsListResponse { data: Turn[]; nextCursor: string | null; backwardsCursor: string | null }
export interface ThreadLoadedListResponse { data: string[]; nextCursor: string | null }

export interface TurnStartParams {
  threadId: string;
  input: UserInput[];
  /** Persisted on the resulting userMessage item as `clientId`; lets a pusher detect a prior delivery. */
  clientUserMessageId?: string | null;
  turnTrigger?: string | null;
  approvalPolicy?: AskForApproval | null;
  cwd?: string | null;
}
export interface TurnStartResponse { turn: Turn }

export interface Notification { method: string; params: unknown }
export interface TurnNotification { threadId: string; turn: Turn }

/** The `clientUserMessageId` recorded on a user message item, else null. */
export function clientIdOf(item: ThreadItem): string | null {
  return item.type === "userMessage" && typeof item["clientId"] === "string" ? item["clientId"] : null;
}

/** A text input item as the app-server expects it. */
export function textInput(text: string): UserInput {
  return { type: "text", text, text_elements: [] };
}

// ---------------------------------------------------------------------------------------------
// Transports: a channel carries whole JSON texts in both directions

interface Channel {
  send(text: string): void;
  onMessage(listener: (text: string) => void): void;
  onClose(listener: (reason: string) => void): void;
  close(): Promise<void>;
}

export interface SpawnOptions {
  /** The codex executable. */
  command: string;
  /** Defaults to `["app-server"]` (stdio transport). */
  args?: string[];
  env: Record<string, string | undefined>;
  cwd?: string;
}

function stdioChannel(child: ChildProcessWithoutNullStreams): Channel {
  const messageListeners: Array<(text: string) => void> = [];
  const closeListeners: Array<(reason: string) => void> = [];
  let buffer = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buffer += chunk;
    for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line !== "") for (const listener of messageListeners) listener(line);
    }
  });
  child.stderr.resume(); // app-server logs to stderr; an unread pipe would eventually block it
  child.on("exit", (code, signal) => { for (const listener of closeListeners) listener(`app-server exited (code ${code}, signal ${signal})`); });
  child.stdin.on("error", () => { /* reported through exit */ });
  return {
    send: (text) => { child.stdin.write(`${text}\n`); },
    onMessage: (listener) => { messageListeners.push(listener); },
    onClose: (listener) => { closeListeners.push(listener); },
    close: () => closeChild(child),
  };
}

/** Ends stdin (the server's cue to shut down), then escalates if it lingers. */
async function closeChild(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.stdin.end();
  if (await settlesWithin(exited, 3_000)) return;
  child.kill("SIGTERM");
  if (await settlesWithin(exited, 3_000)) return;
  child.kill("SIGKILL");
  await exited;
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.then(() => { clearTimeout(timer); resolve(true); });
  });
}

const WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** Opens a WebSocket over a unix socket (the app-server's `--listen unix://PATH` transport). */
function openUnixWebSocket(socketPath: string, timeoutMs: number): Promise<Result<Socket>> {
  const key = randomBytes(16).toString("base64");
  return new Promise((resolve) => {
    const request = httpRequest({
      socketPath,
      path: "/",
      headers: { Host: "localhost", Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": key },
      timeout: timeoutMs,
    });
    request.on("upgrade", (response, socket, head) => {
      const expected = createHash("sha1").update(key + WS_GUID).digest("base64");
      if (response.headers["sec-websocket-accept"] !== expected) {
        socket.destroy();
        resolve(fail("connect_failed", "app-server socket answered the upgrade with a wrong accept key"));
        return;
      }
      if (head.length > 0) socket.unshift(head);
      resolve(ok(socket));
    });
    request.on("response", (response) => {
      response.resume();
      resolve(fail("connect_failed", `app-server socket refused the WebSocket upgrade (HTTP ${response.statusCode})`));
    });
    request.on("timeout", () => { request.destroy(); resolve(fail("timeout", `no answer from ${socketPath} within ${timeoutMs} ms`)); });
    request.on("error", (error: NodeJS.ErrnoException) => resolve(fail("connect_failed", `cannot connect to ${socketPath}: ${error.code ?? error.message}`)));
    request.end();
  });
}

function webSocketChannel(socket: Socket): Channel {
  const messageListeners: Array<(text: string) => void> = [];
  const closeListeners: Array<(reason: string) => void> = [];
  const reader = frameReader((opcode, payload) => {
    if (opcode === 0x1) for (const listener of messageListeners) listener(payload.toString("utf8"));
    else if (opcode === 0x9) socket.write(encodeFrame(0xa, payload)); // ping -> pong
    else if (opcode === 0x8) socket.end();
  });
  socket.on("data", reader);
  socket.on("close", () => { for (const listener of closeListeners) listener("app-server socket closed"); });
  socket.on("error", () => { /* reported through close */ });
  return {
    send: (text) => { socket.write(encodeFrame(0x1, Buffer.from(text, "utf8"))); },
    onMessage: (listener) => { messageListeners.push(listener); },
    onClose: (listener) => { closeListeners.push(listener); },
    close: async () => {
      if (socket.destroyed) return;
      const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
      socket.end(encodeFrame(0x8, Buffer.alloc(0)));
      if (!(await settlesWithin(closed, 2_000))) socket.destroy();
    },
  };
}

/** Client frames are always masked (RFC 6455 §5.3); messages here are never fragmented by us. */
function encodeFrame(opcode: number, payload: Buffer): Buffer {
  const mask = randomBytes(4);
  const length = payload.length;
  const header = length < 126 ? Buffer.alloc(2) : length < 65_536 ? Buffer.alloc(4) : Buffer.alloc(10);
  header[0] = 0x80 | opcode;
  if (length < 126) header[1] = 0x80 | length;
  else if (length < 65_536) { header[1] = 0x80 | 126; header.writeUInt16BE(length, 2); }
  else { header[1] = 0x80 | 127; header.writeBigUInt64BE(BigInt(length), 2); }
  const masked = Buffer.alloc(length);
  for (let i = 0; i < length; i++) masked[i] = (payload[i] ?? 0) ^ (mask[i % 4] ?? 0);
  return Buffer.concat([header, mask, masked]);
}

/** Reassembles server frames (unmasked, possibly fragmented or split across reads). */
function frameReader(onFrame: (opcode: number, payload: Buffer) => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  let fragments: Buffer[] = [];
  let fragmentOpcode = 0;
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (let frame = parseFrame(pending); frame !== undefined; frame = parseFrame(pending)) {
      pending = pending.subarray(frame.size);
      if (frame.opcode >= 0x8) { onFrame(frame.opcode, frame.payload); continue; }
      if (frame.opcode !== 0x0) fragmentOpcode = frame.opcode;
      fragments.push(frame.payload);
      if (frame.fin) { onFrame(fragmentOpcode, Buffer.concat(fragments)); fragments = []; }
    }
  };
}

function parseFrame(buffer: Buffer): { fin: boolean; opcode: number; payload: Buffer; size: number } | undefined {
  if (buffer.length < 2) return undefined;
  const first = buffer[0] ?? 0;
  const second = buffer[1] ?? 0;
  let length = second & 0x7f;
  let offset = 2;
  if (length === 126) { if (buffer.length < 4) return undefined; length = buffer.readUInt16BE(2); offset = 4; }
  else if (length === 127) { if (buffer.length < 10) return undefined; length = Number(buffer.readBigUInt64BE(2)); offset = 10; }
  const masked = (second & 0x80) !== 0;
  const maskOffset = offset;
  if (masked) offset += 4;
  if (buffer.length < offset + length) return undefined;
  const payload = Buffer.from(buffer.subarray(offset, offset + length));
  if (masked) for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] ?? 0) ^ (buffer[maskOffset + (i % 4)] ?? 0);
  return { fin: (first & 0x80) !== 0, opcode: first & 0x0f, payload, size: offset + length };
}

// ---------------------------------------------------------------------------------------------
// The client

interface Pending { method: string; resolve: (result: Result<unknown>) => void; timer: NodeJS.Timeout }

/** Answers a server-to-client request (approvals, user input, …); the default declines them all. */
export type ServerRequestHandler = (method: string, params: unknown) => Promise<{ result: unknown } | { error: { code: number; message: string } }>;

const declineServerRequests: ServerRequestHandler = async (method) => ({ error: { code: -32601, message: `peerpost does not handle ${method}` } });

export interface ClientOptions {
  /** Per-request deadline; default 30 s. */
  requestTimeoutMs?: number;
  onServerRequest?: ServerRequestHandler;
}

export class AppServerClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<(notification: Notification) => void>();
  private readonly closeListeners = new Set<(reason: string) => void>();
  private closedReason: string | undefined;
  private readonly requestTimeoutMs: number;
  private readonly onServerRequest: ServerRequestHandler;

  private constructor(private readonly channel: Channel, options: ClientOptions) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.onServerRequest = options.onServerRequest ?? declineServerRequests;
    channel.onMessage((text) => this.receive(text));
    channel.onClose((reason) => this.closedWith(reason));
  }

  /** Starts `codex app-server` (stdio transport) as a child process. */
  static async spawn(options: SpawnOptions, clientOptions: ClientOptions = {}): Promise<Result<AppServerClient>> {
    const env = Object.fromEntries(Object.entries(options.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const child = spawn(options.command, options.args ?? ["app-server"], { env, cwd: options.cwd, stdio: ["pipe", "pipe", "pipe"] });
    const started = await new Promise<Result<void>>((resolve) => {
      child.once("spawn", () => resolve(ok(undefined)));
      child.once("error", (error: NodeJS.ErrnoException) => resolve(fail("spawn_failed", `cannot start ${options.command}: ${error.code ?? error.message}`)));
    });
    if (!started.ok) return started;
    return ok(new AppServerClient(stdioChannel(child), clientOptions));
  }

  /** Attaches to an app-server listening on `unix://PATH`; several clients may attach at once. */
  static async connectUnix(socketPath: string, clientOptions: ClientOptions = {}): Promise<Result<AppServerClient>> {
    const socket = await openUnixWebSocket(socketPath, clientOptions.requestTimeoutMs ?? 30_000);
    if (!socket.ok) return socket;
    return ok(new AppServerClient(webSocketChannel(socket.value), clientOptions));
  }

  get closed(): boolean {
    return this.closedReason !== undefined;
  }

  /** The handshake: `initialize`, then the `initialized` notification. */
  async initialize(clientInfo: ClientInfo, capabilities: InitializeCapabilities = { experimentalApi: true, requestAttestation: false }): Promise<Result<InitializeResponse>> {
    const response = await this.request<InitializeResponse>("initialize", { clientInfo, capabilities });
    if (response.ok) this.notify("initialized");
    return response;
  }

  threadStart(params: ThreadStartParams = {}): Promise<Result<ThreadStartResponse>> {
    return this.request("thread/start", params);
  }

  threadTurnsList(params: ThreadTurnsListParams): Promise<Result<ThreadTurnsListResponse>> {
    return this.request("thread/turns/list", params);
  }

  /** Every thread loaded in this app-server (all pages of `thread/loaded/list`). */
  async loadedThreads(): Promise<Result<string[]>> {
    const threads: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Result<ThreadLoadedListResponse> = await this.request("thread/loaded/list", cursor === null ? {} : { cursor });
      if (!page.ok) return page;
      threads.push(...page.value.data);
      cursor = page.value.nextCursor;
    } while (cursor !== null);
    return ok(threads);
  }

  turnStart(params: TurnStartParams): Promise<Result<TurnStartResponse>> {
    return this.request("turn/start", params);
  }

  /**
   * Whether the thread already holds a user message with this `clientUserMessageId` — how a pusher
   * checks after a crash whether a message was delivered. Pages `thread/turns/list` newest first;
   * works on threads that are not loaded (read from the rollout on disk).
   */
  async hasClientMessage(threadId: string, clientUserMessageId: string): Promise<Result<boolean>> {
    let cursor: string | null = null;
    do {
      const page: Result<ThreadTurnsListResponse> = await this.threadTurnsList({ threadId, cursor, limit: 50, sortDirection: "desc", itemsView: "full" });
      if (!page.ok) return page;
      if (page.value.data.some((turn) => turn.items.some((item) => clientIdOf(item) === clientUserMessageId))) return ok(true);
      cursor = page.value.nextCursor;
    } while (cursor !== null);
    return ok(false);
  }

  /** Subscribes to server notifications; returns the unsubscribe function. */
  onNotification(listener: (notification: Notification) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the first notification that matches, or a `timeout`/`closed` error. */
  waitForNotification(predicate: (notification: Notification) => boolean, timeoutMs = this.requestTimeoutMs): Promise<Result<Notification>> {
    if (this.closedReason !== undefined) return Promise.resolve(fail("closed", this.closedReason));
    return new Promise((resolve) => {
      const onClose = (reason: string): void => finish(fail("closed", reason));
      const finish = (result: Result<Notification>): void => { clearTimeout(timer); unsubscribe(); this.closeListeners.delete(onClose); resolve(result); };
      const timer = setTimeout(() => finish(fail("timeout", `no matching notification within ${timeoutMs} ms`)), timeoutMs);
      const unsubscribe = this.onNotification((notification) => { if (predicate(notification)) finish(ok(notification)); });
      this.closeListeners.add(onClose);
    });
  }

  /** Waits for `turn/completed` of one turn. */
  async waitForTurnCompleted(threadId: string, turnId: string, timeoutMs?: number): Promise<Result<Turn>> {
    const seen = await this.waitForNotification((n) => n.method === "turn/completed" && isTurnOf(n.params, threadId, turnId), timeoutMs);
    return seen.ok ? ok((seen.value.params as TurnNotification).turn) : seen;
  }

  /** Sends one request and waits for its answer. */
  request<T>(method: string, params?: unknown, timeoutMs = this.requestTimeoutMs): Promise<Result<T>> {
    if (this.closedReason !== undefined) return Promise.resolve(fail("closed", this.closedReason, { method }));
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(id, fail("timeout", `${method}: no answer within ${timeoutMs} ms`, { method })), timeoutMs);
      this.pending.set(id, { method, resolve: resolve as (result: Result<unknown>) => void, timer });
      this.channel.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  notify(method: string, params?: unknown): void {
    if (this.closedReason === undefined) this.channel.send(JSON.stringify(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }));
  }

  /** Closes the connection; for a spawned server this also stops the process. */
  async close(): Promise<void> {
    await this.channel.close();
    this.closedWith("client closed the connection");
  }

  private receive(text: string): void {
    let message: Record<string, unknown>;
    try { message = JSON.parse(text) as Record<string, unknown>; } catch { return; } // not ours to judge: skip noise
    const id = message["id"];
    const method = message["method"];
    if (typeof method === "string" && id !== undefined) void this.answerServerRequest(id, method, message["params"]);
    else if (typeof method === "string") for (const listener of this.listeners) listener({ method, params: message["params"] });
    else if (typeof id === "number") this.settle(id, responseResult(message, this.pending.get(id)?.method));
  }

  private async answerServerRequest(id: unknown, method: string, params: unknown): Promise<void> {
    const answer = await this.onServerRequest(method, params).catch((error: unknown) => ({ error: { code: -32603, message: String(error) } }));
    if (this.closedReason === undefined) this.channel.send(JSON.stringify({ jsonrpc: "2.0", id, ...answer }));
  }

  private settle(id: number, result: Result<unknown>): void {
    const pending = this.pending.get(id);
    if (pending === undefined) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    pending.resolve(result);
  }

  private closedWith(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    for (const [id, pending] of this.pending) this.settle(id, fail("closed", reason, { method: pending.method }));
    for (const listener of [...this.closeListeners]) listener(reason);
  }
}

function responseResult(message: Record<string, unknown>, method: string | undefined): Result<unknown> {
  const error = message["error"];
  if (typeof error === "object" && error !== null) {
    const { code, message: text, data } = error as { code?: unknown; message?: unknown; data?: unknown };
    return fail("rpc_error", typeof text === "string" ? text : "app-server error", { rpcCode: typeof code === "number" ? code : undefined, data, method });
  }
  if (!("result" in message)) return fail("protocol_error", "answer has neither result nor error", { method });
  return ok(message["result"]);
}

function isTurnOf(params: unknown, threadId: string, turnId: string): boolean {
  const value = params as Partial<TurnNotification> | undefined;
  return value?.threadId === threadId && value.turn?.id === turnId;
}
