// Keeps the page's state in step with the server. The first state comes inside the page itself (no
// fetch before the first render); after that the event stream, opened with the page's filters, pushes
// only the parts of the state that changed ("delta": from the state the page holds, by its serial).
// A delta from another state than the one shown (the page fetched meanwhile) makes one full fetch.
import type { UiState } from "../types.js";

export const FILTERS = ["session", "role", "conversation", "q", "limit"] as const;

/** What a delta event carries: the changed top-level parts of the state, from `base` (null: all of it). */
interface Delta {
  base: number | null;
  serial: number;
  changed: Partial<UiState>;
}

export interface SyncHooks {
  render: (next: UiState, changed?: ReadonlySet<string>) => void;
  problem: (text: string) => void;
  connected: () => void;
}

export class PageSync {
  private shown: UiState | undefined;
  private fetching = false;
  /** A fetch is owed once the one in flight ends. */
  private again = false;
  private events: EventSource | undefined;
  /** The filters the open event stream was opened with. */
  private streamFilters = "";
  /** This tab holds the "peerpost-live" lock: it keeps its stream while hidden, so notifications still come. */
  private keepsStream = false;

  constructor(
    private readonly params: URLSearchParams,
    private readonly token: string,
    private readonly hooks: SyncHooks,
  ) {}

  /**
   * Draws the state the page came with, else fetches it; then follows the event stream. A browser opens at
   * most six connections to one origin and each tab's stream holds one, so six open tabs left no room for
   * a write or a seventh tab: a hidden tab lets its stream go and catches up when shown, except the one
   * tab that holds the lock (the first one opened; the next when it closes).
   */
  start(): void {
    void navigator.locks?.request("peerpost-live", () => {
      this.keepsStream = true;
      if (!this.events && this.shown) this.connect();
      return new Promise<never>(() => undefined);
    });
    document.addEventListener("visibilitychange", () => {
      if (!this.hiddenAway()) {
        if (!this.events && this.shown) this.connect();
        return;
      }
      this.events?.close();
      this.events = undefined;
    });
    const embedded = document.getElementById("initial-state")?.textContent;
    const initial = embedded ? (JSON.parse(embedded) as UiState | null) : null;
    if (initial) {
      this.show(initial);
      this.connect();
    } else void this.load();
  }

  /** The filters in the URL, as a query. */
  private filterQuery(): URLSearchParams {
    const query = new URLSearchParams({ token: this.token });
    for (const name of FILTERS) {
      const value = this.params.get(name);
      if (value) query.set(name, value);
    }
    return query;
  }

  /** One fetch at a time; asks made meanwhile cause at most one more. */
  async load(): Promise<void> {
    if (this.fetching) {
      this.again = true;
      return;
    }
    this.fetching = true;
    try {
      const response = await fetch(`/api/state?${this.filterQuery()}`, { cache: "no-store" });
      const value = (await response.json()) as UiState | { ok: false; error: { message: string } };
      if ("ok" in value) this.hooks.problem(value.error.message);
      else this.show(value);
    } catch (error) {
      this.hooks.problem(`cannot reach the server: ${String(error)}`);
    } finally {
      this.fetching = false;
      if (this.again) void this.load();
      this.again = false;
    }
    // A stream opened with other filters pushes another state: open one for these.
    if (this.shown && this.streamFilters !== this.filterQuery().toString()) this.connect();
  }

  private show(next: UiState, changed?: ReadonlySet<string>): void {
    this.shown = next;
    this.hooks.render(next, changed);
  }

  /** Whether this tab lets its stream go: hidden, and not the one that keeps its stream. */
  private hiddenAway(): boolean {
    return document.visibilityState === "hidden" && !this.keepsStream;
  }

  /** (Re)opens the event stream for the current filters, saying which state the page holds. */
  private connect(): void {
    this.events?.close();
    this.events = undefined;
    if (this.hiddenAway()) return;
    const query = this.filterQuery();
    this.streamFilters = query.toString();
    if (this.shown) query.set("since", String(this.shown.serial));
    const events = new EventSource(`/events?${query}`);
    this.events = events;
    events.addEventListener("delta", (event) => this.apply(JSON.parse((event as MessageEvent<string>).data) as Delta));
    events.addEventListener("open", () => this.hooks.connected());
    // EventSource retries by itself; a server restarted since has a new token, so the page needs its new URL.
    events.addEventListener("error", () => this.hooks.problem("disconnected: if peerpost ui was restarted, open the URL it printed"));
  }

  private apply(delta: Delta): void {
    if (this.shown?.serial === delta.serial) return;
    if (delta.base === null) return this.show(delta.changed as UiState);
    if (!this.shown || this.shown.serial !== delta.base) return void this.load();
    this.show({ ...this.shown, ...delta.changed }, new Set(Object.keys(delta.changed)));
  }
}
