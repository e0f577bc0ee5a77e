// The task board: tasks with a title, a body, an optional assignee (an address or role:<name>) and
// dependencies, as events in the mailbox log. Taking a task is decided by log order (exactly one taker);
// a task whose dependencies are not all done cannot be taken. The task's conversation opens with a note
// from its creator to itself; when the task ends the result answers that note (so `wait` on it returns
// the result), and a finished dependency tells the waiting task's assignee (else its creator) with an fyi.
import { PeerpostError } from "../common/errors.js";
import { parseAddress } from "../common/address.js";
import { idFactory } from "../common/ids.js";
import type { Peerpost } from "../peerpost.js";
import type { TaskEvent, TaskStatus, TaskStatusEvent } from "../records/schemas.js";
import { TASKS_SCOPE } from "../records/work-scope.js";
import { keptFold, type WorkFoldSpec } from "../claims/work-fold.js";
import { BODY_TOO_LARGE_HINT, checkBody } from "../mail/messages.js";
import { MAX_BODY_BYTES } from "../records/record-values.js";
import { idempotencySlot } from "../mail/fold.js";
import { heldBefore } from "../claims/holders.js";
import { resolveRecipient } from "../sessions/recipients.js";
import { applyTaskEvent, doneLast, emptyTasks, isFinal, openDependencies, statusRefusal, wouldCycle, type TaskState, type TasksState } from "./fold.js";

const TASKS_FOLD: WorkFoldSpec<TasksState> = { scope: TASKS_SCOPE, types: ["task", "task_status"], empty: emptyTasks, apply: (state, event) => applyTaskEvent(state, event as TaskEvent | TaskStatusEvent), archived: true };

export function tasksState(peerpost: Peerpost): TasksState {
  return keptFold(peerpost.mailbox, TASKS_FOLD);
}

function unknownTask(id: string): PeerpostError {
  return new PeerpostError("not_found", `No task ${id} on the board.`, { details: { taskId: id }, hint: "`peerpost task list` (the task tool with action list) shows the tasks and their ids." });
}

export function findTask(peerpost: Peerpost, id: string): TaskState {
  const task = tasksState(peerpost).tasks[id];
  if (!task) throw unknownTask(id);
  return task;
}

export interface NewTask {
  by: string;
  title: string;
  body?: string | undefined;
  assignee?: string | undefined;
  after?: readonly string[] | undefined;
}

export async function createTask(peerpost: Peerpost, input: NewTask): Promise<TaskState> {
  parseAddress(input.by, "by");
  if (input.assignee !== undefined) parseAddress(input.assignee, "assignee");
  const title = input.title.trim();
  if (title === "" || title.length > 200)
    throw new PeerpostError("invalid_arguments", "A task needs a title of 1 to 200 characters.", { details: { field: "title" }, hint: "Say in a line what is to be done; put the rest in the body." });
  const body = input.body ?? "";
  checkBody(body, "task body");
  const after = [...new Set(input.after ?? [])];
  // Before anything is written: a new task closes no cycle.
  checkDependencies(tasksState(peerpost), after, () => false);
  const newId = await idFactory();
  let event: TaskEvent | undefined;
  // The conversation's first message: the creator's own note, marked read so it never nags; with the task
  // in one append, so a store that fails part way leaves neither (its error says nothing was stored).
  await peerpost.mailbox.noteToSelf(input.by, `Task: ${title}\n\n${body}`.trimEnd(), (note) => {
    const now = peerpost.config.now();
    event = { v: 1, type: "task", id: newId(now), title, body, by: input.by, after, messageId: note.id, at: new Date(now).toISOString() };
    if (input.assignee !== undefined) event.assignee = input.assignee;
    return [{ record: event, scopes: [TASKS_SCOPE] }];
  });
  return findTask(peerpost, event!.id);
}

export interface TaskUpdate {
  id: string;
  by: string;
  status: TaskStatus;
  /** The result (done), the reason (failed, blocked). */
  note?: string | undefined;
  /** More tasks to wait on (with status blocked). */
  after?: readonly string[] | undefined;
}

