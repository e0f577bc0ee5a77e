// The newest part of the mailbox, folded: the web view's default page shows the latest conversations, so
// its server folds only the log's tail, from a line chosen to hold at least a number of messages, and
// never the whole log. Events about older messages are passed over. Asking for more conversations than
// the tail holds widens it (a fold of the wider tail), for as long as pages keep asking for that much; a
// replaced log (a compaction's swap) starts it over.
import type { JsonlLog } from "../log/log.js";
import { MailboxView } from "../mail/view.js";
import type { MailboxEvent } from "../records/schemas.js";

/** Messages the tail holds at first: a few thousand, far more than the 20 conversations a page opens with. */
export const RECENT_MESSAGES = 2000;
/** How long a widened tail is kept after the last page that asked for more than the first tail holds. */
const WIDE_KEPT_MS = 5 * 60_000;

export class RecentMail {
  private folded: MailboxView | undefined;
  /** Where the folded tail starts in the log: 0 when it holds the whole log. */
  start = 0;
  private messages: number;
  private narrowing: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: JsonlLog<MailboxEvent>,
    /** How many messages the tail holds at least (fewer only when the log has fewer). */
    private readonly firstMessages = RECENT_MESSAGES,
    private readonly wideKeptMs = WIDE_KEPT_MS,
  ) {
    this.messages = firstMessages;
  }

  /** The fold of the tail, brought up to the end of the log. */
  get view(): MailboxView {
    const identity = this.log.identity();
    const file = identity && `${identity.dev}:${identity.ino}`;
    if (!this.folded || (this.folded.file() !== undefined && this.folded.file() !== file) || (identity?.size ?? 0) < this.folded.offset) this.fold();
    this.folded!.refresh();
    return this.folded!;
  }

  /** Whether older mail lies before the tail. */
  get partial(): boolean {
    return this.start > 0;
  }

  /** Holds twice as many messages, while pages ask for them (keepWide); false when the tail already holds the whole log. */
  widen(): boolean {
    if (this.start === 0) return false;
    this.messages *= 2;
    this.fold();
    this.keepWide();
    return true;
  }

  /**
   * A page asks for more than the first tail holds: a widened tail stays a while longer. Once none has for
   * that while, the first tail is folded again, so a view left open holds its memory, not the widest tail
   * anyone ever asked for.
   */
  keepWide(): void {
    if (this.messages === this.firstMessages) return;
    clearTimeout(this.narrowing);
    this.narrowing = setTimeout(() => {
      this.messages = this.firstMessages;
      this.folded = undefined;
    }, this.wideKeptMs).unref();
  }

  /** Folds anew from the line that starts the newest `messages` messages (read back from the end). */
  private fold(): void {
    let seen = 0;
    let start = 0;
    this.log.scanBackward(undefined, (entry) => {
      start = entry.offset;
      if (entry.record.type === "msg") seen++;
      return seen < this.messages;
    });
    // A log with fewer messages than asked for is folded whole.
    this.start = seen < this.messages ? 0 : start;
    const view = new MailboxView(this.log, undefined, undefined);
    view.offset = this.start;
    this.folded = view;
  }
}
