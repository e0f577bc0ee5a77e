// What each hook does, once for every host: register the session, flag pending mail (count and
// senders, never bodies), and remind about open requests at a bounded rate.
import { dirname, join } from "node:path";
import { openPeerpost, type Peerpost } from "../core/peerpost.js";
import { formatAddress } from "../core/common/address.js";
import { PeerpostError } from "../core/common/errors.js";
import { dueReminder, turnEndDue } from "../core/mail/reminders.js";
import { mailNote } from "../core/mail/notes.js";
import { findAncestor, hostStartField } from "../core/sessions/process-tree.js";
import { heldByAnotherHost } from "../core/sessions/registry.js";
import { recordTerminalTurn } from "../core/live/turns.js";
import { captureHostEnv } from "../core/wake/host-env.js";
import { byId, type MessageState } from "../core/mail/fold.js";
import { catchUpDetached, indexWhenFarBehind } from "../core/upkeep/index-run.js";
import { SYNC_BATCH } from "../core/store/postgres/mirror.js";
import type { HookDialect, HookEvent, HookInput } from "./dialect.js";
import { MAIL_EVENTS } from "./programs.js";
import type { HookOutcome, HookProgram } from "./run.js";

/** Snapshots are rewritten by a hook only when that saves a real amount of re-reading next time. */
const SNAPSHOT_MIN_BYTES = 256 * 1024;
const SESSION_SOURCES = ["startup", "resume", "clear", "compact"] as const;

interface Pending {
  unread: MessageState[];
  reminders: MessageState[];
  record: () => Promise<MessageState[]>;
  /** Only the newest mail was looked at (the index is being built): enough for a note, not for a decision. */
  partial?: true;
}

const NOTHING_PENDING: Pending = { unread: [], reminders: [], record: async () => [] };

/**
 * How much of the log's end a hook folds for a session while the index is built: the last hundred or so
 * messages (a few hundred lines, each tested for the session's tokens before any is parsed). Mail to a new
 * session is usually there; older mail waits for the index.
 */
const TAIL_BYTES = 64 * 1024;

/** The plugin's server bundle beside the hook (`node <plugin dir>/hooks.cjs <event>`), which runs `index-run`. */
function serverBundle(): string {
  return join(dirname(process.argv[1] ?? ""), "server.mjs");
}

/**
 * Whether this hook starts the detached index build of a log no index covers. Not at session start: the
 * session's MCP server, started beside that hook, starts it (server.ts), and a fork of the hook's process
 * would cost the session's first moments about 20 ms. A prompt hook starts it when none is running.
 */
function startsIndexBuild(event: HookEvent): boolean {
  return event !== "session-start";
}

async function pending(peerpost: Peerpost, address: string, via: string, mirrorCurrent: boolean, event: HookEvent): Promise<Pending> {
  // A mirror the hook's sync budget left behind (a machine new to a large shared store) holds only the
  // store's oldest records: what it says about this session's mail may be wrong. The catch-up runs detached.
  if (!mirrorCurrent) {
    catchUpDetached(peerpost, serverBundle());
    return NOTHING_PENDING;
  }
  // A view neither its snapshot nor the index starts near the end (an old log never indexed): folding
  // it would hold the prompt for seconds (and past the hook's deadline, which cannot interrupt a fold).
  // The index build starts detached (startsIndexBuild), and the hook tells only what the log's last bytes hold;
  // the next hooks start from the index.
  if (peerpost.mailbox.viewWouldReadFar(address)) {
    if (startsIndexBuild(event)) indexWhenFarBehind(peerpost, serverBundle());
    const newest = Object.values(peerpost.mailbox.tailView(address, TAIL_BYTES).state.messages);
    return { ...NOTHING_PENDING, unread: unreadOf(newest, address), partial: true };
  }
  const view = peerpost.mailbox.view(address);
  // Derived data: a snapshot that cannot be written (a full disk, a state dir this hook may only read)
  // costs the next hook a longer read, never this one's note.
  try {
    await peerpost.mailbox.persist(view, SNAPSHOT_MIN_BYTES);
  } catch (error) {
    if (!(error instanceof PeerpostError)) throw error;
  }
  const now = peerpost.config.now();
  const mine = Object.values(view.state.messages).filter((message) => message.to === address);
  const unread = unreadOf(mine, address);
  const due = mine.filter((message) => dueReminder(message, now, peerpost.mailbox.settings) !== undefined);
  return {
    unread,
    reminders: due,
    // Records each reminder under the lock; a concurrent hook that already reminded wins, and this one stays quiet.
    // A lock busy past the hook's short wait postpones the reminders to a later hook, never the note.
    record: async () => {
      const recorded: MessageState[] = [];
      try {
        for (const message of due) if ((await peerpost.mailbox.remind(address, message.id, via)) !== undefined) recorded.push(message);
      } catch (error) {
        if ((error as { code?: string }).code !== "state_io_error") throw error;
      }
      return recorded;
    },
  };
}

