// What `peerpost shim` knows about the sessions in the host process it sits on: which the editor opened,
// and whether each is busy. A session is busy while any reason holds (a prompt in flight, a running turn,
// the host's own "active" status); the host dialect (plugins/<host>/shim.ts) names the reasons from the
// traffic. A turn is injected only into an idle session: Codex merges a turn started during another and
// Copilot cancels the running one.
import type { SessionHost } from "../records/schemas.js";
import type { SessionKind } from "../common/address.js";
import type { RelayObserver, ShimRelay } from "./shim-relay.js";

/** What a dialect reports while it watches the traffic. */
export interface ShimSessionEvents {
  /** The editor opened or loaded this session in the host process (in `cwd`, when the traffic says). */
  opened(sessionId: string, cwd?: string): void;
  /** Sets or clears one reason the session is busy (e.g. `prompt:editor:7`, `load:editor:3`, `turn:<id>`, `status`). */
  busy(sessionId: string, reason: string, holds: boolean): void;
}

/** The host-specific half of a shim: how its protocol mode looks, and how its traffic reads. */
export interface ShimDialect {
  host: SessionHost;
  kind: SessionKind;
  /** The host's executable name on PATH. */
  binary: string;
  /** Whether these arguments start the stdio protocol mode the shim sits in; anything else runs the host as is. */
  isProtocolMode(args: readonly string[]): boolean;
  /** Watches the traffic and reports sessions and what keeps them busy. */
  observer(events: ShimSessionEvents): RelayObserver;
  /** Starts a turn with `text`; resolves once the host took it, rejects with why it did not. */
  inject(relay: ShimRelay, sessionId: string, text: string, messageId: string): Promise<void>;
}

type Waiter = { resolve: (idle: boolean) => void; timer: NodeJS.Timeout };

/** The busy reason of a session the editor closed: no turn starts there until it opens it again. */
export const CLOSED = "closed";

export class ShimSessions implements ShimSessionEvents {
  private readonly reasons = new Map<string, Set<string>>();
  private readonly waiters = new Map<string, Waiter[]>();
  private ended = false;

  constructor(
    private readonly onOpened: (sessionId: string, cwd: string | undefined) => void,
    private readonly onIdle: (sessionId: string) => void,
    /** Told when the editor closes a session or opens it again: senders hear that no turn starts there meanwhile. */
    private readonly onClosed: (sessionId: string, closed: boolean) => void = () => undefined,
  ) {}

  opened(sessionId: string, cwd?: string): void {
    if (this.ended || this.reasons.has(sessionId)) return;
    this.reasons.set(sessionId, new Set());
    this.onOpened(sessionId, cwd);
  }

  busy(sessionId: string, reason: string, holds: boolean): void {
    // Only sessions the editor opened through this shim are tracked (a host may report others it holds).
    const reasons = this.reasons.get(sessionId);
    if (reasons === undefined) return;
    if (reason === CLOSED && reasons.has(reason) !== holds) this.onClosed(sessionId, holds);
    if (holds) reasons.add(reason);
    else if (reasons.delete(reason) && reasons.size === 0) this.becameIdle(sessionId);
  }

  known(sessionId: string): boolean {
    return this.reasons.has(sessionId);
  }

  isIdle(sessionId: string): boolean {
    return !this.ended && this.reasons.get(sessionId)?.size === 0;
  }

  /** Why the session is busy, for `health`-style reasons. */
  busyReasons(sessionId: string): string[] {
    return [...(this.reasons.get(sessionId) ?? [])];
  }

  /** Resolves true once the session is idle, false when the host ends or the wait times out. */
  waitIdle(sessionId: string, timeoutMs: number): Promise<boolean> {
    if (this.isIdle(sessionId)) return Promise.resolve(true);
    if (this.ended) return Promise.resolve(false);
    return new Promise((resolve) => {
      const list = this.waiters.get(sessionId) ?? [];
      const waiter: Waiter = { resolve, timer: setTimeout(() => this.settle(sessionId, waiter, false), timeoutMs) };
      list.push(waiter);
      this.waiters.set(sessionId, list);
    });
  }

  /** The host is gone: every wait ends, no session is idle any more. */
  end(): void {
    this.ended = true;
    for (const [sessionId, list] of this.waiters) for (const waiter of [...list]) this.settle(sessionId, waiter, false);
  }

  private becameIdle(sessionId: string): void {
    for (const waiter of [...(this.waiters.get(sessionId) ?? [])]) this.settle(sessionId, waiter, true);
    this.onIdle(sessionId);
  }

  private settle(sessionId: string, waiter: Waiter, idle: boolean): void {
    clearTimeout(waiter.timer);
    const list = this.waiters.get(sessionId) ?? [];
    const index = list.indexOf(waiter);
    if (index >= 0) list.splice(index, 1);
    waiter.resolve(idle);
  }
}
