// One address's messages as the MCP tools show them: those its view folds (the live log), and, for what
// a compaction moved into the archive, the archived ones it sent or received, as `peerpost status` finds
// them. The tools answer only for mail of the caller; the CLI (a person) sees all of it.
import type { Mailbox } from "./mailbox.js";
import { byId, type MessageState } from "./fold.js";
import { keptBy } from "./view.js";

/**
 * Whether a message is `address`'s: it sent it, it is its recipient, or it held the role the message came
 * through while the message waited on it. Every view keeps all role mail (a role may move to any address),
 * so the view alone does not say whose it is.
 */
function concerns(address: string, message: MessageState): boolean {
  return message.to === address || message.from === address || (message.handovers?.some((step) => step.from === address || step.to === address) ?? false);
}

/** Message `id` as `address` sees it: from its view, else from the archive when it is `address`'s mail. */
export function addressedMessage(mailbox: Mailbox, address: string, id: string): MessageState | undefined {
  const message = mailbox.view(address).state.messages[id] ?? mailbox.foundFor(address, id);
  return message && concerns(address, message) ? message : undefined;
}

/** The messages of `message`'s conversation that `address` sees, oldest first, archived ones included. */
export function addressedThread(mailbox: Mailbox, address: string, message: MessageState): MessageState[] {
  const inView = Object.values(mailbox.view(address).state.messages).filter((other) => other.conversationId === message.conversationId && concerns(address, other));
  // Always looked up, even with its first message in view: a compaction moves each message on its own, so a
  // request still open keeps its conversation's later notes, done with and old, only in the archive.
  const thread = new Map(inView.map((other) => [other.id, other]));
  for (const other of mailbox.thread(message.conversationId)) if (!thread.has(other.id) && keptBy(address, other) && concerns(address, other)) thread.set(other.id, other);
  return [...thread.values()].sort(byId);
}
