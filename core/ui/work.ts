// The shared work the page shows beside the mail: the standing claims of every repository and the task
// board, read through the same folds as `peerpost claims` and `peerpost task list`. Text written by
// agents (reasons, titles, notes, paths) is made visible here, once.
import { listClaims } from "../claims/claims.js";
import type { ClaimEntry } from "../claims/fold.js";
import { parseAddress } from "../common/address.js";
import type { Peerpost } from "../peerpost.js";
import { isFinal, openDependencies, type TaskState } from "../tasks/fold.js";
import { listTasks, tasksState } from "../tasks/tasks.js";
import { visible } from "../security/visible.js";
import type { UiClaim, UiState, UiTask } from "./types.js";

/** Finished tasks shown, newest first; open ones are all shown. */
const FINISHED_SHOWN = 50;

function isPerson(address: string | null): boolean {
  return address !== null && parseAddress(address, "author").kind === "user";
}

function claimView(entry: ClaimEntry, author: string | null, person: boolean): UiClaim {
  const claim: UiClaim = {
    holder: entry.holder,
    repo: visible(entry.repo, true),
    path: visible(entry.path, true),
    shared: entry.shared,
    since: entry.since,
    until: entry.until,
    // As the CLI allows: the holder releases its own; only a person ends another's (release --force).
    action: entry.holder === author ? "release" : person ? "force" : null,
    target: { repo: entry.repo, path: entry.path },
  };
  if (entry.reason !== undefined) claim.reason = visible(entry.reason, true);
  return claim;
}

export function claimsView(peerpost: Peerpost, author: string | null): UiClaim[] {
  const person = isPerson(author);
  return listClaims(peerpost).claims.map((entry) => claimView(entry, author, person));
}

function taskView(task: TaskState, waitingOn: string[]): UiTask {
  const view: UiTask = { id: task.id, title: visible(task.title, true), by: task.by, after: task.after, waitingOn, status: task.status, messageId: task.messageId, at: task.at, updatedAt: task.updatedAt };
  if (task.assignee !== undefined) view.assignee = task.assignee;
  if (task.takenBy !== undefined) view.takenBy = task.takenBy;
  if (task.note !== undefined) view.note = visible(task.note, true);
  return view;
}

export function tasksView(peerpost: Peerpost): UiState["tasks"] {
  const state = tasksState(peerpost);
  const tasks = listTasks(peerpost);
  const open = tasks.filter((task) => !isFinal(task.status));
  const finished = tasks.filter((task) => isFinal(task.status)).sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1));
  return {
    open: open.map((task) => taskView(task, openDependencies(state, task))),
    finished: finished.slice(0, FINISHED_SHOWN).map((task) => taskView(task, [])),
    finishedTotal: finished.length,
  };
}
