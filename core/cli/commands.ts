// The people-facing commands: send, inbox, reply, status, agents, tail. Each opens the store, acts,
// and prints text or JSON.
import { openPeerpost, type Peerpost } from "../peerpost.js";
import { parseAddress } from "../address.js";
import { renderEnvelope, visibleText } from "../envelope.js";
import { PeerpostError } from "../errors.js";
import { ANTICIPATIONS, type Anticipation, type MailboxEvent } from "../schemas.js";
import { describeMessage } from "../server/projection.js";
import { recipientWarning, resolveRecipient } from "../recipients.js";
import { userAddress } from "../user.js";
import { roleState, rolesOf } from "../roles.js";
import { withHostFiles } from "../discovery.js";
import { printJson, table, UsageError } from "./output.js";
import { requestWake } from "../wake/request.js";
import { describeRun } from "../wake/describe.js";
import { isStale, staleNote } from "../wake/stale.js";
import { readSwitches, wakeSetting } from "../wake/switches.js";
import type { WakeDeps } from "../wake/waker.js";
import { discoverAll } from "../../plugins/discovery.js";

export interface Flags {
  [name: string]: string | boolean | undefined;
}

function requireString(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== "string" || value.length === 0) throw new UsageError(`--${name} is required`);
  return value;
}

/** The store, with a shared (PostgreSQL) store's local mirrors brought up to date first. */
async function open(): Promise<Peerpost> {
  const peerpost = openPeerpost({ discover: discoverAll });
  await peerpost.backend.sync();
  return peerpost;
}

export async function send(flags: Flags, text: string | undefined, json: boolean, wake?: WakeDeps): Promise<void> {
  const to = requireString(flags, "to");
  if (!text) throw new UsageError("send needs the message text");
  const anticipation = (flags.anticipation ?? "fyi") as Anticipation;
  if (!ANTICIPATIONS.includes(anticipation)) throw new UsageError(`--anticipation must be one of ${ANTICIPATIONS.join(", ")}`);
  const peerpost = await open();
  // A person sends as themselves (user:<name>) unless they say otherwise.
  const from = typeof flags.from === "string" ? parseAddress(flags.from, "--from").text : userAddress(peerpost.config);
  const recipient = await resolveRecipient(peerpost, parseAddress(to, "--to").text);
  const warning = recipientWarning(recipient);
  const { message } = await peerpost.mailbox.send({ from, fromVerified: false, to: recipient.address, via: recipient.via, body: text, anticipation });
  await peerpost.receipts.record({ kind: "send", host: "cli", from, to: message.to, messageId: message.id, delivery: "queued", warnings: warning ? [warning.message] : [], origin: { source: "explicit", detail: typeof flags.from === "string" ? "--from" : "user", pid: process.pid, cwd: process.cwd() } });
  // The wake runner is detached: it outlives this command.
  const decision = anticipation !== "fyi" && !recipient.alive && wake ? await requestWake(peerpost, message.to, wake) : undefined;
  const warnings = [...(warning ? [warning] : []), ...(decision && "warning" in decision ? [decision.warning] : [])];
  if (json) printJson({ ok: true, messageId: message.id, from, to: message.to, ...(recipient.via ? { via: recipient.via } : {}), conversationId: message.conversationId, recipientAlive: recipient.alive, ...(decision ? { wake: decision.outcome } : {}), ...(warnings.length > 0 ? { warnings } : {}) });
  else {
    process.stdout.write(`sent ${message.id} from ${from} to ${message.to}${warning ? ` (${warning.code}: ${warning.message})` : ""}${decision?.outcome === "started" ? " (waking it)" : ""}\n`);
    for (const extra of decision && "warning" in decision ? [decision.warning] : []) process.stderr.write(`peerpost: warning ${extra.code}: ${extra.message}\n`);
  }
}

