// Live push: watches the mailbox for new messages to this session and hands each to the host's transport
// exactly once. Delivery is claimed in the log (a `delivered` event, under the lock) before the push, so
// several servers for one session, or a restarted one, never push a message twice. A failed push leaves
// the message unread: the hooks and `read` still surface it.
import { watch, type FSWatcher } from "node:fs";
import { basename } from "node:path";
import type { Peerpost } from "../peerpost.js";
import { byId, type MessageState } from "../mail/fold.js";
import { renderEnvelope } from "../mail/envelope.js";
import { dueReminder } from "../mail/reminders.js";
import { mailNote } from "../mail/notes.js";
import { toErrorValue } from "../common/errors.js";
import { DeliveryUnsure, receiptOrigin, type Identity, type PushTransport } from "./adapter.js";
import { isStale } from "../wake/stale.js";
import { LiveGate } from "../live/gate.js";
import { switchFile } from "../wake/switches.js";
import { isLiveCandidate, liveNote } from "../live/rules.js";

const RETRY_FIRST_MS = 2000;
const RETRY_MAX_MS = 5 * 60_000;

export interface PushLoopHooks {
  /** Told whenever the session's reachability changes: the transport's name, or "none". */
  onReachability?: (identity: Identity, push: string) => Promise<void>;
  /** Runs before each pass, so the loop follows the host to its current session. */
  refreshIdentity?: () => Promise<void>;
}

export interface PushState {
  transport: string;
  available: boolean;
  reason: string;
  running: boolean;
  pushed: number;
  failed: number;
  lastError?: string;
}

export class PushLoop {
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private identity: Identity | undefined;
  private busy = false;
  private stopped = false;
  private current: Promise<void> = Promise.resolve();
  private again = false;
  private counts = { pushed: 0, failed: 0 };
  private lastError: string | undefined;

  private reported: string | undefined;
  /** Messages whose push failed: when to try again, and the last delay. */
  private readonly retryAt = new Map<string, { at: number; delay: number }>();
  /** A live transport's policy and budget check (core/live), asked whenever the transport is a live one now. */
  private readonly gate: LiveGate;

  constructor(
    private readonly peerpost: Peerpost,
    readonly transport: PushTransport,
    private readonly hostName: string,
    private readonly hooks: PushLoopHooks = {},
  ) {
    this.gate = new LiveGate(peerpost, transport, hostName);
  }

  state(): PushState {
    const { available, reason } = this.transport.availability();
    const state: PushState = { transport: this.transport.name, available, reason, running: this.identity !== undefined, ...this.counts };
    if (this.lastError !== undefined) state.lastError = this.lastError;
    return state;
  }

  /** Starts (or retargets) the loop for this session's address. */
  start(identity: Identity): void {
    if (this.stopped || !this.peerpost.config.push || this.identity?.address === identity.address) return;
    this.identity = identity;
    this.reported = undefined;
    this.transport.bind?.(identity);
    if (!this.watcher) {
      try {
        // Only the files a pass reads wake it (the poll covers the rest): a send also writes a receipt, and
        // hooks and compactions write snapshots, the index and locks, none of which make mail pushable. Every
        // idle session's server on the machine would otherwise fold its view for each of them.
        const { mailbox, wakes, sessions, stateDir } = this.peerpost;
        const read = new Set([mailbox.log.path, wakes.log.path, sessions.log.path, switchFile(stateDir.path)].map((path) => basename(path)));
        this.watcher = watch(this.peerpost.stateDir.path, { persistent: false }, (_event, name) => void ((name === null || read.has(String(name))) && this.kick()));
        this.watcher.on("error", () => undefined);
      } catch {
        // The poll below still runs.
      }
      this.timer = setInterval(() => this.kick(), Math.max(this.peerpost.config.waitPollMs, 1000));
      this.timer.unref();
    }
    this.kick();
  }

