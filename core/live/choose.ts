// A session may be reachable several ways: its host's own protocol (Claude's channel, the Codex
// app-server) and a terminal it runs in. The first transport available now is used, so a host's
// protocol is preferred to typing.
import type { MessageState } from "../mail/fold.js";
import type { Identity, PushTransport } from "../server/adapter.js";
import type { LiveRefusal } from "./rules.js";

export class FirstAvailable implements PushTransport {
  private chosen: PushTransport;

  constructor(private readonly transports: PushTransport[]) {
    this.chosen = transports[0]!;
  }

  /** The transport chosen by the last availability check: the push loop records it as the delivery's `via`. */
  get name(): string {
    return this.chosen.name;
  }

  availability(): { available: boolean; reason: string } {
    const states = this.transports.map((transport) => ({ transport, ...transport.availability() }));
    const usable = states.find((state) => state.available);
    this.chosen = usable?.transport ?? this.transports[0]!;
    return usable ?? { available: false, reason: states.map((state) => `${state.transport.name}: ${state.reason}`).join("; ") };
  }

  /** Whether the chosen transport is a live one (core/live/rules.ts), which decides the rules the push loop applies. */
  get live(): boolean {
    return this.chosen.live === true;
  }

  admit(message: MessageState): LiveRefusal | undefined {
    return this.chosen.admit?.(message);
  }

  ready(message: MessageState): Promise<string | undefined> {
    return this.chosen.ready?.(message) ?? Promise.resolve(undefined);
  }

  deliver(message: MessageState, content: string): Promise<void> {
    return this.chosen.deliver(message, content);
  }

  /** Only a transport that reminds: a terminal one types nothing for a reminder, so the loop must not record one. */
  get remind(): ((note: string) => Promise<void>) | undefined {
    const chosen = this.chosen;
    return chosen.remind ? (note) => chosen.remind!(note) : undefined;
  }

  bind(identity: Identity): void {
    for (const transport of this.transports) transport.bind?.(identity);
  }

  close(): void {
    for (const transport of this.transports) transport.close?.();
  }
}

/** One transport as it is, several behind FirstAvailable, none as undefined. */
export function liveTransport(transports: Array<PushTransport | undefined>): PushTransport | undefined {
  const present = transports.filter((transport): transport is PushTransport => transport !== undefined);
  return present.length <= 1 ? present[0] : new FirstAvailable(present);
}
