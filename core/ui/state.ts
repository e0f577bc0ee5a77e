// Builds what the page shows from the UI source: sessions with the requests waiting on them, the
// conversations the filters keep (newest activity first), the author's open requests, wakes and
// receipts of every kind, and store health. Untrusted text is made visible here, once.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { isOpen, type MessageState, type MessageStatus } from "../mail/fold.js";
import { awaitsAnswer } from "../mail/reminders.js";
import { inspectLog, recentErrors } from "../upkeep/health.js";
import type { SessionEntry } from "../sessions/registry.js";
import { roleState, rolesOf } from "../roles/roles.js";
import type { ReceiptRecord } from "../records/schemas.js";
import type { MailSelection, UiSource } from "./source.js";
import { DEFAULT_LIMIT } from "./filters.js";
import type { UiConversation, UiFilters, UiMessage, UiReceipt, UiRequestRef, UiSession, UiState } from "./types.js";
import { visible } from "../security/visible.js";
import { claimsView, tasksView } from "./work.js";

/** Receipt kinds that record a session being woken or launched; any kind matching shows as a wake. */
const WAKE_KIND = /wake|launch/i;
const RECEIPTS_SHOWN = 100;

function receiptView(receipt: ReceiptRecord): UiReceipt {
  const fields: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(receipt)) {
    if (key === "v" || key === "type" || key === "id" || key === "kind" || key === "at" || value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    fields.push([key, visible(typeof value === "string" ? value : JSON.stringify(value), true)]);
  }
  return { id: receipt.id, kind: receipt.kind, at: receipt.at, sentence: visible(receiptSentence(receipt), true), fields };
}

/** A receipt read as a sentence: what, by whom to whom, how it went, and where the sender's identity came from. */
function receiptSentence(receipt: ReceiptRecord): string {
  const origin = `identity ${receipt.origin.source === "not_supplied" ? "not supplied" : receipt.origin.source}${receipt.origin.detail ? ` (${receipt.origin.detail})` : ""}`;
  const warnings = receipt.warnings.length > 0 ? `; warned: ${receipt.warnings.join(" ")}` : "";
  return `${receipt.kind} by ${receipt.from} to ${receipt.to}${receipt.via ? ` via ${receipt.via}` : ""} (${receipt.host}), ${receipt.delivery}: message ${receipt.messageId}; ${origin}${warnings}`;
}

function receiptOutcome(receipt: ReceiptRecord): string {
  const record = receipt as unknown as Record<string, unknown>;
  return visible(String(record.outcome ?? record.delivery ?? ""), true);
}

function stateFiles(dir: string): Array<{ name: string; bytes: number }> {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => ({ name: visible(entry.name, true), bytes: statSync(join(dir, entry.name)).size }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  } catch {
    return [];
  }
}

function isStuck(status: string): boolean {
  return status === "unresolved" || status === "expired";
}

export class UiStateBuilder {
  private derived: { key: string; messages: MessageState[]; threads: Map<string, MessageState[]> } | undefined;

  constructor(
    private readonly source: UiSource,
    private readonly author: string | null,
    private readonly setUp: Array<{ host: string; command: string }> = [],
    private readonly ready: string[] = [],
    private readonly attention: string[] = [],
  ) {}

  private message(message: MessageState, status: MessageStatus, matches: Set<string> | undefined): UiMessage {
    const view: UiMessage = {
      id: message.id,
      from: message.from,
      to: message.to,
      sentAt: message.sentAt,
      anticipation: message.anticipation,
      status,
      hop: message.hop,
      reminders: message.reminders.count,
      body: visible(this.source.body(message), true),
      bodyBytes: message.bodyBytes,
    };
    if (message.via !== undefined) view.via = message.via;
    if (message.inReplyTo !== undefined) view.inReplyTo = message.inReplyTo;
    if (message.replyBy !== undefined) view.replyBy = message.replyBy;
    if (message.delivered) view.delivered = message.delivered;
    if (message.read) view.read = { at: message.read.at };
    if (message.resolved) {
      view.resolved = { resolution: message.resolved.resolution, by: message.resolved.by, at: message.resolved.at };
      if (message.resolved.reason !== undefined) view.resolved.reason = visible(message.resolved.reason, true);
    }
    if (message.reminders.lastAt !== undefined) view.lastReminderAt = message.reminders.lastAt;
    if (matches?.has(message.id)) view.match = true;
    return view;
  }