export async function inbox(address: string | undefined, flags: Flags, json: boolean): Promise<void> {
  if (!address) throw new UsageError("inbox needs an address, e.g. peerpost inbox claude:abc");
  const peerpost = await open();
  const entries = peerpost.mailbox.inbox(parseAddress(address).text, { unreadOnly: !flags.all });
  if (json) {
    printJson({ ok: true, address, messages: entries.map((entry) => ({ ...describeMessage(entry.message, entry.status), envelope: renderEnvelope(entry.message, entry.body, peerpost.mailbox.procedure(entry.message)) })) });
    return;
  }
  if (entries.length === 0) process.stdout.write(flags.all ? "no messages\n" : "no unread messages\n");
  for (const entry of entries) process.stdout.write(`${renderEnvelope(entry.message, entry.body, peerpost.mailbox.procedure(entry.message))}\n\n`);
}

export async function reply(id: string | undefined, flags: Flags, json: boolean): Promise<void> {
  if (!id) throw new UsageError("reply needs a message id");
  const by = parseAddress(requireString(flags, "as"), "--as").text;
  const chosen = (["reply", "decline", "done"] as const).filter((name) => flags[name] !== undefined);
  if (chosen.length !== 1) throw new UsageError("reply needs exactly one of --reply TEXT, --decline REASON, --done");
  const resolution = chosen[0]!;
  const text = typeof flags[resolution] === "string" ? (flags[resolution] as string) : undefined;
  const peerpost = await open();
  const { message, reply: sent } = await peerpost.mailbox.resolve({ id, by, byVerified: false, resolution, text });
  await peerpost.receipts.record({ kind: "reply", host: "cli", from: by, to: message.from, messageId: sent?.id ?? message.id, delivery: "queued", warnings: [], origin: { source: "explicit", detail: "--as", pid: process.pid, cwd: process.cwd() } });
  if (json) printJson({ ok: true, messageId: message.id, resolution, replyId: sent?.id ?? null, status: peerpost.mailbox.status(message) });
  else process.stdout.write(`${resolution === "reply" ? "replied to" : resolution === "decline" ? "declined" : "marked done"} ${message.id}${sent ? ` (reply ${sent.id})` : ""}\n`);
}

export async function status(id: string | undefined, json: boolean): Promise<void> {
  const peerpost = await open();
  if (!id) {
    const sessions = peerpost.sessions.list({ includeDead: true });
    const wakes = peerpost.wakes.fold();
    const counts = sessions.map((session) => {
      const view = peerpost.mailbox.view(session.address);
      const messages = Object.values(view.state.messages);
      const lastRun = wakes.runsFor({ address: session.address })[0];
      return { address: session.address, alive: session.alive, lastWake: lastRun ? describeRun(lastRun, peerpost.config.now()) : null, unread: messages.filter((message) => message.to === session.address && !message.read).length, open: messages.filter((message) => message.to === session.address && !message.resolved && message.anticipation !== "fyi").length };
    });
    if (json) printJson({ ok: true, stateDir: peerpost.stateDir.path, sessions: counts });
    else process.stdout.write(`state dir ${peerpost.stateDir.path}\n` + table([["ADDRESS", "RUNNING", "UNREAD", "OPEN REQUESTS", "LAST WAKE"], ...counts.map((row) => [row.address, row.alive ? "yes" : "no", String(row.unread), String(row.open), row.lastWake ? `${row.lastWake.state}${row.lastWake.reason ? `: ${row.lastWake.reason}` : ""}` : ""])]));
    return;
  }
  const message = peerpost.mailbox.find(id);
  if (!message) throw new PeerpostError("not_found", `No message ${id} in the mailbox.`, { details: { messageId: id }, hint: "Ids appear in `peerpost inbox` and `peerpost tail`." });
  const now = peerpost.config.now();
  const stale = !message.read && !message.resolved && isStale(message, now, peerpost.config.staleMs);
  const wakes = peerpost.wakes.fold().runsFor({ messageId: message.id }).map((run) => describeRun(run, now));
  const described = { ...describeMessage(message, peerpost.mailbox.status(message)), delivered: message.delivered ?? null, read: message.read ?? null, resolved: message.resolved ?? null, reminders: message.reminders.count, handovers: message.handovers ?? [], stale, wakes };
  if (stale && !json) process.stderr.write(`peerpost: ${staleNote(message, peerpost.config.staleMs)}\n`);
  if (json) printJson({ ok: true, message: described });
  else process.stdout.write(table(Object.entries(described).map(([key, value]) => [key, typeof value === "object" ? JSON.stringify(value) : String(value)])));
}

