// Live push into a Codex thread through the Codex app-server. A plain `codex` TUI runs its threads in
// a background app-server (the daemon) that listens on $CODEX_HOME/app-server-control/
// app-server-control.sock; any client there may `turn/start` on a loaded thread. peerpost delivers a
// message as such a turn, tagged with a clientUserMessageId derived from the message id, so a thread
// that already holds the message is never given it twice. Threads held by any other process
// (`codex exec`, a TUI started without the daemon) cannot be reached: mail waits for read and the hooks.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { MessageState } from "../../core/mail/fold.js";
import type { Identity } from "../../core/server/adapter.js";
import type { PushTransport } from "../../core/server/adapter.js";
import { PeerpostError } from "../../core/common/errors.js";
import { AppServerClient, textInput, type AppServerError, type Result } from "./app-server-client.js";
import { codexHome } from "./inspect.js";

export const CODEX_TURN_VIA = "codex-turn";

export interface CodexTurnPushOptions {
  socketPath: string;
  /** Reported to the app-server in `initialize`. */
  clientVersion: string;
  /** How often a working link is re-checked (is the thread still loaded?). */
  recheckMs?: number;
  /** First retry delay after a failed connection; doubles up to maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
  requestTimeoutMs?: number;
}

interface Availability {
  available: boolean;
  reason: string;
}

/** The app-server control socket of the Codex daemon for this CODEX_HOME. */
export function controlSocketPath(env: NodeJS.ProcessEnv): string {
  return join(codexHome(env), "app-server-control", "app-server-control.sock");
}

/** The clientUserMessageId a peerpost message carries in the thread; stable across restarts. */
export function clientMessageIdFor(messageId: string): string {
  return `peerpost-${messageId}`;
}

function threadOf(address: string): string | undefined {
  return address.startsWith("codex:") ? address.slice("codex:".length) : undefined;
}

function describeError(error: AppServerError): string {
  return error.method ? `${error.method}: ${error.message}` : error.message;
}

/** The thread has no stored turns yet, so it cannot hold the message either. */
function notMaterialized(error: AppServerError): boolean {
  return error.code === "rpc_error" && /not materialized/.test(error.message);
}

export class CodexTurnPush implements PushTransport {
  readonly name = CODEX_TURN_VIA;
  private threadId: string | undefined;
  private client: AppServerClient | undefined;
  private connecting: Promise<Result<AppServerClient>> | undefined;
  private checking: Promise<void> | undefined;
  private link: Availability = { available: false, reason: "no Codex thread known yet: the thread id arrives with the first peerpost tool call" };
  private checkedAt = 0;
  private failures = 0;
  private readonly recheckMs: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;

  constructor(private readonly options: CodexTurnPushOptions) {
    this.recheckMs = options.recheckMs ?? 5_000;
    this.backoffMs = options.backoffMs ?? 1_000;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
  }

  /** Called when the server learns (or changes) which thread it serves. */
  bind(identity: Identity): void {
    const threadId = threadOf(identity.address);
    if (threadId === this.threadId) return;
    this.threadId = threadId;
    this.checkedAt = 0;
    void this.check();
  }

  availability(): Availability {
    if (this.checkDue()) void this.check();
    return this.link;
  }

  /** Re-checks the link now (or joins the check under way). */
  check(): Promise<void> {
    this.checking ??= this.linkState()
      .then((link) => {
        this.link = link;
        this.checkedAt = Date.now();
      })
      .finally(() => {
        this.checking = undefined;
      });
    return this.checking;
  }

  async deliver(message: MessageState, content: string): Promise<void> {
    const threadId = threadOf(message.to);
    if (threadId === undefined)
      throw new PeerpostError("unsupported", `${message.to} is not a Codex thread.`, { details: { to: message.to }, hint: "Only codex:<thread> sessions can be pushed to through the Codex app-server." });
    const client = await this.requireConnection();
    const clientId = clientMessageIdFor(message.id);
    if (await this.alreadyInThread(client, threadId, clientId)) return;
    const started = await client.turnStart({ threadId, input: [textInput(content)], clientUserMessageId: clientId });
    if (started.ok) return;
    if (started.error.code === "rpc_error") throw pushError(started.error);
    // No answer: the turn may or may not have started. Ask the thread, on a fresh connection.
    this.drop();
    if (await this.alreadyInThread(await this.requireConnection(), threadId, clientId)) return;
    throw pushError(started.error);
  }

