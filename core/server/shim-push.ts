// The push transport of `peerpost shim` for one session: a request becomes a turn the editor shows,
// started only when the session is idle. The push loop (push.ts) claims each message in the log before
// `deliver`, so two shims or servers watching one session never start two turns for it.
import type { MessageState } from "../mail/fold.js";
import { PeerpostError } from "../common/errors.js";
import type { PushTransport } from "./adapter.js";
import type { ShimSessions } from "./shim-sessions.js";

/** The `via` of a delivery through a shim (receipts show `push:shim`). */
export const SHIM_VIA = "shim";

/** How long a claimed message waits for its session to become idle before the claim is given back. */
const IDLE_WAIT_MS = 10 * 60_000;

export class ShimPush implements PushTransport {
  readonly name = SHIM_VIA;
  /** Requests only, never stale, within the wake budget, and the live note: core/live/rules.ts, applied by the push loop. */
  readonly live = true;

  constructor(
    private readonly address: string,
    private readonly sessionId: string,
    private readonly sessions: ShimSessions,
    private readonly startTurn: (text: string, messageId: string) => Promise<void>,
  ) {}

  availability(): { available: boolean; reason: string } {
    if (this.sessions.isIdle(this.sessionId)) return { available: true, reason: `${this.address} is idle in an editor through peerpost shim; a request arrives as a turn` };
    return { available: false, reason: `${this.address} is busy (${this.sessions.busyReasons(this.sessionId).join(", ") || "host gone"}); a request is pushed when its turn ends` };
  }

  /**
   * Nothing is claimed while the session is busy (the turn just pushed for another message, say): the model
   * may read this one meanwhile, and a claim held until idle would start a turn for mail already read. The
   * loop is kicked when the session becomes idle, and looks at the mail again then.
   */
  async ready(): Promise<string | undefined> {
    const { available, reason } = this.availability();
    return available ? undefined : reason;
  }

  async deliver(message: MessageState, content: string): Promise<void> {
    // Claimed while idle, but the editor may have started a turn since: wait for it to end.
    if (!(await this.sessions.waitIdle(this.sessionId, IDLE_WAIT_MS)))
      throw new PeerpostError("unsupported", `${this.address} did not become idle, so no turn was started.`, {
        details: { address: this.address, busy: this.sessions.busyReasons(this.sessionId) },
        hint: "The message stays unread for read and the hooks; the shim tries again when the session is idle.",
      });
    await this.startTurn(content, message.id);
  }
}
