// LISTEN/NOTIFY for watching logs: one connection per process, shared by every watcher. After an outage
// it reconnects with a growing delay, listens again, and then wakes every watcher, so each re-reads from
// its last position whatever was committed while notifications could not arrive. It also wakes them
// once right after the first LISTEN, which closes the gap between a watcher's first read and LISTEN.
import type { Client, Notification } from "pg";
import { connectClient, type ConnectOptions } from "./connect.js";

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5000;
/**
 * How often an idle LISTEN connection is asked to answer, and how long it may take. A connection only
 * ever receives: one whose path died without a FIN or RST (a NAT or firewall that forgot it, a laptop on
 * another network) would otherwise look up for hours, and its follower vouch for a mirror that lags.
 */
const HEARTBEAT_MS = 5000;
const HEARTBEAT_TIMEOUT_MS = 5000;

export type WatchCallback = () => void;

export class Listener {
  private readonly watchers = new Map<string, Set<WatchCallback>>();
  private client: Client | undefined;
  private connecting: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay = RETRY_FIRST_MS;
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;
  /** Whether notifications can arrive now (health reports it). */
  connected = false;
  lastError: string | undefined;

  /** Told true once LISTEN is up (after every reconnection), false when the connection is lost. */
  onConnection: ((connected: boolean) => void) | undefined;

  constructor(private readonly options: ConnectOptions) {}

  /** Calls `callback` whenever `channel` is notified, and after every (re)connection. */
  watch(channel: string, callback: WatchCallback): () => void {
    let set = this.watchers.get(channel);
    const isNew = !set;
    if (!set) this.watchers.set(channel, (set = new Set()));
    set.add(callback);
    if (this.client && isNew) this.command(this.client, `LISTEN ${channel}`);
    else this.ensureConnected();
    return () => {
      set.delete(callback);
      if (set.size > 0) return;
      this.watchers.delete(channel);
      if (this.client) this.command(this.client, `UNLISTEN ${channel}`, false);
      if (this.watchers.size === 0) void this.disconnect();
    };
  }

  /** LISTEN and UNLISTEN one after another: pg deprecates a query sent while another is still under way. */
  private commands: Promise<unknown> = Promise.resolve();

  private command(client: Client, sql: string, lostOnError = true): void {
    this.commands = this.commands.then(() => client.query(sql)).catch((error: unknown) => lostOnError && this.lost(error, client));
  }

  private ensureConnected(): void {
    if (this.closed || this.client || this.connecting || this.retryTimer) return;
    this.connecting = this.connect().finally(() => (this.connecting = undefined));
  }

  private async connect(): Promise<void> {
    let client: Client | undefined;
    try {
      client = await connectClient({ ...this.options, applicationName: "peerpost-listen" });
      client.on("notification", (notification: Notification) => this.dispatch(notification.channel));
      client.on("error", (error: Error) => this.lost(error, client));
      client.on("end", () => this.lost(new Error("connection closed"), client));
      for (const channel of this.watchers.keys()) await client.query(`LISTEN ${channel}`);
      if (this.closed) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.connected = true;
      this.retryDelay = RETRY_FIRST_MS;
      this.beat(client);
      this.onConnection?.(true);
      // Whatever was committed before LISTEN took effect (or during an outage) sent no notification we saw.
      for (const channel of this.watchers.keys()) this.dispatch(channel);
    } catch (error) {
      await client?.end().catch(() => undefined);
      this.lost(error);
    }
  }

  /** Asks `client` to answer now and then; one that does not in time is lost (and reconnected). */
  private beat(client: Client): void {
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => {
      const silent = setTimeout(() => this.lost(new Error("the LISTEN connection stopped answering"), client), HEARTBEAT_TIMEOUT_MS).unref();
      this.commands = this.commands.then(() => client.query("SELECT 1")).then(
        () => clearTimeout(silent),
        () => clearTimeout(silent),
      );
    }, HEARTBEAT_MS).unref();
  }

  private lost(error: unknown, client?: Client): void {
    if (client !== undefined && client !== this.client) return;
    clearInterval(this.heartbeat);
    // A command the dead connection never answers must not hold up the next connection's.
    this.commands = Promise.resolve();
    this.lastError = error instanceof Error ? error.message : String(error);
    const dead = this.client;
    this.client = undefined;
    if (this.connected) this.onConnection?.(false);
    this.connected = false;
    void dead?.end().catch(() => undefined);
    if (this.closed || this.retryTimer || this.watchers.size === 0) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.ensureConnected();
    }, this.retryDelay);
    this.retryTimer.unref();
    this.retryDelay = Math.min(RETRY_MAX_MS, this.retryDelay * 2);
  }

  private dispatch(channel: string): void {
    for (const callback of [...(this.watchers.get(channel) ?? [])]) {
      try {
        callback();
      } catch {
        // A watcher's failure is its own; the others still wake.
      }
    }
  }

  /** Stops listening for good (the process is shutting down). */
  async close(): Promise<void> {
    this.closed = true;
    await this.disconnect();
  }

  private async disconnect(): Promise<void> {
    clearInterval(this.heartbeat);
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const client = this.client;
    this.client = undefined;
    if (this.connected) this.onConnection?.(false);
    this.connected = false;
    await this.connecting?.catch(() => undefined);
    await client?.end().catch(() => undefined);
  }
}
