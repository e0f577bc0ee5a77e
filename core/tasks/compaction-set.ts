// Which tasks a compaction of the mailbox moves to the archive, with all their lines: a task moves with
// every task linked to it by a dependency (either way, as named in any of their lines), and only when each
// of them is done or failed with its last line dated before the cutoff. Readers fold the archive's task
// lines before the live log's (work-fold.ts): a group that moves whole is folded alone in both places, in
// the same order, so each task comes out as before, and a task that stays meets the ones it named as it
// did. A dependency check therefore never misses an archived task, and no open task's dependency moves.
import type { TaskEvent, TaskStatusEvent } from "../records/schemas.js";
import { applyTaskEvent, emptyTasks, isFinal } from "./fold.js";

interface Lines {
  offsets: number[];
  lastAt: number;
}

export class TasksToMove {
  /** The tasks as readers fold them: the archive's first, then the live log's. */
  private readonly state = emptyTasks();
  /** The live log's lines of each task (a status line under the task it names). */
  private readonly lines = new Map<string, Lines>();
  /** Union-find over task ids: tasks linked by a dependency share a root. */
  private readonly parent = new Map<string, string>();

  constructor(private readonly cutoff: number) {}

  /** A task line the archive holds already: folded first, never moved again. */
  archived(event: TaskEvent | TaskStatusEvent): void {
    applyTaskEvent(this.state, event);
  }

  apply(event: TaskEvent | TaskStatusEvent, offset: number): void {
    applyTaskEvent(this.state, event);
    const id = event.type === "task" ? event.id : event.task;
    let lines = this.lines.get(id);
    if (!lines) this.lines.set(id, (lines = { offsets: [], lastAt: -Infinity }));
    lines.offsets.push(offset);
    lines.lastAt = Math.max(lines.lastAt, Date.parse(event.at));
    for (const dependency of event.after ?? []) this.link(id, dependency);
  }

  /** The offsets of the lines that move, ascending, and how many tasks they are. */
  moving(): { offsets: number[]; tasks: number } {
    const blocked = new Set<string>();
    for (const id of this.lines.keys()) if (!this.movable(id)) blocked.add(this.root(id));
    const offsets: number[] = [];
    let tasks = 0;
    for (const [id, lines] of this.lines) {
      if (blocked.has(this.root(id))) continue;
      offsets.push(...lines.offsets);
      tasks++;
    }
    return { offsets: offsets.sort((a, b) => a - b), tasks };
  }

  /** Whether a task's own lines let it move: all old, and the task (as readers fold it) finished. */
  private movable(id: string): boolean {
    const task = this.state.tasks[id];
    return task !== undefined && isFinal(task.status) && this.lines.get(id)!.lastAt < this.cutoff;
  }

  private root(id: string): string {
    let root = id;
    for (let up = this.parent.get(root); up !== undefined; up = this.parent.get(root)) root = up;
    for (let at = id; at !== root; ) {
      const up = this.parent.get(at)!;
      this.parent.set(at, root);
      at = up;
    }
    return root;
  }

  private link(a: string, b: string): void {
    const rootA = this.root(a);
    const rootB = this.root(b);
    if (rootA !== rootB) this.parent.set(rootA, rootB);
  }
}
