// Per address, the newest message a rule picks from a view's fold (the scope's newest send to each
// recipient, the newest request from each sender it closed): built from the fold on first use, then kept
// as the view folds events, so a send that asks whether it continues a conversation reads one entry.
import type { MessageState } from "./fold.js";

/** Where a message counts (the address it is filed under) and its order there (later wins), or undefined. */
export type Rank = (message: MessageState) => { address: string; order: string } | undefined;

export class NewestBy {
  private newest: Map<string, { id: string; order: string }> | undefined;

  constructor(private readonly rank: Rank) {}

  /** The newest message filed under `address` among `messages` (the view's fold). */
  get(messages: Record<string, MessageState>, address: string): MessageState | undefined {
    if (!this.newest) {
      this.newest = new Map();
      for (const message of Object.values(messages)) this.note(message);
    }
    const id = this.newest.get(address)?.id;
    return id === undefined ? undefined : messages[id];
  }

  /** A message the view just folded an event of; nothing to do until the first `get`. */
  note(message: MessageState | undefined): void {
    const ranked = message && this.newest ? this.rank(message) : undefined;
    if (!ranked) return;
    const latest = this.newest!.get(ranked.address);
    if (latest === undefined || latest.order <= ranked.order) this.newest!.set(ranked.address, { id: message!.id, order: ranked.order });
  }

  /** Forgets it all: the view starts its fold over. */
  reset(): void {
    this.newest = undefined;
  }
}