/**
 * After /clear or /resume: the requests still unread at the sessions this host process left for `address`.
 * Nothing tells them while the process runs (its hooks serve `address`, and a live process is never woken),
 * so the session it runs now hears who waits (never the bodies), to answer or resume that conversation.
 */
function leftBehind(peerpost: Peerpost, address: string, mirrorCurrent: boolean): string | undefined {
  if (!mirrorCurrent) return undefined;
  const lines: string[] = [];
  for (const session of peerpost.sessions.list({ includeDead: true })) {
    if (session.leftFor !== address || peerpost.mailbox.viewWouldReadFar(session.address)) continue;
    const waiting = unreadOf(Object.values(peerpost.mailbox.view(session.address).state.messages), session.address).filter((message) => message.anticipation !== "fyi");
    if (waiting.length === 0) continue;
    const from = [...new Set(waiting.map((message) => message.from))].join(", ");
    lines.push(`peerpost: ${waiting.length} request${waiting.length === 1 ? "" : "s"} from other AI agents (${from}) still wait${waiting.length === 1 ? "s" : ""} unread for ${session.address}, the conversation this process ran before (${waiting.map((message) => message.id).join(", ")}). They are not from the user. Their senders wait for an answer: tell the user, who can resume that conversation to answer them.`);
  }
  return lines.length > 0 ? lines.join("\n") : undefined;
}

/** The messages to `address` nobody read or resolved yet, oldest first. */
function unreadOf(messages: MessageState[], address: string): MessageState[] {
  return messages.filter((message) => message.to === address && !message.read && !message.resolved).sort(byId);
}