  /** Stops watching; resolves once a pass under way has finished, so no write is cut off mid-way. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.watcher?.close();
    clearInterval(this.timer);
    this.identity = undefined;
    this.again = false;
    await this.current;
    this.transport.close?.();
  }

  /** Runs one pass now, or right after the current one. */
  kick(): void {
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    this.current = this.pass().finally(() => {
      this.busy = false;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  private async pass(): Promise<void> {
    await this.hooks.refreshIdentity?.().catch(() => undefined);
    const identity = this.identity;
    if (!identity) return;
    const available = this.transport.availability().available;
    const push = available ? this.transport.name : "none";
    if (push !== this.reported) {
      this.reported = push;
      await this.hooks.onReachability?.(identity, push).catch(() => undefined);
    }
    if (!available) return;
    const { mailbox } = this.peerpost;
    try {
      const view = mailbox.view(identity.address);
      const now = this.peerpost.config.now();
      // Stale mail (past replyBy, or unread too long) is never pushed: it waits for read. A live transport takes
      // only requests, and none that a wake, launch or fork run already carries in its prompt; nothing at all
      // while such a headless run holds the session (its runner takes what arrives meanwhile, in a next run).
      const staleMs = this.peerpost.config.staleMs;
      const wakes = this.transport.live ? this.peerpost.wakes.fold() : undefined;
      if (wakes?.holding(now, identity.address)) return;
      const carried = wakes?.carried(now);
      const pending = Object.values(view.state.messages).filter((message) =>
        carried ? isLiveCandidate(message, identity.address, now, staleMs) && !carried.has(message.id) : message.to === identity.address && !message.delivered && !message.read && !message.resolved && !isStale(message, now, staleMs),
      );
      for (const message of pending.sort(byId)) await this.pushOne(identity, message);
      if (this.transport.remind) {
        for (const message of Object.values(view.state.messages)) {
          if (message.to !== identity.address || !dueReminder(message, now, mailbox.settings)) continue;
          const n = await mailbox.remind(identity.address, message.id, this.transport.name);
          const note = mailNote({ unread: [], reminders: [message] });
          if (n !== undefined && note !== undefined) await this.transport.remind(note);
        }
      }
    } catch (error) {
      this.lastError = toErrorValue(error).message;
    }
  }

  private async pushOne(identity: Identity, message: MessageState): Promise<void> {
    const { mailbox } = this.peerpost;
    const retryAt = this.retryAt.get(message.id);
    if (retryAt !== undefined && Date.now() < retryAt.at) return;
    // A transport that delivers only at some moments (an idle session, an empty input line) says so first;
    // then a live transport's recipient policy and budget, right before the claim, so the budget counts this pass's own.
    if (this.transport.ready && (await this.transport.ready(message)) !== undefined) return;
    if (this.transport.live && (await this.gate.refusal(identity, message))) return;
    if (!(await mailbox.markDelivered(identity.address, message.id, this.transport.name))) return;
    const warnings: string[] = [];
    let delivery: "delivered" | "failed" = "delivered";
    try {
      await this.transport.deliver(message, this.transport.live ? liveNote(message) : renderEnvelope(message, mailbox.body(message), mailbox.procedure(message)));
      this.counts.pushed++;
      this.retryAt.delete(message.id);
    } catch (error) {
      if (error instanceof DeliveryUnsure) {
        // It may have arrived: the claim stays, so it is never delivered twice; unread, the hooks still flag it.
        this.counts.pushed++;
        this.retryAt.delete(message.id);
        warnings.push(`${error.message}; not delivered again: unless it arrived, it waits for read and the hooks`);
      } else {
        delivery = "failed";
        this.counts.failed++;
        this.lastError = toErrorValue(error).message;
        // Give the claim back so a later pass (or another server) can push it; wait longer after each failure.
        const delay = Math.min(RETRY_MAX_MS, (retryAt?.delay ?? RETRY_FIRST_MS / 2) * 2);
        this.retryAt.set(message.id, { at: Date.now() + delay, delay });
        await mailbox.releaseDelivery(identity.address, message.id, this.transport.name).catch(() => undefined);
        warnings.push(`push failed: ${this.lastError}; the message stays unread for read and the hooks, and the push is retried in ${Math.round(delay / 1000)} s`);
      }
    }
    await this.recordPush(identity, message, delivery, warnings);
  }

  private async recordPush(identity: Identity, message: MessageState, delivery: "delivered" | "failed", warnings: string[]): Promise<void> {
    try {
      await this.peerpost.receipts.record({
        kind: "push",
        host: this.hostName,
        from: message.from,
        to: message.to,
        messageId: message.id,
        delivery,
        via: this.transport.name,
        warnings,
        origin: receiptOrigin(identity, false),
      });
    } catch (error) {
      this.lastError = `receipt not recorded: ${toErrorValue(error).message}`;
    }
  }
}