  private sessions(entries: SessionEntry[], messages: MessageState[], now: number, wakes: ReceiptRecord[], statusOf: (message: MessageState) => MessageStatus): UiSession[] {
    const waiting = new Map<string, UiRequestRef[]>();
    for (const message of messages) {
      if (!awaitsAnswer(message) || !isOpen(message, now)) continue;
      const list = waiting.get(message.to) ?? [];
      list.push({ id: message.id, from: message.from, sentAt: message.sentAt, status: statusOf(message) });
      waiting.set(message.to, list);
    }
    const latestWake = new Map<string, ReceiptRecord>();
    for (const receipt of wakes) latestWake.set(receipt.to, receipt);
    return entries.map((entry) => {
      const wake = latestWake.get(entry.address);
      const session: UiSession = {
        address: entry.address,
        host: entry.host,
        alive: entry.alive,
        push: entry.push ?? null,
        wake: wake ? { kind: wake.kind, at: wake.at, outcome: receiptOutcome(wake) } : null,
        roles: entry.roles,
        lastSeen: entry.lastSeen,
        waiting: waiting.get(entry.address) ?? [],
      };
      const name = entry.name ?? entry.title;
      if (name !== undefined) session.name = visible(name, true);
      if (entry.cwd !== undefined) session.cwd = visible(entry.cwd, true);
      if (entry.leftFor !== undefined) session.leftFor = entry.leftFor;
      return session;
    });
  }

  /** Whether a message passes the session and role filters. */
  private keeps(filters: UiFilters, holders: Set<string> | undefined): (message: MessageState) => boolean {
    return (message) => {
      if (filters.session !== undefined && message.from !== filters.session && message.to !== filters.session) return false;
      if (holders !== undefined && message.via !== `role:${filters.role}` && !holders.has(message.from) && !holders.has(message.to)) return false;
      return true;
    };
  }

  /** Messages in log order and grouped by conversation, rebuilt only when the selection moved on. */
  private grouped(selection: MailSelection): { messages: MessageState[]; threads: Map<string, MessageState[]> } {
    if (this.derived?.key !== selection.key) {
      const { messages } = selection;
      const threads = new Map<string, MessageState[]>();
      for (const message of messages) {
        const thread = threads.get(message.conversationId);
        if (thread) thread.push(message);
        else threads.set(message.conversationId, [message]);
      }
      this.derived = { key: selection.key, messages, threads };
    }
    return this.derived;
  }

  /** The conversations the filters keep, newest activity first: a conversation is kept when any of its messages passes. */
  private keptThreads(threads: Map<string, MessageState[]>, filters: UiFilters, keeps: (message: MessageState) => boolean, matches: Set<string> | undefined): MessageState[][] {
    const kept: MessageState[][] = [];
    for (const [id, thread] of threads) {
      if (filters.conversation !== undefined && id !== filters.conversation) continue;
      if (!thread.some(keeps)) continue;
      if (matches && !thread.some((message) => matches.has(message.id))) continue;
      kept.push(thread);
    }
    return kept.sort((a, b) => b[b.length - 1]!.offset - a[a.length - 1]!.offset);
  }