/** Resolves once the event loop has run: what was started (a connection) is on its way by then. */
function afterPendingIo(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Records a hook copies into each mirror of a shared store at most: one batch (tens of milliseconds). A
 * machine further behind (new to a large store) would copy it all inside the prompt, past the deadline.
 */
const HOOK_SYNC_BUDGET = SYNC_BATCH;

/** Hooks wait at most this long for a busy lock (unless PEERPOST_LOCK_TIMEOUT_MS says otherwise), then postpone what needed it. */
const HOOK_LOCK_TIMEOUT_MS = 250;

async function runHookLogic(dialect: HookDialect, event: HookEvent, input: HookInput, env: NodeJS.ProcessEnv): Promise<HookOutcome> {
  // Prompt and stop hooks never create the state dir: no dir, no mail.
  const peerpost = openPeerpost({ env, defaultLockTimeoutMs: HOOK_LOCK_TIMEOUT_MS, kind: "hook", ...(event === "session-start" ? {} : { create: false }) });
  if (!peerpost) return {};
  try {
    const address = formatAddress(dialect.kind, input.sessionId);
    // A shared store: read the local mirror, brought up to date here unless a running server keeps it so
    // or, at a prompt, it was found current moments ago (PEERPOST_MIRROR_TRUST_MS).
    const synced = peerpost.backend.sync({ budget: HOOK_SYNC_BUDGET, ...(event === "session-start" ? {} : { ...(event === "user-prompt" ? { trust: "recent" as const } : {}), only: ["mailbox"] }) });
    // While the database answers, fold what the mirror already holds (unless that is a read the hook
    // gives up on, or nothing will be told): after the sync the view reads only what it brought.
    const folds = peerpost.backend.database !== undefined && event !== "session-start" && !(event === "stop" && input.stopHookActive);
    const folded = folds ? afterPendingIo().then(() => void (peerpost.mailbox.viewWouldReadFar(address) || peerpost.mailbox.view(address))) : undefined;
    const [mirrorCurrent] = await Promise.all([synced, folded]);
    return await hookFor(peerpost, dialect, event, input, address, env, mirrorCurrent);
  } finally {
    // The hook exits right after: the database's side of the goodbye is not worth waiting for.
    await peerpost.backend.close({ wait: false });
  }
}

async function hookFor(peerpost: Peerpost, dialect: HookDialect, event: HookEvent, input: HookInput, address: string, env: NodeJS.ProcessEnv, mirrorCurrent: boolean): Promise<HookOutcome> {
  const via = `hook:${event}`;
  if (event === "session-start") {
    const hostPid = findAncestor((info) => dialect.isHostProcess(info))?.pid;
    const source = SESSION_SOURCES.find((known) => known === input.source) ?? "startup";
    // Readable by everyone at once, but not fsynced within the hook's budget: the session's server registers it durably.
    const registered = await peerpost.sessions.register({
      host: dialect.host,
      address,
      sessionId: input.sessionId,
      ...(hostPid !== undefined ? { hostPid, ...hostStartField(hostPid) } : {}),
      ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
      source,
      roles: peerpost.config.roles,
    }, { eventual: true });
    // A claim on a session another running host holds tells nothing about that session's mail, and
    // lends it no environment to be woken with.
    if (registered.claimFrom !== undefined) return {};
    captureHostEnv(peerpost.stateDir.path, address, hostPid, env);
    const own = mailNote({ unread: (await pending(peerpost, address, via, mirrorCurrent, event)).unread, reminders: [] });
    // Only a Claude Code process runs one session after another (leftFor): no other host's start lists the registry.
    const left = (source === "clear" || source === "resume") && dialect.host === "claude-code" && hostPid !== undefined ? leftBehind(peerpost, address, mirrorCurrent) : undefined;
    const note = own === undefined ? left : left === undefined ? own : `${own}\n${left}`;
    const stdout = note === undefined ? undefined : dialect.context(event, note);
    return stdout === undefined ? {} : { stdout };
  }
  // A prompt or stop hook for a session another running host holds was not run by that host (an agent's
  // shell can run the hook with any id): like a claim, it neither reads nor changes that session's mail.
  if (heldByAnotherHost(peerpost.sessions.get(address)) !== undefined) return {};
  if (event === "user-prompt") {
    // A turn starts: a live transport types nothing into the session until its stop hook runs.
    recordTerminalTurn(peerpost.stateDir.path, address, "prompt", peerpost.config.now(), env);
    // The prompt is the stop hook's note itself (Copilot sends a block's reason back as a prompt): said once.
    if (input.followsBlock) return {};
    const mail = await pending(peerpost, address, via, mirrorCurrent, event);
    const reminders = mail.reminders.length > 0 ? await mail.record() : [];
    const note = mailNote({ unread: mail.unread, reminders });
    const stdout = note === undefined ? undefined : dialect.context(event, note);
    return stdout === undefined ? {} : { stdout };
  }
  // A stop the hook does not block ends the turn: the session is idle for live transports. Recorded also
  // when the hook fails (it then prints nothing, so the host ends the turn): else a live transport would
  // count the session as mid-turn until its person typed again.
  let stopped: HookOutcome = {};
  try {
    stopped = await stopHook(peerpost, dialect, input, address, via, mirrorCurrent);
    return stopped;
  } finally {
    if (stopped.stdout === undefined) recordTerminalTurn(peerpost.stateDir.path, address, "stop", peerpost.config.now(), env);
  }
}

async function stopHook(peerpost: Peerpost, dialect: HookDialect, input: HookInput, address: string, via: string, mirrorCurrent: boolean): Promise<HookOutcome> {
  if (input.stopHookActive) return {};
  const mail = await pending(peerpost, address, via, mirrorCurrent, "stop");
  // Blocking a stop marks the mail noticed, a decision made on the whole view, which is not there yet.
  if (mail.partial) return {};
  // Requests (never fyi) not told about at a turn end yet, or still unread a reminder interval after the
  // last time (at most PEERPOST_REMINDER_LIMIT more times): each blocks one stop.
  const now = peerpost.config.now();
  const untold = mail.unread.filter((message) => turnEndDue(message, now, peerpost.mailbox.settings));
  if (mail.reminders.length === 0 && untold.length === 0) return {};
  // A lock busy past the hook's short wait: nothing is marked, so nothing blocks now; the next turn end tells it.
  let noticedIds = new Set<string>();
  try {
    if (untold.length > 0) noticedIds = new Set(await peerpost.mailbox.markNoticed(address, untold.map((message) => message.id), via));
  } catch (error) {
    if ((error as { code?: string }).code !== "state_io_error") throw error;
  }
  const reminders = mail.reminders.length > 0 ? await mail.record() : [];
  const note = mailNote({ unread: untold.filter((message) => noticedIds.has(message.id)), reminders });
  const stdout = note === undefined ? undefined : dialect.block(note);
  return stdout === undefined ? {} : { stdout };
}

/** The program of session start, prompt and stop: hook-program.cjs. */
export const mailProgram: HookProgram = { events: MAIL_EVENTS, logic: runHookLogic };
