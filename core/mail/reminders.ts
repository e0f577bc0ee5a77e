// The reminder policy: for an open reply/action message that was read but not resolved, remind at most
// once per interval and at most `limit` times; then the message shows as unresolved to its sender.
import { expectsResolution, isOpen, type MessageState, type ReminderSettings } from "./fold.js";

export interface DueReminder {
  id: string;
  /** The number this reminder will carry (1-based). */
  n: number;
}

/** A request someone else waits on: a note to oneself (a task's opening note) stays open for its answer but never nags. */
export function awaitsAnswer(message: MessageState): boolean {
  return expectsResolution(message) && message.from !== message.to;
}

export function dueReminder(message: MessageState, now: number, settings: ReminderSettings): DueReminder | undefined {
  if (!awaitsAnswer(message) || !message.read || !isOpen(message, now)) return undefined;
  if (message.reminders.count >= settings.limit) return undefined;
  const since = Date.parse(message.reminders.lastAt ?? message.read.at);
  if (now < since + settings.intervalMs) return undefined;
  return { id: message.id, n: message.reminders.count + 1 };
}

/**
 * Whether a turn end should hold the session for this request: unread and open, and either never told
 * at a turn end, or told more than an interval ago and fewer than `limit` times again since the first.
 */
export function turnEndDue(message: MessageState, now: number, settings: ReminderSettings): boolean {
  if (!awaitsAnswer(message) || message.read || message.resolved || !isOpen(message, now)) return false;
  if (!message.noticed) return true;
  return (message.noticed.count ?? 1) <= settings.limit && now >= Date.parse(message.noticed.at) + settings.intervalMs;
}