/** Takes a task (status in_progress) or moves it on; refused with a code when the log says no. */
export async function updateTask(peerpost: Peerpost, asked: TaskUpdate): Promise<TaskState> {
  parseAddress(asked.by, "by");
  if (asked.note !== undefined) checkBody(asked.note, "note");
  const current = tasksState(peerpost).tasks[asked.id];
  // A task taken before a /clear or /resume is its Claude Code process's own, as its claims are: the process
  // moves it on as the taker (a task is taken once, so its taker never changes).
  const update = current?.takenBy !== undefined && heldBefore(peerpost, current.takenBy, asked.by) ? { ...asked, by: current.takenBy } : asked;
  // The same final update again from the taker, whose result never went out (the store went away between
  // the status and the result, two appends): the result and task_unblocked go out now, not a refusal.
  if (current && isFinal(current.status) && current.status === update.status && current.takenBy === update.by && !announced(peerpost, current)) {
    await announceEnd(peerpost, current, { ...update, note: current.note }, resultSent(peerpost, current));
    return current;
  }
  const newId = await idFactory();
  let before: TaskState | undefined;
  const outcome = await peerpost.mailbox.store.appendDeciding(() => {
    const state = tasksState(peerpost);
    const task = state.tasks[update.id];
    if (!task) throw unknownTask(update.id);
    before = { ...task, after: [...task.after] };
    refuseUpdate(state, task, update);
    // The result goes to the creator after the status is written: a note it cannot carry is refused first.
    if (isFinal(update.status)) checkResultSize(task, update);
    const now = peerpost.config.now();
    const event: TaskStatusEvent = { v: 1, type: "task_status", id: newId(now), task: task.id, status: update.status, by: update.by, at: new Date(now).toISOString() };
    if (update.note !== undefined) event.note = update.note;
    if (update.after !== undefined && update.after.length > 0) event.after = [...new Set(update.after)];
    return {
      items: [{ record: event, scopes: [TASKS_SCOPE] }],
      conflicts: (earlier) => earlier.type === "task_status" && earlier.task === task.id,
    };
  });
  const task = findTask(peerpost, update.id);
  if (outcome.conflict || (update.status === "in_progress" && task.takenBy !== update.by))
    throw new PeerpostError("claim_conflict", `Task ${update.id} was taken by ${task.takenBy ?? "someone else"} first.`, { details: { taskId: update.id, takenBy: task.takenBy ?? null, status: task.status }, hint: { model: "Pick another task from the task tool's list (action list).", cli: "Pick another task from `peerpost task list`." } });
  if (isFinal(task.status) && before && !isFinal(before.status)) await announceEnd(peerpost, task, update);
  return task;
}

