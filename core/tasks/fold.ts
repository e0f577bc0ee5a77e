// The pure fold of task events, decided by log order: a task is taken once (the first `in_progress` by
// anyone, while its dependencies are all done), only its taker moves it on, and done or failed is final.
// A dependency that would close a cycle is dropped here too, whatever its writer saw.
import type { TaskEvent, TaskStatus, TaskStatusEvent } from "../records/schemas.js";

export interface TaskState {
  id: string;
  title: string;
  bodyBytes: number;
  by: string;
  assignee?: string;
  after: string[];
  messageId: string;
  at: string;
  status: TaskStatus;
  takenBy?: string;
  note?: string;
  updatedAt: string;
}

export interface TasksState {
  tasks: Record<string, TaskState>;
  /** The done tasks, each with its place in log order among them: which of a task's dependencies was done last. */
  doneOrder: Map<string, number>;
}

export function emptyTasks(): TasksState {
  // No prototype: a task id a caller gives (`__proto__`) is no task.
  return { tasks: Object.create(null), doneOrder: new Map() };
}

export function isFinal(status: TaskStatus): boolean {
  return status === "done" || status === "failed";
}

/** The dependencies of a task that are not done yet (unknown ones count as not done). */
export function openDependencies(state: TasksState, task: TaskState): string[] {
  return task.after.filter((id) => state.tasks[id]?.status !== "done");
}

/**
 * Whether `dependency`, done, is the last of `task`'s dependencies done in log order: the one whose taker
 * says the task may be taken now. Two takers that finish at the same moment then tell it once, not each.
 */
export function doneLast(state: TasksState, task: TaskState, dependency: string): boolean {
  const last = state.doneOrder.get(dependency);
  return last !== undefined && task.after.every((id) => (state.doneOrder.get(id) ?? Infinity) <= last);
}

/** Whether `task` waiting on `dependency` would close a cycle (a task waiting on itself included). */
export function wouldCycle(state: TasksState, task: string, dependency: string): boolean {
  // An explicit stack: a chain of thousands of tasks overflowed the call stack of a recursive walk.
  const seen = new Set<string>();
  const stack = [dependency];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id === task) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(state.tasks[id]?.after ?? []));
  }
  return false;
}

/**
 * Why a status change by the task's taker (or its creator blocking it untaken) is refused, or undefined:
 * a task goes back to pending never, waits on more tasks only as it is blocked, and neither works on nor
 * ends done while a task it waits on is not done. The tool decides so under the log's lock (tasks.ts);
 * the fold does not, so a log written before these rules reads as it did.
 */
export function statusRefusal(state: TasksState, task: TaskState, status: TaskStatus, after: readonly string[]): "pending" | "after_unblocked" | "waiting" | undefined {
  if (status === "pending") return "pending";
  if (after.length > 0 && status !== "blocked") return "after_unblocked";
  if ((status === "in_progress" || status === "done") && openDependencies(state, task).length > 0) return "waiting";
  return undefined;
}

export function applyTaskEvent(state: TasksState, event: TaskEvent | TaskStatusEvent): void {
  if (event.type === "task") {
    if (state.tasks[event.id]) return;
    const task: TaskState = { id: event.id, title: event.title, bodyBytes: Buffer.byteLength(event.body, "utf8"), by: event.by, after: event.after.filter((id) => state.tasks[id] !== undefined), messageId: event.messageId, at: event.at, status: "pending", updatedAt: event.at };
    if (event.assignee !== undefined) task.assignee = event.assignee;
    state.tasks[event.id] = task;
    return;
  }
  const task = state.tasks[event.task];
  if (!task || isFinal(task.status)) return;
  if (event.status === "in_progress" && task.takenBy === undefined) {
    if (openDependencies(state, task).length > 0) return;
    task.takenBy = event.by;
  } else if (event.by !== task.takenBy && !(event.status === "blocked" && task.takenBy === undefined && event.by === task.by)) return;
  for (const dependency of event.after ?? []) if (!task.after.includes(dependency) && state.tasks[dependency] && !wouldCycle(state, task.id, dependency)) task.after.push(dependency);
  task.status = event.status;
  if (event.status === "done") state.doneOrder.set(task.id, state.doneOrder.size);
  task.updatedAt = event.at;
  if (event.note !== undefined) task.note = event.note;
  else delete task.note;
}
