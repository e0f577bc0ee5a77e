// The shape of what the web view's server sends the page (GET /api/state). Every string that came from
// a peer or a host (bodies, reasons, titles, working dirs, receipt fields) is already made visible by
// the server (core/security/visible.ts); the page puts it into text nodes only.
import type { MessageStatus } from "../mail/fold.js";

export interface UiFilters {
  session?: string;
  role?: string;
  conversation?: string;
  q?: string;
  /** How many conversations to show, newest activity first. */
  limit: number;
}

export interface UiRequestRef {
  id: string;
  from: string;
  sentAt: string;
  status: MessageStatus;
}

export interface UiSession {
  address: string;
  host: string;
  name?: string;
  cwd?: string;
  alive: boolean;
  /** Not running: its Claude Code process left it for this session (/clear, /resume). */
  leftFor?: string;
  push: string | null;
  /** The latest wake or launch receipt for this session, if any. */
  wake: { kind: string; at: string; outcome: string } | null;
  roles: string[];
  lastSeen: string;
  /** Open requests (reply/action, not resolved, not expired) addressed to this session. */
  waiting: UiRequestRef[];
}

export interface UiMessage {
  id: string;
  from: string;
  to: string;
  via?: string;
  sentAt: string;
  anticipation: string;
  status: MessageStatus;
  hop: number;
  inReplyTo?: string;
  replyBy?: string;
  delivered?: { via: string; at: string };
  read?: { at: string };
  resolved?: { resolution: string; by: string; at: string; reason?: string };
  reminders: number;
  lastReminderAt?: string;
  body: string;
  bodyBytes: number;
  /** True when the search matched this message's body. */
  match?: boolean;
}

export interface UiConversation {
  id: string;
  participants: string[];
  lastAt: string;
  messages: UiMessage[];
  /** Requests in it that are unresolved (reminders used up) or expired. */
  stuck: number;
  /** Its first messages lie before the newest messages folded: its own page (?conversation=ID) shows it whole. */
  earlier?: boolean;
}

/** A receipt of any kind, its fields as visible text pairs, so kinds added later show without page changes. */
export interface UiReceipt {
  id: string;
  kind: string;
  at: string;
  /** The receipt as one sentence ("send by claude:a to codex:b, queued: message 01…; identity explicit (--from)"). */
  sentence: string;
  fields: Array<[string, string]>;
}

export interface UiLogHealth {
  name: string;
  bytes: number;
  corrupt: number;
  tornTail: boolean;
  lock: string;
  recentCorrupt: Array<{ offset: number; reason: string }>;
}

export interface UiState {
  version: string;
  /** Which build of the state this is (unique in one server's run): what a delta names as its base. */
  serial: number;
  now: string;
  stateDir: string;
  /** The address writes from the page are sent as; null means the page is read-only. */
  author: string | null;
  filters: UiFilters;
  choices: { sessions: string[]; roles: string[]; receiptKinds: string[] };
  /** The set-up command for each host found on PATH where peerpost is not set up: what an empty page suggests. */
  setUp: Array<{ host: string; command: string }>;
  /** The hosts on PATH where peerpost is set up: an empty page says to start a session there. */
  ready: string[];
  /** The hosts on PATH where peerpost's set-up needs a fix (`peerpost doctor` names it). */
  attention: string[];
  sessions: UiSession[];
  conversations: UiConversation[];
  /** Counted over the messages drawn from; `partial`: older mail lies before them (the newest are folded, "show more" folds older). */
  totals: { messages: number; conversations: number; matchedConversations: number; stuck: number; partial: boolean };
  /** Open requests addressed to the author, which the page can reply to or decline. */
  mine: UiMessage[];
  wakes: UiReceipt[];
  receipts: UiReceipt[];
  /** The standing claims of every repository, oldest first. */
  claims: UiClaim[];
  /** The board: open tasks, then the latest finished ones; `finished` counts all that ended. */
  tasks: { open: UiTask[]; finished: UiTask[]; finishedTotal: number };
  /** `files`: every file at the top of the state dir with its size, so logs added later show too. */
  health: { logs: UiLogHealth[]; files: Array<{ name: string; bytes: number }>; recentErrors: string[] };
}

/** A standing claim on paths of one repository, with what the author may do about it. */
export interface UiClaim {
  holder: string;
  repo: string;
  path: string;
  shared: boolean;
  since: string;
  until: string;
  reason?: string;
  /** "release": the author's own; "force": another holder's, which the author (a person) may end; null: neither. */
  action: "release" | "force" | null;
  /** The repository and pattern as stored, which a release names (`repo` and `path` are made visible, for reading). */
  target: { repo: string; path: string };
}

/** A task on the board, with the tasks it still waits on. */
export interface UiTask {
  id: string;
  title: string;
  by: string;
  assignee?: string;
  after: string[];
  /** The tasks in `after` that are not done yet: while any is, the task cannot be taken. */
  waitingOn: string[];
  status: string;
  takenBy?: string;
  note?: string;
  messageId: string;
  at: string;
  updatedAt: string;
}
