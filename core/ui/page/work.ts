// The claims and tasks panels: who holds which paths until when, and the task board with what each task
// waits on. The author's actions (release, end another's claim as a person, add, take, finish, fail or
// block a task) are writes like sending: token header, JSON body, the page's own origin.
import type { UiClaim, UiState, UiTask } from "../types.js";
import { $, el, holding, KeptViews, resultSpan, type Child } from "./dom.js";

export interface WorkHelpers {
  /** A time with a label ("since 2026-… (5 min ago)"). */
  time: (iso: string | undefined, label: string) => Child;
  address: (address: string) => HTMLElement;
  /** A write to the server; resolves to the line shown beside the action ("done …" or the error). */
  write: (path: string, body: unknown) => Promise<string>;
}

function button(label: string, onClick: () => void, className?: string): HTMLButtonElement {
  const element = el("button", className ? { className } : null, label);
  element.type = "button";
  element.addEventListener("click", onClick);
  return element;
}

function claimView(claim: UiClaim, helpers: WorkHelpers): HTMLElement {
  const result = resultSpan();
  const act = (force: boolean) => () =>
    holding([action], async () => {
      result.textContent = await helpers.write("/api/release", { repo: claim.target.repo, path: claim.target.path, force });
    });
  const action: HTMLButtonElement | null =
    claim.action === "release"
      ? button("Release", act(false), "release")
      : claim.action === "force"
        ? button(`End ${claim.holder}'s claim (they are told)`, act(true), "force-release")
        : null;
  return el(
    "article",
    { className: "claim", data: { holder: claim.holder, path: claim.path, repo: claim.repo } },
    el("div", { className: "head" }, el("code", { className: "path" }, claim.path), " ", el("span", { className: `badge ${claim.shared ? "" : "status-reminded"}` }, claim.shared ? "shared" : "exclusive"), " held by ", helpers.address(claim.holder)),
    el("div", { className: "muted repo" }, `in ${claim.repo}`),
    el("div", { className: "times" }, helpers.time(claim.since, "since"), helpers.time(claim.until, "until")),
    claim.reason ? el("div", { className: "reason" }, claim.reason) : null,
    action ? el("div", { className: "actions" }, action, " ", result) : null,
  );
}

/** Claims drawn, by holder, repository and pattern: an unchanged one is kept, with what its action said. */
const drawnClaims = new KeptViews<UiClaim>((claim) => JSON.stringify([claim.holder, claim.repo, claim.path]));

function claimViews(claims: UiClaim[], helpers: WorkHelpers): HTMLElement[] {
  return drawnClaims.views(claims, (claim) => claimView(claim, helpers));
}

export function renderClaims(claims: UiClaim[], helpers: WorkHelpers): void {
  $("#claims .list").replaceChildren(...(claims.length > 0 ? claimViews(claims, helpers) : [el("p", { className: "muted" }, "No standing claims. Agents claim files with the claim tool; a person with ", el("code", null, "peerpost claim PATH"), ".")]));
  $("#claims .count").textContent = String(claims.length);
}

function taskInfo(task: UiTask, state: UiState, helpers: WorkHelpers): HTMLElement {
  const blocked = task.waitingOn.length > 0;
  return el(
    "div",
    { className: "info" },
    el("div", { className: "head" }, el("strong", { className: "title" }, task.title), " ", el("span", { className: `badge status-${task.status}`, data: { status: task.status } }, task.status), blocked ? el("span", { className: "badge status-unresolved", data: { blocked: "yes" } }, `waits on ${task.waitingOn.length}`) : el("span", { className: "badge ok", data: { blocked: "no" } }, "unblocked")),
    el("div", { className: "facts" }, "by ", helpers.address(task.by), ...(task.assignee ? [" · for ", task.assignee] : []), ...(task.takenBy ? [" · taken by ", task.takenBy] : []), " · ", helpers.time(task.updatedAt, "updated")),
    task.after.length > 0 ? el("div", { className: "facts after" }, "after: ", ...task.after.flatMap((id) => [el("span", { className: `badge ${task.waitingOn.includes(id) ? "status-unresolved" : "ok"}`, title: id }, `${id.slice(-6)} ${state.tasks.open.concat(state.tasks.finished).find((other) => other.id === id)?.title ?? ""}`.trim()), " "])) : null,
    task.note ? el("div", { className: "reason note" }, task.note) : null,
    el("div", { className: "id muted" }, task.id),
  );
}

