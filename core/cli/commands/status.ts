// peerpost status: one message with its history and conversation, or a summary per session.
import { tasksState } from "../../tasks/tasks.js";
import { openDependencies, type TaskState } from "../../tasks/fold.js";
import { PeerpostError } from "../../common/errors.js";
import { messageHistory } from "../../mail/history.js";
import { HINTS } from "../../common/hints.js";
import { indexWhenFarBehind } from "../../upkeep/index-run.js";
import type { Peerpost } from "../../peerpost.js";
import type { MessageState } from "../../mail/fold.js";
import { describeMessage } from "../../server/projection.js";
import { visible } from "../../security/visible.js";
import { defineCommand } from "../command.js";
import { printJson, printWarning, table } from "../output.js";
import { describeRun } from "../../wake/describe.js";
import { isStale, staleNote } from "../../wake/stale.js";
import { messageBlock, when } from "../prose.js";
import { openStore } from "../store.js";
import { peopleWithMail } from "../../sessions/people.js";
import { nextSteps } from "../next-steps.js";

function summary(peerpost: Peerpost, json: boolean): number {
  const sessions = peerpost.sessions.list({ includeDead: true });
  const mailTo = (address: string) => {
    const messages = Object.values(peerpost.mailbox.view(address).state.messages).filter((message) => message.to === address);
    return { unread: messages.filter((message) => !message.read).length, open: messages.filter((message) => !message.resolved && message.anticipation !== "fyi").length };
  };
  const lastRuns = peerpost.wakes.lastRuns(sessions.map((session) => session.address));
  const counts = sessions.map((session) => {
    const lastRun = lastRuns.get(session.address);
    return { address: session.address, alive: session.alive, local: session.local, lastWake: lastRun ? describeRun(lastRun, peerpost.config.now()) : null, ...mailTo(session.address) };
  });
  // People have mail too, though no session registers them.
  const people = peopleWithMail(peerpost).map((address) => ({ address, ...mailTo(address) }));
  if (json) printJson({ ok: true, stateDir: peerpost.stateDir.path, sessions: counts, people });
  else {
    const rows = [...counts.map((row) => [row.address, row.local ? (row.alive ? "yes" : "no") : "?", String(row.unread), String(row.open), row.lastWake ? `${row.lastWake.state}${row.lastWake.reason ? `: ${row.lastWake.reason}` : ""}` : ""]), ...people.map((row) => [row.address, "person", String(row.unread), String(row.open), ""])];
    process.stdout.write(`state dir ${peerpost.stateDir.path}\n` + (rows.length === 0 ? `no sessions and no mail yet\n${nextSteps()}` : table([["ADDRESS", "RUNNING", "UNREAD", "OPEN REQUESTS", "LAST WAKE"], ...rows])));
  }
  return 0;
}

/** "resolved: replied by codex:b, answer 01…": the outcome in the words `status` uses. */
function resolvedLine(message: MessageState): string {
  const resolved = message.resolved!;
  const outcome = resolved.resolution === "reply" ? "replied" : resolved.resolution === "decline" ? "declined" : "done";
  return `resolved: ${outcome} by ${resolved.by}${resolved.replyId ? `, answer ${resolved.replyId}` : ""}`;
}

/** A task: its status, taker, dependencies (with theirs), and where its conversation is. */
function showTask(peerpost: Peerpost, task: TaskState, json: boolean): number {
  const state = tasksState(peerpost);
  const waitingOn = openDependencies(state, task);
  if (json) {
    printJson({ ok: true, task: { ...task, waitingOn } });
    return 0;
  }
  const lines = [
    `Task ${task.id}: ${visible(task.title)}`,
    `  status ${task.status}${task.takenBy ? `, taken by ${task.takenBy}` : ""}; created by ${task.by} at ${task.at}${task.assignee ? ` for ${task.assignee}` : ""}`,
    ...task.after.map((dependency) => `  after ${dependency} (${state.tasks[dependency]?.status ?? "unknown"})`),
    ...(task.note !== undefined ? [`  note: ${visible(task.note, true)}`] : []),
    `  conversation: peerpost status ${task.messageId}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

export const statusCommand = defineCommand({
  name: "status",
  summary: "one message with its history and conversation, or a summary per session",
  usage: "[ID]",
  details: "With an id: who sent it to whom and when, what it asks for, where it stands, its text, each event so far, and the other messages of its conversation. Without: unread and open requests per session.",
  flags: {},
  args: { min: 0, max: 1, name: "a message id" },
  examples: ["peerpost status 01JF3Q0M9C6R2S3T4V5W6X7Y8Z", "peerpost status --json"],
  async run({ args, json }) {
    const peerpost = await openStore();
    const id = args[0];
    // Without current indexes the lookup scans the whole store: they are built in the background for the next one.
    // The summary starts it too: `peerpost status` is the fix doctor gives for an archive's index that lags.
    indexWhenFarBehind(peerpost, process.argv[1] ?? "");
    if (id === undefined) return summary(peerpost, json);
    const message = peerpost.mailbox.find(id);
    if (!message) {
      // A task's id is an id of its own, never a message's: the task board is folded only for an id no message has.
      const task = tasksState(peerpost).tasks[id];
      if (task) return showTask(peerpost, task, json);
      throw new PeerpostError("not_found", `No message ${id} in the mailbox.`, { details: { messageId: id }, hint: HINTS.unknownMessage });
    }
    const { mailbox } = peerpost;
    const status = mailbox.status(message);
    const now = peerpost.config.now();
    const stale = !message.read && !message.resolved && isStale(message, now, peerpost.config.staleMs);
    const wakes = peerpost.wakes.runsCarrying(message.id).map((run) => describeRun(run, now));
    const history = messageHistory(message);
    const thread = mailbox.thread(message.conversationId);
    if (json) {
      printJson({
        ok: true,
        message: { ...describeMessage(message, status), history, reminders: message.reminders.count, delivered: message.delivered ?? null, read: message.read ?? null, resolved: message.resolved ?? null, handovers: message.handovers ?? [], stale, wakes },
        thread: thread.map((other) => describeMessage(other, mailbox.status(other))),
      });
      return 0;
    }
    if (stale) printWarning(staleNote(message, peerpost.config.staleMs));
    const lines = [messageBlock(message, mailbox.body(message), status, now, message.to), "", "History"];
    for (const entry of history) lines.push(`  ${when(entry.at, now)}  ${entry.event === "resolved" ? resolvedLine(message) : `${entry.event}${entry.detail ? ` ${visible(entry.detail)}` : ""}`}`);
    for (const run of wakes) lines.push(`  ${when(String(run.claimedAt), now)}  woken: ${String(run.kind)} ${String(run.id)}, ${String(run.state)}${run.reason ? ` (${String(run.reason)})` : ""}`);
    if (message.resolved?.reason !== undefined) lines.push(`  reason given: ${visible(message.resolved.reason)}`);
    lines.push("", `Conversation ${message.conversationId} (${thread.length} message${thread.length === 1 ? "" : "s"})`);
    lines.push(table(thread.map((other) => [other.id === message.id ? "→" : " ", other.id, `${other.from} → ${other.to}`, other.anticipation, mailbox.status(other), when(other.sentAt, now)])).trimEnd());
    process.stdout.write(`${lines.join("\n")}\n`);
    return 0;
  },
});
