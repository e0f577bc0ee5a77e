// Waiting on conditions that other processes make true (a file appears, a record lands): poll with a
// deadline, and say what was awaited when it never came.
import type { Peerpost } from "../../core/peerpost.js";
import { dueReminder } from "../../core/mail/reminders.js";

/**
 * The least any wait gets. `timeoutMs` says how long the condition should take; on a loaded 2-core
 * machine the processes that make it true can take many times that, and a wait ends as soon as it
 * holds, so only a failure ever waits this long.
 */
const LEAST_WAIT_MS = 60_000;

export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const budget = Math.max(timeoutMs, LEAST_WAIT_MS);
  const deadline = Date.now() + budget;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${budget} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A check for "the request `messageId` to `address` is due a reminder now", reading a fresh store each time. */
export function reminderDueCheck(store: () => Peerpost, address: string, messageId: string): () => boolean {
  return () => {
    const { mailbox } = store();
    const message = mailbox.view(address).state.messages[messageId];
    return message !== undefined && dueReminder(message, Date.now(), mailbox.settings) !== undefined;
  };
}