function refuseUpdate(state: TasksState, task: TaskState, update: TaskUpdate): void {
  const details = { taskId: task.id, status: task.status, takenBy: task.takenBy ?? null };
  if (isFinal(task.status)) throw new PeerpostError("invalid_arguments", `Task ${task.id} is already ${task.status}.`, { details, hint: "Create a new task for more work." });
  // Dependencies first, whatever the update: each must be a task, and none may close a cycle.
  const after = [...new Set(update.after ?? [])];
  checkDependencies(state, after, (dependency) => wouldCycle(state, task.id, dependency), details);
  const refusal = statusRefusal(state, task, update.status, after);
  if (refusal === "pending") throw new PeerpostError("invalid_arguments", `Task ${task.id} cannot go back to pending.`, { details: { ...details, field: "status" }, hint: "Set it blocked (with a note, and after: the tasks it waits on), failed, or done." });
  if (refusal === "after_unblocked") throw new PeerpostError("invalid_arguments", "after is given only with status blocked.", { details: { ...details, field: "after" }, hint: "Block the task on what it waits for (status blocked, after), then take it up again once those are done." });
  if (update.status === "in_progress" && task.takenBy === undefined) {
    // A task is taken only once what it waits on is done, the dependencies this update adds included.
    const open = [...new Set([...openDependencies(state, task), ...after.filter((dependency) => state.tasks[dependency]!.status !== "done")])];
    if (open.length > 0) throw new PeerpostError("task_blocked", `Task ${task.id} waits on ${open.join(", ")}, not done yet.`, { details: { ...details, waitingOn: open }, hint: { model: "Take it once they are done: its assignee (else its creator), and its taker, are told (task_unblocked); anyone else lists the board (task tool, action list) to see when.", cli: "Take it once they are done: its assignee (else its creator), and its taker, are told (task_unblocked); anyone else sees it in `peerpost task list`." } });
    return;
  }
  if (update.status === "in_progress" && task.takenBy !== update.by) throw new PeerpostError("claim_conflict", `Task ${task.id} is taken by ${task.takenBy}.`, { details, hint: { model: "Pick another task from the task tool's list (action list).", cli: "Pick another task from `peerpost task list`." } });
  const mayUpdate = update.by === task.takenBy || (task.takenBy === undefined && update.by === task.by && update.status === "blocked");
  if (!mayUpdate) throw new PeerpostError("permission_denied", `Only ${task.takenBy ?? "the task's taker"} moves task ${task.id} on.`, { details, hint: "Take the task first (task claim), or ask its taker." });
  if (statusRefusal(state, task, update.status, after) === "waiting") {
    const open = openDependencies(state, task);
    throw new PeerpostError("task_blocked", `Task ${task.id} waits on ${open.join(", ")}, not done yet.`, { details: { ...details, waitingOn: open }, hint: "Go on with it once they are done (you are told: task_unblocked), or set it failed." });
  }
}

/** The most tasks one task waits on (the record's own limit). */
const MAX_DEPENDENCIES = 100;

/** Refuses a list of dependencies with more than the limit, an id that is no task, or one that would close a cycle. */
function checkDependencies(state: TasksState, after: readonly string[], closesCycle: (dependency: string) => boolean, details: Record<string, unknown> = {}): void {
  if (after.length > MAX_DEPENDENCIES)
    throw new PeerpostError("invalid_arguments", `A task waits on at most ${MAX_DEPENDENCIES} tasks; this names ${after.length}.`, { details: { ...details, field: "after", count: after.length }, hint: "Group the work: make one task wait on a few that each wait on others." });
  for (const dependency of after) {
    if (!state.tasks[dependency]) throw unknownTask(dependency);
    if (closesCycle(dependency))
      throw new PeerpostError("invalid_arguments", `Waiting on ${dependency} would close a cycle.`, { details: { ...details, field: "after", dependency, reason: "cycle" }, hint: "A task cannot wait on itself or on a task that waits on it." });
  }
}

/** The message that takes a finished task's result to its creator. */
function resultText(task: Pick<TaskState, "id" | "title">, status: TaskStatus, by: string, note: string | undefined): string {
  return `Task ${task.id} (${task.title}) ${status} by ${by}${note !== undefined ? `:\n\n${note}` : "."}`;
}

function checkResultSize(task: TaskState, update: TaskUpdate): void {
  const bytes = Buffer.byteLength(resultText(task, update.status, update.by, update.note), "utf8");
  if (bytes <= MAX_BODY_BYTES) return;
  const limit = MAX_BODY_BYTES - Buffer.byteLength(resultText(task, update.status, update.by, ""), "utf8");
  throw new PeerpostError("body_too_large", `The note is ${Buffer.byteLength(update.note ?? "", "utf8")} bytes of UTF-8; with the task's header the result message to its creator may hold ${limit}.`, {
    details: { field: "note", bytes: Buffer.byteLength(update.note ?? "", "utf8"), limit },
    hint: BODY_TOO_LARGE_HINT,
  });
}