/** What the author may do with a task, as `peerpost task` allows: take it, or move on one they took. */
function allowed(task: UiTask, author: string | null): Set<"claim" | "done" | "fail" | "block"> {
  const can = new Set<"claim" | "done" | "fail" | "block">();
  if (author === null || task.status === "done" || task.status === "failed") return can;
  if (task.takenBy === undefined && task.waitingOn.length === 0) can.add("claim");
  if (task.takenBy === author) for (const action of ["done", "fail", "block"] as const) can.add(action);
  if (task.takenBy === undefined && task.by === author) can.add("block");
  return can;
}

/** A task's row, kept by id so a note being typed survives live updates. */
function taskRow(task: UiTask, helpers: WorkHelpers): HTMLElement {
  const note = el("textarea", { className: "note-input" });
  note.rows = 2;
  note.placeholder = "the result (done) or the reason (fail, block)";
  const result = resultSpan();
  const buttons: HTMLButtonElement[] = [];
  const act = (action: "claim" | "done" | "fail" | "block") => () =>
    holding(buttons, async () => {
      result.textContent = await helpers.write("/api/task", action === "claim" ? { action, id: task.id } : { action, id: task.id, note: note.value || undefined });
      if (result.textContent.startsWith("done")) note.value = "";
    });
  buttons.push(button("Take", act("claim"), "take"), button("Done", act("done"), "done"), button("Fail", act("fail"), "fail"), button("Block", act("block"), "block"));
  const actions = el("div", { className: "actions" }, ...buttons.flatMap((each) => [each, " "]), result);
  return el("article", { className: "task", data: { id: task.id } }, el("div", { className: "info" }), el("div", { className: "act" }, note, actions));
}

function renderTaskList(list: Element, tasks: UiTask[], state: UiState, helpers: WorkHelpers): void {
  const keep = new Set(tasks.map((task) => task.id));
  for (const child of [...list.children] as HTMLElement[]) if (!keep.has(child.dataset.id ?? "")) child.remove();
  let previous: Element | null = null;
  for (const task of tasks) {
    let row = list.querySelector<HTMLElement>(`.task[data-id="${task.id}"]`);
    if (!row) row = taskRow(task, helpers);
    row.querySelector(".info")!.replaceWith(taskInfo(task, state, helpers));
    const can = allowed(task, state.author);
    for (const action of ["claim", "done", "fail", "block"] as const) (row.querySelector(`button.${action === "claim" ? "take" : action}`) as HTMLElement).hidden = !can.has(action);
    (row.querySelector(".act") as HTMLElement).hidden = can.size === 0;
    // In the order given, moving only what moved.
    if (previous ? previous.nextElementSibling !== row : list.firstElementChild !== row) (previous ? previous.after(row) : list.prepend(row));
    previous = row;
  }
}

export function renderTasks(state: UiState, helpers: WorkHelpers): void {
  const { open, finished, finishedTotal } = state.tasks;
  renderTaskList($("#tasks .open"), open, state, helpers);
  renderTaskList($("#tasks .finished"), finished, state, helpers);
  $("#tasks .finished-count").textContent = finishedTotal > finished.length ? `latest ${finished.length} of ${finishedTotal}` : String(finishedTotal);
  $("#tasks .empty").hidden = open.length + finished.length > 0;
  $("#tasks .count").textContent = `${open.length} open · ${open.filter((task) => task.waitingOn.length > 0).length} blocked · ${finishedTotal} finished`;
  $("#task-new").hidden = state.author === null;
}

/** The new-task form: title, details, assignee (an address or role:NAME) and the tasks it waits on. */
export function wireTaskForm(helpers: WorkHelpers): void {
  const form = $("#task-form") as HTMLFormElement;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const field = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value.trim();
    const after = field("after").split(/[\s,]+/).filter(Boolean);
    await holding([form.querySelector<HTMLButtonElement>('button[type="submit"]')], async () => {
      const result = await helpers.write("/api/task", { action: "add", title: field("title"), body: field("body") || undefined, assignee: field("assignee") || undefined, after: after.length > 0 ? after : undefined });
      form.querySelector(".result")!.textContent = result;
      if (result.startsWith("done")) form.reset();
    });
  });
}
