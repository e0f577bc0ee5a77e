// The claims' and tasks' part of a compaction of the mailbox: pass 1 hands it every claim, release, task
// and task_status line (the archive's task lines first), and pass 2 asks it, line by line in log order,
// whether a line moves. Which claims move is the claims' rule (claims/compaction-cut.ts), which tasks the
// task board's (tasks/compaction-set.ts).
import type { MailboxEvent, TaskEvent, TaskStatusEvent } from "../../records/schemas.js";
import { ClaimsCut } from "../../claims/compaction-cut.js";
import { TasksToMove } from "../../tasks/compaction-set.js";

export class MovingWork {
  private readonly claims: ClaimsCut;
  private readonly tasks: TasksToMove;
  /** Offsets of the live log's claim and release lines, ascending. */
  private readonly claimLines: number[] = [];
  private moving: number[] = [];
  private next = 0;
  /** What moves, once pass 1 is over. */
  movedClaimLines = 0;
  movedTasks = 0;

  constructor(cutoff: number) {
    this.claims = new ClaimsCut(cutoff);
    this.tasks = new TasksToMove(cutoff);
  }

  /** A task line of the archive, read before the live log. */
  archived(event: MailboxEvent): void {
    if (event.type === "task" || event.type === "task_status") this.tasks.archived(event as TaskEvent | TaskStatusEvent);
  }

  apply(event: MailboxEvent, offset: number): void {
    if (event.type === "claim" || event.type === "release") {
      this.claims.apply(event, offset);
      this.claimLines.push(offset);
    } else if (event.type === "task" || event.type === "task_status") this.tasks.apply(event, offset);
  }

  /** Decides what moves, once every line is applied; returns whether anything does. */
  decide(): boolean {
    const last = this.claims.last();
    let claimLines = 0;
    while (claimLines < this.claimLines.length && this.claimLines[claimLines]! <= last) claimLines++;
    const tasks = this.tasks.moving();
    this.moving = [...this.claimLines.slice(0, claimLines), ...tasks.offsets].sort((a, b) => a - b);
    this.claimLines.length = 0;
    this.movedClaimLines = claimLines;
    this.movedTasks = tasks.tasks;
    return this.moving.length > 0;
  }

  /** Whether the line at `offset` moves; asked in ascending order of offsets. */
  moves(offset: number): boolean {
    while (this.next < this.moving.length && this.moving[this.next]! < offset) this.next++;
    return this.moving[this.next] === offset;
  }
}
