// The relay of `peerpost shim`: it sits on the stdio of a host CLI in its JSON-RPC mode (one message per
// line), between the editor that started it and the host. Every line passes through unchanged, whole
// lines at a time, so a turn the shim starts never lands inside a line the editor is still writing.
// The shim's own requests carry ids of its own ("peerpost-N"); their answers go to the shim and never
// reach the editor. Everything else, server requests for permissions included, reaches the editor.
import { randomBytes } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import { isPlainObject } from "../common/values.js";

export type RpcId = string | number;

export interface RpcMessage {
  id?: RpcId;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code?: number; message?: string };
}

export type RpcSide = "editor" | "shim";

export interface RelayObserver {
  /** A request on its way to the host, from the editor or from the shim. */
  request?(method: string, params: unknown, id: RpcId, from: RpcSide): void;
  /** The host's answer to a request, with the request it answers. */
  response?(request: { method: string; params: unknown; id: RpcId }, answer: RpcMessage, from: RpcSide): void;
  /** A notification from the host. */
  notification?(method: string, params: unknown): void;
}

/** The shim's own request ids start so, with a nonce per shim: an editor's id cannot take the answer to one of them. */
const SHIM_ID_PREFIX = "peerpost-";

/** Splits a byte stream into lines (each with its newline); the bytes are never decoded or changed. */
function lineSplitter(onLine: (line: Buffer) => void): { push(chunk: Buffer): void; flush(): void } {
  let pending: Buffer[] = [];
  return {
    push(chunk) {
      let start = 0;
      for (let newline = chunk.indexOf(0x0a); newline >= 0; newline = chunk.indexOf(0x0a, start)) {
        pending.push(chunk.subarray(start, newline + 1));
        onLine(pending.length === 1 ? pending[0]! : Buffer.concat(pending));
        pending = [];
        start = newline + 1;
      }
      if (start < chunk.length) pending.push(chunk.subarray(start));
    },
    flush() {
      if (pending.length > 0) onLine(Buffer.concat(pending));
      pending = [];
    },
  };
}

function parse(line: Buffer): RpcMessage | undefined {
  // Only a line that starts like an object can be a message: skip the parse for anything else.
  const first = line.find((byte) => byte !== 0x20 && byte !== 0x09);
  if (first !== 0x7b) return undefined;
  try {
    const value: unknown = JSON.parse(line.toString("utf8"));
    return isPlainObject(value) ? (value as RpcMessage) : undefined;
  } catch {
    return undefined;
  }
}

const isId = (id: unknown): id is RpcId => typeof id === "string" || typeof id === "number";

export class ShimRelay {
  private readonly observers: RelayObserver[] = [];
  private readonly editorRequests = new Map<RpcId, { method: string; params: unknown }>();
  private readonly own = new Map<string, { method: string; params: unknown; resolve: (answer: RpcMessage) => void }>();
  private nextId = 1;
  private readonly idPrefix = `${SHIM_ID_PREFIX}${randomBytes(8).toString("hex")}-`;
  private closedReason: string | undefined;

  constructor(
    private readonly editorIn: Readable,
    private readonly editorOut: Writable,
    private readonly hostIn: Writable,
    private readonly hostOut: Readable,
    /** Told when an observer throws: the bytes still flow, only the live part is affected. */
    private readonly onObserverError: (error: unknown) => void = () => undefined,
  ) {
    const fromEditor = lineSplitter((line) => this.fromEditor(line));
    const fromHost = lineSplitter((line) => this.fromHost(line));
    editorIn.on("data", (chunk: Buffer) => fromEditor.push(chunk));
    editorIn.on("end", () => {
      fromEditor.flush();
      hostIn.end();
    });
    hostOut.on("data", (chunk: Buffer) => fromHost.push(chunk));
    hostOut.on("end", () => {
      fromHost.flush();
      this.close("the host closed its output");
    });
    hostIn.on("error", () => this.close("the host's input closed"));
    editorOut.on("error", () => undefined);
  }

  /** Adds an observer of the traffic; returns the function that removes it. */
  observe(observer: RelayObserver): () => void {
    this.observers.push(observer);
    return () => {
      const index = this.observers.indexOf(observer);
      if (index >= 0) this.observers.splice(index, 1);
    };
  }

  /** Sends a request of the shim's own; resolves with the host's answer (an error answer when the host is gone). */
  request(method: string, params: unknown): Promise<RpcMessage> {
    const id = `${this.idPrefix}${this.nextId++}`;
    if (this.closedReason !== undefined) return Promise.resolve({ id, error: { message: this.closedReason } });
    return new Promise((resolve) => {
      this.own.set(id, { method, params, resolve });
      this.tell((observer) => observer.request?.(method, params, id, "shim"));
      this.hostIn.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  }

  /** Shows the editor a notification of the shim's own, as a whole line between the host's. */
  notifyEditor(method: string, params: unknown): void {
    if (this.closedReason !== undefined) return;
    this.editorOut.write(`${JSON.stringify({ jsonrpc: "2.0", method, params })}\n`);
  }

  /** Ends the shim's requests in flight with an error answer. */
  close(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    for (const [id, pending] of this.own) pending.resolve({ id, error: { message: reason } });
    this.own.clear();
  }

  private fromEditor(line: Buffer): void {
    const message = parse(line);
    if (message?.method !== undefined && isId(message.id)) {
      this.editorRequests.set(message.id, { method: message.method, params: message.params });
      const { method, params, id } = message;
      this.tell((observer) => observer.request?.(method, params, id, "editor"));
    }
    this.forward(line, this.hostIn, this.editorIn);
  }

  /** Writes a line on; a reader that falls behind holds back the side that writes to it. */
  private forward(line: Buffer, to: Writable, from: Readable): void {
    if (to.write(line) || from.isPaused()) return;
    from.pause();
    to.once("drain", () => from.resume());
  }

  private fromHost(line: Buffer): void {
    const message = parse(line);
    const id = message?.id;
    if (message !== undefined && message.method === undefined && typeof id === "string" && this.own.has(id)) {
      const pending = this.own.get(id)!;
      this.own.delete(id);
      this.tell((observer) => observer.response?.({ method: pending.method, params: pending.params, id }, message, "shim"));
      pending.resolve(message);
      return;
    }
    this.forward(line, this.editorOut, this.hostOut);
    if (message === undefined) return;
    if (message.method === undefined && isId(id)) {
      const request = this.editorRequests.get(id);
      if (request === undefined) return;
      this.editorRequests.delete(id);
      this.tell((observer) => observer.response?.({ ...request, id }, message, "editor"));
    } else if (message.method !== undefined && id === undefined) {
      const { method, params } = message;
      this.tell((observer) => observer.notification?.(method, params));
    }
  }

  private tell(call: (observer: RelayObserver) => void): void {
    for (const observer of [...this.observers]) {
      try {
        call(observer);
      } catch (error) {
        this.onObserverError(error);
      }
    }
  }
}