  async remind(note: string): Promise<void> {
    if (this.threadId === undefined || !this.link.available) return;
    const client = await this.requireConnection();
    const started = await client.turnStart({ threadId: this.threadId, input: [textInput(note)] });
    if (!started.ok) throw pushError(started.error);
  }

  close(): void {
    this.drop();
  }

  private checkDue(): boolean {
    const wait = this.link.available ? this.recheckMs : Math.min(this.maxBackoffMs, this.backoffMs * 2 ** Math.max(0, this.failures - 1));
    return this.checking === undefined && Date.now() - this.checkedAt >= wait;
  }

  private async linkState(): Promise<Availability> {
    const threadId = this.threadId;
    const socket = this.options.socketPath;
    if (threadId === undefined) return this.link;
    if (!existsSync(socket)) {
      this.drop();
      return { available: false, reason: `no Codex app-server is listening at ${socket}, so thread ${threadId} runs in a process peerpost cannot reach (codex exec, or a TUI without the daemon); new mail waits for read and the hooks` };
    }
    const client = await this.connection();
    if (!client.ok) {
      this.failures++;
      return { available: false, reason: `cannot reach the Codex app-server at ${socket} (${describeError(client.error)}); retrying` };
    }
    const loaded = await client.value.loadedThreads();
    if (!loaded.ok) {
      this.failures++;
      this.drop();
      return { available: false, reason: `the Codex app-server at ${socket} did not list its threads (${describeError(loaded.error)}); retrying` };
    }
    this.failures = 0;
    return loaded.value.includes(threadId)
      ? { available: true, reason: `thread ${threadId} is loaded in the Codex app-server at ${socket}; messages arrive as turns` }
      : { available: false, reason: `thread ${threadId} is not loaded in the Codex app-server at ${socket}: another process holds it (codex exec, or a TUI without the daemon); new mail waits for read and the hooks` };
  }

  /** Whether the thread already holds this message (a delivery before a crash, or one whose answer was lost). */
  private async alreadyInThread(client: AppServerClient, threadId: string, clientId: string): Promise<boolean> {
    const found = await client.hasClientMessage(threadId, clientId);
    if (found.ok) return found.value;
    if (notMaterialized(found.error)) return false;
    throw pushError(found.error);
  }

  private async requireConnection(): Promise<AppServerClient> {
    const client = await this.connection();
    if (!client.ok) throw pushError(client.error);
    return client.value;
  }

  /** The open connection, or a new one (one attempt at a time). */
  private connection(): Promise<Result<AppServerClient>> {
    if (this.client && !this.client.closed) return Promise.resolve({ ok: true, value: this.client });
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<Result<AppServerClient>> {
    const options = { requestTimeoutMs: this.options.requestTimeoutMs ?? 10_000 };
    const connected = await AppServerClient.connectUnix(this.options.socketPath, options);
    if (!connected.ok) return connected;
    const client = connected.value;
    const initialized = await client.initialize({ name: "peerpost", title: "peerpost", version: this.options.clientVersion });
    if (!initialized.ok) {
      await client.close();
      return initialized;
    }
    this.client = client;
    return { ok: true, value: client };
  }

  private drop(): void {
    const client = this.client;
    this.client = undefined;
    void client?.close();
  }
}


function pushError(error: AppServerError): PeerpostError {
  // Not the state dir's fault: the push is unsupported right now, and the message waits for read.
  return new PeerpostError("unsupported", `Codex app-server (${error.code}): ${describeError(error)}`, {
    details: { appServerError: error.code, ...(error.rpcCode !== undefined ? { rpcCode: error.rpcCode } : {}) },
    hint: "The Codex app-server daemon could not take the turn; the message stays unread for read and the hooks, and the push is retried. `health` shows push.reason.",
  });
}
