// Finding mail no view of the caller holds: a message by id, and every message of a conversation. Each
// goes through the views this process holds, then the lines the indexes file under the message or the
// conversation (message-lines.ts), then, where those cannot decide (role mail), the folds of single
// addresses that the indexes make (MailboxLookups), and only where the indexes cannot answer, a scan of
// the archive and the live log.
import { byId, type MessageState } from "./fold.js";
import type { MailboxLookups } from "../store/mailbox-lookups.js";

/**
 * A message by id: from a view this process holds (`held`), else as its sender's fold sees it (the
 * indexes find the sender, and that fold drops what every view drops), else, when the indexes cannot
 * tell, by scanning the archive and the log.
 */
export function findMessage(lookups: MailboxLookups, held: (id: string) => MessageState | undefined, id: string): MessageState | undefined {
  const found = held(id);
  if (found) return found;
  const before = lookups.storeGeneration();
  const sender = lookups.indexesAnswer() ? lookups.senderOf(id) : undefined;
  // "No such message" holds only if no compaction moved lines between the indexes meanwhile.
  if (sender === null && lookups.storeGeneration() === before) return undefined;
  const seen = typeof sender === "string" ? lookups.messageLines()?.messageSeenBy(id, sender) : undefined;
  if (seen) return seen.message;
  const messages = typeof sender === "string" ? lookups.messagesOf(sender) : undefined;
  return messages ? messages[id] : lookups.scanFor((message) => message.id === id)[0];
}

/**
 * Every message of a conversation, oldest first. Each message's sender and recipient see it, and a
 * message answers one its sender saw (as sender, recipient, or a holder of the role it came through),
 * so the folds of the addresses reached from the first message hold the whole conversation; each
 * message is taken from its sender's fold. Without the indexes, a scan.
 */
export function conversationOf(lookups: MailboxLookups, find: (id: string) => MessageState | undefined, conversationId: string): MessageState[] {
  const scan = () => lookups.scanFor((message) => message.conversationId === conversationId);
  if (!lookups.indexesAnswer()) return scan();
  const first = find(conversationId);
  if (!first) return scan();
  const gathered = lookups.messageLines()?.conversation(conversationId, first);
  if (gathered) return gathered;
  const folds = new Map<string, Record<string, MessageState>>();
  const members = new Map<string, string>();
  const pending = [first.from, first.to];
  for (let address = pending.pop(); address !== undefined; address = pending.pop()) {
    if (folds.has(address)) continue;
    const messages = lookups.messagesOf(address);
    if (!messages) return scan();
    folds.set(address, messages);
    for (const message of Object.values(messages)) {
      if (message.conversationId !== conversationId || members.has(message.id)) continue;
      members.set(message.id, message.from);
      // Role mail's former holders may have answered it before it moved on.
      pending.push(message.from, message.to, ...(message.handovers ?? []).map((step) => step.from));
    }
  }
  const thread: MessageState[] = [];
  for (const [id, sender] of members) {
    const message = folds.get(sender)?.[id];
    if (message) thread.push(message);
  }
  return thread.sort(byId);
}