export async function agents(flags: Flags, json: boolean): Promise<void> {
  const peerpost = await open();
  const state = roleState(peerpost);
  const switches = readSwitches(peerpost.stateDir.path);
  const listed = peerpost.sessions.list({ includeDead: Boolean(flags.all) }).map((session) => ({ ...session, roles: rolesOf(state, session), wake: wakeSetting(switches, session).on }));
  // --all also reads the hosts' own session files: their titles, and sessions peerpost has not seen yet.
  const { sessions, unseen } = flags.all ? withHostFiles(peerpost.discover, peerpost.env, listed, peerpost.sessions.all().map((session) => session.address)) : { sessions: listed, unseen: [] };
  if (json) {
    printJson(flags.all ? { ok: true, sessions, unseen } : { ok: true, sessions });
    return;
  }
  if (sessions.length === 0) process.stdout.write(flags.all ? "no sessions registered yet\n" : "no running sessions (use --all to see ended ones)\n");
  else process.stdout.write(table([["ADDRESS", "NAME", "HOST", "MACHINE", "RUNNING", "WAKE", "ROLES", "LAST SEEN", "CWD", "TITLE"], ...sessions.map((session) => [session.address, session.name ?? "", session.host, session.machine ?? "", session.local ? (session.alive ? "yes" : "no") : "?", session.wake ? "on" : "off", session.roles.join(","), session.lastSeen, visibleText(session.cwd ?? ""), visibleText(session.title ?? "")])]));
  if (unseen.length > 0)
    process.stdout.write(`\nnot seen by peerpost yet (from the hosts' own session files):\n` + table([["ADDRESS", "HOST", "LAST ACTIVITY", "CWD", "TITLE"], ...unseen.map((session) => [session.address, session.host, session.lastActivity, visibleText(session.cwd ?? ""), visibleText(session.title ?? "")])]));
}

/** Follows the mailbox and prints each event as it is appended, until interrupted. */
export async function tail(flags: Flags, json: boolean, signal: AbortSignal): Promise<void> {
  const peerpost = await open();
  // With PostgreSQL, follow the database: its NOTIFYs grow the local mirror that this tail watches.
  const unfollow = peerpost.backend.follow();
  signal.addEventListener("abort", unfollow);
  const log = peerpost.mailbox.log;
  let offset = flags["from-start"] ? 0 : (log.identity()?.size ?? 0);
  const show = ({ record }: { record: MailboxEvent }) => {
    if (json) return printJson(record);
    const at = record.type === "msg" ? record.sentAt : record.at;
    const line =
      record.type === "msg"
        ? `msg ${record.id} ${record.from} → ${record.to} [${record.anticipation}] ${JSON.stringify(record.body.length > 120 ? record.body.slice(0, 117) + "..." : record.body)}`
        : record.type === "resolved"
          ? `resolved ${record.id} ${record.resolution} by ${record.by}`
          : record.type === "role"
            ? `role ${record.role} → ${record.holder ?? "nobody"} by ${record.by}${record.procedure ? ` (procedure ${record.procedure.version.slice(0, 12)})` : ""}`
          : `${record.type} ${record.id}${"by" in record ? ` by ${record.by}` : ""}${"via" in record ? ` via ${record.via}` : ""}`;
    process.stdout.write(`${at}  ${line}\n`);
  };
  const print = () => {
    offset = log.scan(offset, show).next;
  };
  // From the start means from the oldest message, which compaction may have moved to the archive.
  if (flags["from-start"]) peerpost.mailbox.scanArchive(show);
  print();
  const { waitFor } = await import("../wait.js");
  while (!signal.aborted) await waitFor(() => (print(), undefined), { timeoutMs: 60_000, pollMs: 500, watchDir: peerpost.stateDir.path, signal });
}