  build(filters: UiFilters, version: string, serial: number): UiState {
    const { peerpost } = this.source;
    const now = peerpost.config.now();
    const roles = roleState(peerpost);
    const entries = peerpost.sessions.list({ includeDead: true }).map((entry) => ({ ...entry, roles: rolesOf(roles, entry) }));
    const wakes = this.source.receipts.filter((receipt) => WAKE_KIND.test(receipt.kind));
    const holders = filters.role === undefined ? undefined : new Set(entries.filter((entry) => entry.roles.includes(filters.role!)).map((entry) => entry.address));
    const keeps = this.keeps(filters, holders);
    let selection = this.source.select(filters);
    let { messages, threads } = this.grouped(selection);
    let matches = filters.q ? this.source.search(filters.q) : undefined;
    let kept = this.keptThreads(threads, filters, keeps, matches);
    // "show more" past what the newest messages hold folds older ones too.
    if (filters.limit > DEFAULT_LIMIT) this.source.recent.keepWide();
    while (filters.limit > DEFAULT_LIMIT && kept.length < filters.limit && selection.partial && this.source.recent.widen()) {
      selection = this.source.select(filters);
      ({ messages, threads } = this.grouped(selection));
      matches = filters.q ? this.source.search(filters.q) : undefined;
      kept = this.keptThreads(threads, filters, keeps, matches);
    }
    const statuses = new Map(messages.map((message) => [message.id, peerpost.mailbox.status(message)]));
    const statusOf = (message: MessageState) => statuses.get(message.id) ?? peerpost.mailbox.status(message);
    let stuck = 0;
    for (const message of messages) if (isStuck(statusOf(message))) stuck++;
    const conversations: UiConversation[] = kept.slice(0, filters.limit).map((thread) => {
      const conversation: UiConversation = {
        id: thread[0]!.conversationId,
        participants: [...new Set(thread.flatMap((message) => [message.from, message.to]))],
        lastAt: thread[thread.length - 1]!.sentAt,
        messages: thread.map((message) => this.message(message, statusOf(message), matches)),
        stuck: thread.filter((message) => isStuck(statusOf(message))).length,
      };
      // A conversation's id is its first message's.
      if (thread[0]!.id !== thread[0]!.conversationId) conversation.earlier = true;
      return conversation;
    });

    const mine = this.author === null ? [] : this.source.openRequestsTo(this.author).map((message) => this.message(message, statusOf(message), undefined));
    const shownReceipts = this.source.receipts.filter((receipt) => filters.session === undefined || receipt.from === filters.session || receipt.to === filters.session);
    const staleMs = peerpost.config.lockStaleMs;
    const logs = [
      { name: "mailbox", report: inspectLog(peerpost.mailbox.log, staleMs, this.source.mailboxCorrupt()) },
      { name: "receipts", report: inspectLog(peerpost.receipts.log, staleMs, this.source.receiptsCorrupt) },
      { name: "sessions", report: inspectLog(peerpost.sessions.log, staleMs, peerpost.sessions.corruptLines()) },
    ];
    return {
      version,
      serial,
      now: new Date(now).toISOString(),
      stateDir: visible(peerpost.stateDir.path, true),
      author: this.author,
      filters,
      choices: {
        // Registered sessions and the shown participants: bounded, however many addresses the mailbox holds.
        sessions: [...new Set([...entries.map((entry) => entry.address), ...conversations.flatMap((conversation) => conversation.participants), ...(filters.session ? [filters.session] : [])])].sort(),
        roles: [...new Set([...entries.flatMap((entry) => entry.roles), ...Object.keys(roles.roles)])].sort(),
        receiptKinds: [...new Set(this.source.receipts.map((receipt) => receipt.kind))].sort(),
      },
      setUp: this.setUp,
      ready: this.ready,
      attention: this.attention,
      sessions: this.sessions(entries, messages, now, wakes, statusOf).filter((session) => (filters.session === undefined || session.address === filters.session) && (filters.role === undefined || session.roles.includes(filters.role))),
      conversations,
      totals: { messages: messages.length, conversations: threads.size, matchedConversations: kept.length, stuck, partial: selection.partial },
      mine,
      wakes: wakes.slice(-RECEIPTS_SHOWN).reverse().map(receiptView),
      receipts: shownReceipts.slice(-RECEIPTS_SHOWN).reverse().map(receiptView),
      claims: claimsView(peerpost, this.author),
      tasks: tasksView(peerpost),
      health: {
        logs: logs.map(({ name, report }) => ({ name, bytes: report.bytes, corrupt: report.corrupt, tornTail: report.tornTail, lock: report.lock, recentCorrupt: report.recentCorrupt.map((line) => ({ offset: line.offset, reason: visible(line.reason, true) })) })),
        files: stateFiles(peerpost.stateDir.path),
        recentErrors: recentErrors(peerpost.stateDir.path, peerpost.config.now()).map((line) => visible(line, true)),
      },
    };
  }
}
