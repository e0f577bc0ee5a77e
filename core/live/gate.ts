// The live push's decision before a claim: the recipient's policy, then the budget. A push that may not
// happen leaves the message unread for the hooks and `read`; its receipt (delivery skipped, the warning
// code first) tells the sender why, written once per message and reason by this server.
import type { Peerpost } from "../peerpost.js";
import type { MessageState } from "../mail/fold.js";
import { receiptOrigin, type Identity, type PushTransport } from "../server/adapter.js";
import { liveBudgetRefusal, type LiveRefusal } from "./rules.js";

export class LiveGate {
  /** Message id → the refusal code already recorded for it. */
  private readonly recorded = new Map<string, string>();

  constructor(
    private readonly peerpost: Peerpost,
    private readonly transport: PushTransport,
    private readonly hostName: string,
  ) {}

  /** Undefined when the push may go ahead; otherwise the refusal, recorded as a receipt the first time. */
  async refusal(identity: Identity, message: MessageState): Promise<LiveRefusal | undefined> {
    const refusal = this.transport.admit?.(message) ?? liveBudgetRefusal(this.peerpost, identity.address, this.peerpost.config.now());
    if (!refusal) {
      this.recorded.delete(message.id);
      return undefined;
    }
    if (this.recorded.get(message.id) === refusal.code) return refusal;
    this.recorded.set(message.id, refusal.code);
    await this.peerpost.receipts.record({
      kind: "push",
      host: this.hostName,
      from: message.from,
      to: message.to,
      messageId: message.id,
      delivery: "skipped",
      via: this.transport.name,
      warnings: [`${refusal.code}: ${refusal.reason}`],
      origin: receiptOrigin(identity, false),
    });
    return refusal;
  }
}
