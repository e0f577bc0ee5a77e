// A message's history as a list of dated events, oldest first: what `status` shows, to a model or a person.
import type { MessageState } from "./fold.js";

export const HISTORY_EVENTS = ["sent", "handover", "delivered", "noticed", "woken", "read", "reminder", "resolved"] as const;

export interface HistoryEntry {
  event: (typeof HISTORY_EVENTS)[number];
  at: string;
  detail?: string;
}

export function messageHistory(message: MessageState): HistoryEntry[] {
  // Where it went first: the holder before any handover.
  const firstTo = message.handovers?.[0]?.from ?? message.to;
  const entries: HistoryEntry[] = [{ event: "sent", at: message.sentAt, detail: `by ${message.from} to ${message.via ? `${message.via} (held by ${firstTo === message.via ? "nobody" : firstTo})` : firstTo}` }];
  for (const step of message.handovers ?? [])
    entries.push({ event: "handover", at: step.at, detail: `${message.via} moved from ${step.from === message.via ? "nobody" : step.from} to ${step.to === message.via ? "nobody" : step.to}` });
  if (message.delivered) entries.push({ event: "delivered", at: message.delivered.at, detail: `via ${message.delivered.via}` });
  if (message.noticed) entries.push({ event: "noticed", at: message.noticed.at, detail: `told at a turn end (${message.noticed.via})${(message.noticed.count ?? 1) > 1 ? `, ${message.noticed.count} times` : ""}` });
  if (message.read) entries.push({ event: "read", at: message.read.at, detail: `by ${message.read.by}` });
  if (message.reminders.lastAt) entries.push({ event: "reminder", at: message.reminders.lastAt, detail: `${message.reminders.count} so far` });
  if (message.resolved) entries.push({ event: "resolved", at: message.resolved.at, detail: message.resolved.resolution });
  return entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}
