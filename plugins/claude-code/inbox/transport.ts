// Live push into a running Claude Code session through its own cross-session inbox (docs/live-delivery.md).
// The session's peerpost server finds the inbox from Claude's session record, applies the recipient's
// policy itself (policy.ts: it pushes as the session's descendant, which Claude would accept regardless),
// writes the live note as Claude's own sender frames a message, and serves the `from` socket where an
// answer sent with Claude's SendMessage arrives; that answer is recorded as the reply (via claude-inbox).
import { readFileSync, readlinkSync } from "node:fs";
import type { Peerpost } from "../../../core/peerpost.js";
import type { Identity, IdentityContext, PushTransport } from "../../../core/server/adapter.js";
import type { LiveRefusal } from "../../../core/live/rules.js";
import { logError } from "../../../core/common/error-log.js";
import { claudeConfigDir, findInboxSession, type InboxLookup } from "./session-record.js";
import { inboundPolicy } from "./policy.js";
import { inboxFrame, writeFrame } from "./frame.js";
import { MAX_SOCKET_PATH, ReplySockets, replyDir } from "./replies.js";
import { recordInboxAnswer } from "./answers.js";

export const INBOX_TRANSPORT = "claude-inbox";
/** How long a resolved request's reply socket still takes answers (as follow-ups), docs/live-delivery.md. */
export const ANSWER_GRACE_MS = 10 * 60_000;

function hostArgv(pid: number | undefined): string[] {
  if (pid === undefined) return [];
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return [];
  }
}

function hostCwd(pid: number | undefined): string {
  try {
    return pid === undefined ? process.cwd() : readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return process.cwd();
  }
}

export function createInboxPush(peerpost: Peerpost, context: IdentityContext): PushTransport {
  const configDir = claudeConfigDir(context.env);
  const hostPid = context.hostProcess?.pid;
  let identity: Identity | undefined;
  let answers: Promise<void> = Promise.resolve();
  /** Whom each reply socket answers for: the session the request was pushed to (it stays so after /clear moves the server on). */
  const owners = new Map<string, Identity>();
  const replies = new ReplySockets(replyDir(peerpost.stateDir.path), (messageId, frame) => {
    const self = owners.get(messageId) ?? identity;
    if (!self) return;
    // One answer at a time, in arrival order: two answers to one request resolve it once, the second becomes a follow-up.
    answers = answers.then(() => recordInboxAnswer(peerpost, self, messageId, frame)).catch((error: unknown) => logError(peerpost.stateDir.path, "claude-inbox answer", error));
  });

  const lookup = (): InboxLookup => {
    if (!identity) return { ok: false, reason: "the session is not known yet" };
    if (Buffer.byteLength(replies.path("X".repeat(26))) > MAX_SOCKET_PATH) return { ok: false, reason: `the state dir's path is too long for a Unix socket (${replies.dir})` };
    return findInboxSession(configDir, identity.sessionId, hostPid);
  };

  /** Binds the sockets of open requests this session got through its inbox (a restarted server), and closes those answered. */
  const keepSockets = (): void => {
    if (!identity) return;
    const messages = peerpost.mailbox.view(identity.address).state.messages;
    const now = peerpost.config.now();
    // A resolved request's socket stays a while: a second answer (SendMessage after peerpost's reply, as
    // Claude's mid-turn suffix invites) becomes a follow-up instead of failing on a socket that is gone.
    const done = (messageId: string) => {
      const resolved = messages[messageId]?.resolved;
      return !messages[messageId] || (resolved !== undefined && now - Date.parse(resolved.at) > ANSWER_GRACE_MS);
    };
    for (const messageId of replies.bound())
      if (done(messageId)) {
        replies.close(messageId);
        owners.delete(messageId);
      }
    // Every pass: a socket whose path another server of the session took and then left is bound again.
    for (const message of Object.values(messages))
      if (message.to === identity.address && message.delivered?.via === INBOX_TRANSPORT && !message.resolved) {
        owners.set(message.id, identity);
        void replies.bind(message.id).catch(() => undefined);
      }
  };

  return {
    name: INBOX_TRANSPORT,
    live: true,
    availability() {
      const found = lookup();
      if (!found.ok) return { available: false, reason: `Claude Code's own inbox is not usable: ${found.reason}; new mail waits for read and the prompt hook` };
      keepSockets();
      return { available: true, reason: `Claude Code's own inbox (session pid ${found.session.pid}, peer protocol 1)` };
    },
    admit(): LiveRefusal | undefined {
      // The policy of the session the note goes to: its own `claude` process's flags and project, also for a
      // server outside its process tree (which finds it through Claude's session record).
      const found = lookup();
      const sessionPid = found.ok ? found.session.pid : hostPid;
      const decision = inboundPolicy({ configDir, cwd: hostCwd(sessionPid), argv: hostArgv(sessionPid) });
      if (decision.policy === "accept") return undefined;
      return { code: decision.policy === "hold" ? "push_held" : "push_refused", reason: `${decision.reason}; the message stays unread for the session's hooks and read` };
    },
    async deliver(message, content) {
      const found = lookup();
      if (!found.ok) throw new Error(found.reason);
      if (identity) owners.set(message.id, identity);
      const replyPath = await replies.bind(message.id);
      await writeFrame(found.session.socketPath, inboxFrame(content, replyPath), found.session.token);
    },
    bind(bound) {
      identity = bound;
    },
    close() {
      replies.closeAll();
      owners.clear();
    },
  };
}