/** Who is told task_unblocked when `task` is done: the tasks it was the last dependency of to be done, in log order. */
function toUnblock(peerpost: Peerpost, task: TaskState): Array<{ waiting: TaskState; to: string }> {
  if (task.status !== "done") return [];
  const state = tasksState(peerpost);
  const told: Array<{ waiting: TaskState; to: string }> = [];
  for (const waiting of Object.values(state.tasks)) {
    if (!waiting.after.includes(task.id) || isFinal(waiting.status) || !doneLast(state, waiting, task.id)) continue;
    // Its taker too, when it was taken and then blocked: the task_blocked hint tells it it will be told.
    for (const to of new Set([waiting.assignee ?? waiting.by, ...(waiting.takenBy !== undefined ? [waiting.takenBy] : [])])) told.push({ waiting, to });
  }
  return told;
}

function unblockKey(waiting: TaskState, task: TaskState, to: string): string {
  return `task_unblocked:${waiting.id}:${task.id}:${to}`.slice(0, 200);
}

/** Whether everything the end of `task` sends went out: its result, and each task_unblocked (by its key). */
function announced(peerpost: Peerpost, task: TaskState): boolean {
  if (!resultSent(peerpost, task)) return false;
  const state = peerpost.mailbox.view(task.takenBy!).state;
  return toUnblock(peerpost, task).every(({ waiting, to }) => idempotencySlot(task.takenBy!, unblockKey(waiting, task, to)) in state.idempotency);
}

/** Whether the result of a finished task is in its conversation. */
function resultSent(peerpost: Peerpost, task: TaskState): boolean {
  const text = resultText(task, task.status, task.takenBy ?? "", task.note);
  return peerpost.mailbox.thread(task.messageId).some((message) => message.from === task.by && message.id !== task.messageId && peerpost.mailbox.body(message) === text);
}

/**
 * The result to the creator (an answer in the task's conversation), and task_unblocked to whoever waits;
 * each task_unblocked with a key, so a retry after a failure part way sends only what did not go out.
 */
async function announceEnd(peerpost: Peerpost, task: TaskState, update: TaskUpdate, resultDone = false): Promise<void> {
  const text = resultText(task, task.status, update.by, update.note);
  if (!resultDone)
    try {
      await peerpost.mailbox.resolve({ id: task.messageId, by: task.by, resolution: "reply", text });
    } catch (error) {
      // The creator resolved its own task note already: the result follows it in the conversation instead.
      if (!(error instanceof PeerpostError && error.code === "already_resolved")) throw error;
      await peerpost.mailbox.send({ from: task.by, fromVerified: false, to: task.by, body: text, anticipation: "fyi", replyToMessageId: task.messageId, allowSelf: true });
    }
  for (const { waiting, to } of toUnblock(peerpost, task)) {
    const via = to.startsWith("role:") ? to : undefined;
    // A role reaches its holder as a message to it does: a PEERPOST_ROLES holder reads no mail left at the bare role.
    const recipient = via === undefined ? to : await roleHolder(peerpost, via);
    await peerpost.mailbox.send({ from: update.by, fromVerified: false, to: recipient, via, anticipation: "fyi", allowSelf: true, notice: true, idempotencyKey: unblockKey(waiting, task, to), body: `task_unblocked: task ${waiting.id} (${waiting.title}) may be ${waiting.takenBy !== undefined ? "taken up again" : "taken"} now: ${task.id} was the last task it waited on.` });
  }
}

/** Who a role's notice goes to: its holder (run-time, else its one live PEERPOST_ROLES holder), else the role, where it waits for one. */
async function roleHolder(peerpost: Peerpost, role: string): Promise<string> {
  try {
    return (await resolveRecipient(peerpost, role)).address;
  } catch (error) {
    if (error instanceof PeerpostError && (error.code === "not_found" || error.code === "ambiguous")) return role;
    throw error;
  }
}

export function listTasks(peerpost: Peerpost): TaskState[] {
  return Object.values(tasksState(peerpost).tasks).sort((a, b) => (a.id < b.id ? -1 : 1));
}
