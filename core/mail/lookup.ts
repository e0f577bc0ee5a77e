// Finding mail no view of the caller holds: a message by id, and every message of a conversation. Each
// goes through the views this process holds, then the lines the indexes file under the message or the
// conversation (message-lines.ts), then, where those cannot decide (role mail), the folds of single
// addresses that the indexes make (MailboxLookups), and only where the indexes cannot answer, a scan of
// the archive and the live log.
import { byId, type MessageState } from "./fold.js";
import type { MailboxLookups } from "../store/mailbox-lookups.js";

/** What the indexes answer when they cannot tell (no index, or role mail its lines cannot decide). */
const UNDECIDED = Symbol("undecided");

/**
 * A message by id: from a view this process holds (`held`), else as its sender's fold sees it (the
 * indexes find the sender, and that fold drops what every view drops), else, when the indexes cannot
 * tell, or a compaction moved lines between the archive and the live log while they were read (the reads
 * may have missed it in both), by scanning the archive and the log.
 */
export function findMessage(lookups: MailboxLookups, held: (id: string) => MessageState | undefined, id: string): MessageState | undefined {
  const found = held(id);
  if (found) return found;
  const before = lookups.storeGeneration();
  const answer = fromIndexes(lookups, id);
  if (answer !== UNDECIDED && lookups.storeGeneration() === before) return answer;
  return lookups.scanFor((message) => message.id === id)[0];
}

function fromIndexes(lookups: MailboxLookups, id: string): MessageState | undefined | typeof UNDECIDED {
  const sender = lookups.indexesAnswer() ? lookups.senderOf(id) : undefined;
  if (sender === null) return undefined;
  if (sender === undefined) return UNDECIDED;
  const seen = lookups.messageLines()?.messageSeenBy(id, sender);
  if (seen) return seen.message;
  const messages = lookups.messagesOf(sender);
  return messages ? messages[id] : UNDECIDED;
}

/**
 * Every message of a conversation, oldest first. Each message's sender and recipient see it, and a
 * message answers one its sender saw (as sender, recipient, or a holder of the role it came through),
 * so the folds of the addresses reached from the first message hold the whole conversation; each
 * message is taken from its sender's fold. Without the indexes, a scan.
 */
export function conversationOf(lookups: MailboxLookups, find: (id: string) => MessageState | undefined, conversationId: string): MessageState[] {
  const before = lookups.storeGeneration();
  const thread = lookups.indexesAnswer() ? threadFromIndexes(lookups, find, conversationId) : undefined;
  // A compaction that moved lines while the indexes were read: the reads may have missed some in both.
  if (thread && lookups.storeGeneration() === before) return thread;
  return lookups.scanFor((message) => message.conversationId === conversationId);
}

function threadFromIndexes(lookups: MailboxLookups, find: (id: string) => MessageState | undefined, conversationId: string): MessageState[] | undefined {
  const first = find(conversationId);
  if (!first) return undefined;
  const gathered = lookups.messageLines()?.conversation(conversationId, first);
  if (gathered) return gathered;
  const folds = new Map<string, Record<string, MessageState>>();
  const members = new Map<string, string>();
  const pending = [first.from, first.to];
  for (let address = pending.pop(); address !== undefined; address = pending.pop()) {
    if (folds.has(address)) continue;
    const messages = lookups.messagesOf(address);
    if (!messages) return undefined;
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
