// The pages' event streams. Each is opened with its page's filters and the serial of the state the page
// shows; after every change of the logs (and every heartbeat, since statuses move with time) it is sent
// only the top-level parts of its state that differ from what it holds: a delta, not a prompt to fetch.
import type { ServerResponse } from "node:http";
import type { UiFilters, UiState } from "./types.js";

/** A state as built for one filter set, each top-level part kept as JSON so deltas compare part by part. */
export class BuiltState {
  readonly serial: number;
  private readonly parts: Array<[string, string]>;
  /** The whole state as JSON. */
  readonly body: string;

  constructor(state: UiState) {
    this.serial = state.serial;
    this.parts = Object.entries(state).map(([key, value]) => [key, JSON.stringify(value)]);
    this.body = joinParts(this.parts);
  }

  /** The delta event that brings a page from `base` to this state (all of it when there is no base). */
  deltaFrom(base: BuiltState | undefined): string {
    const before = new Map(base?.parts);
    const changed = this.parts.filter(([key, json]) => before.get(key) !== json);
    return `event: delta\ndata: {"base":${base?.serial ?? null},"serial":${this.serial},"changed":${joinParts(changed)}}\n\n`;
  }
}

function joinParts(parts: Array<[string, string]>): string {
  return `{${parts.map(([key, json]) => `${JSON.stringify(key)}:${json}`).join(",")}}`;
}

interface Stream {
  response: ServerResponse;
  filters: UiFilters;
  /** What this stream's page holds: the state last sent, or the one it was opened with. */
  sent: BuiltState | undefined;
}

/** Streams served at once: a browser opens at most six connections to one origin, and the page keeps one. */
export const MAX_STREAMS = 12;

export class LiveStreams {
  private readonly streams = new Set<Stream>();

  /** Whether another stream may open. */
  get full(): boolean {
    return this.streams.size >= MAX_STREAMS;
  }

  constructor(
    /** The current state for a filter set (built once per change for each distinct set). */
    private readonly stateFor: (filters: UiFilters) => BuiltState,
    private readonly headers: Record<string, string>,
  ) {}

  /** A page's stream; `holds` is the state it shows when the server still has it, else it is sent whole. */
  open(response: ServerResponse, filters: UiFilters, holds: BuiltState | undefined): void {
    response.writeHead(200, { ...this.headers, "content-type": "text/event-stream; charset=utf-8", connection: "keep-alive" });
    response.write("retry: 2000\n\n");
    const stream: Stream = { response, filters, sent: holds };
    this.streams.add(stream);
    response.on("close", () => this.streams.delete(stream));
    response.on("drain", () => this.push(stream));
    this.push(stream);
  }

  pushAll(): void {
    for (const stream of this.streams) this.push(stream);
  }

  closeAll(): void {
    for (const stream of this.streams) stream.response.end();
  }

  private push(stream: Stream): void {
    // A page that does not read (a stopped tab, a stalled connection) gets nothing more until the last delta
    // drained; then one delta from what it was sent brings it up to date. Nothing piles up in the server.
    if (stream.response.writableNeedDrain) return;
    let built: BuiltState;
    try {
      built = this.stateFor(stream.filters);
    } catch {
      // The page's own fetch reports it.
      return;
    }
    if (built === stream.sent) return;
    stream.response.write(built.deltaFrom(stream.sent));
    stream.sent = built;
  }
}
