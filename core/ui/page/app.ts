// The web view's page: draws the state it came with (or fetches it for the filters in the URL) as text
// nodes, and redraws only the parts the server's event stream says changed (page/sync.ts). Writes
// (send, reply, decline, and the claims and tasks actions) carry the token in a header and a JSON body.
import type { UiConversation, UiMessage, UiReceipt, UiSession, UiState } from "../types.js";
import { $, ago, bytes, el, holding, KeptViews, localTime, resultSpan, type Child } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { FILTERS, PageSync } from "./sync.js";
import { renderClaims, renderTasks, wireTaskForm, type WorkHelpers } from "./work.js";

const params = new URLSearchParams(location.search);
const token = params.get("token") ?? "";
let state: UiState | undefined;

function showProblem(text: string): void {
  const live = $("#live");
  live.textContent = text;
  live.className = "badge bad";
}

function setFilter(name: (typeof FILTERS)[number], value: string): void {
  if (value) params.set(name, value);
  else params.delete(name);
  if (name !== "limit") params.delete("limit");
  history.replaceState(null, "", `?${params}`);
  void sync.load();
}

function addressButton(address: string): HTMLElement {
  const button = el("button", { className: "link address", title: `show only ${address}` }, address);
  button.type = "button";
  button.addEventListener("click", () => setFilter("session", address));
  return button;
}

function timeText(iso: string, label: string): string {
  return `${label} ${localTime(iso)} (${ago(iso, Date.parse(state!.now))})`.trimStart();
}

function time(iso: string | undefined, label: string): Child {
  if (!iso || !state) return null;
  // As in the CLI: the local time and how long ago (the ISO time on hover).
  return el("span", { className: "time", title: `${label} ${iso}`, data: { iso, label } }, timeText(iso, label));
}

/** "… ago" moves with the server's clock: kept views get the new text without being built again. */
function refreshTimes(): void {
  for (const span of document.querySelectorAll<HTMLElement>(".time[data-iso]")) span.textContent = timeText(span.dataset.iso!, span.dataset.label ?? "");
}

/** Conversations drawn, by id: one unchanged since the last state is kept, not drawn (and its markdown parsed) again. */
const drawnConversations = new KeptViews<UiConversation>((conversation) => conversation.id);

function conversationViews(conversations: UiConversation[]): HTMLElement[] {
  return drawnConversations.views(conversations, conversationView);
}

function statusBadge(message: UiMessage): Child[] {
  const badges: Child[] = [el("span", { className: `badge status-${message.status}`, data: { status: message.status } }, message.status)];
  if (message.reminders > 0 && !message.resolved) badges.push(el("span", { className: "badge status-reminded", title: message.lastReminderAt ?? "" }, `reminded ×${message.reminders}`));
  return badges;
}

/** Bodies longer than this many lines (or characters) show their start, with "show all". */
const FOLD_LINES = 8;
const FOLD_CHARS = 800;

function foldable(text: string): HTMLElement {
  const body = el("div", { className: "body markdown" }, ...renderMarkdown(text));
  if (text.split("\n").length <= FOLD_LINES && text.length <= FOLD_CHARS) return body;
  body.classList.add("folded");
  const toggle = el("button", { className: "link show-all" }, "show all");
  toggle.type = "button";
  toggle.addEventListener("click", () => {
    const folded = body.classList.toggle("folded");
    toggle.textContent = folded ? "show all" : "show less";
  });
  return el("div", { className: "foldable" }, body, toggle);
}

function messageView(message: UiMessage): HTMLElement {
  const head = el(
    "div",
    { className: "head" },
    addressButton(message.from),
    " → ",
    addressButton(message.to),
    message.via ? el("span", { className: "muted" }, ` via ${message.via}`) : null,
    " ",
    el("span", { className: "badge" }, message.anticipation),
    ...statusBadge(message),
  );
  const times = el("div", { className: "times" }, time(message.sentAt, "sent"), time(message.delivered?.at, "delivered"), time(message.read?.at, "read"), time(message.resolved?.at, message.resolved?.resolution ?? "resolved"), time(message.replyBy, "reply by"));
  const body = foldable(message.body);
  const reason = message.resolved?.reason ? el("div", { className: "reason" }, `${message.resolved.resolution}: `, message.resolved.reason) : null;
  const item = el("article", { className: `message${message.match ? " match" : ""}`, data: { id: message.id } }, head, times, body, reason, el("div", { className: "id muted" }, message.id, ` · hop ${message.hop}`));
  if (state?.author && message.from !== state.author) {
    const answer = el("button", { className: "link" }, "answer in thread");
    answer.type = "button";
    answer.addEventListener("click", () => prepareSend(message.from, message.id));
    item.querySelector(".id")!.append(" · ", answer);
  }
  return item;
}

function conversationView(conversation: UiConversation): HTMLElement {
  // Each conversation has its own URL (?conversation=ID): a link to open, bookmark or share with the token.
  const open = el("a", { className: "link", title: "this conversation's own page" }, conversation.id);
  open.href = `?${new URLSearchParams({ token, conversation: conversation.id })}`;
  open.addEventListener("click", (event) => {
    event.preventDefault();
    setFilter("conversation", conversation.id);
  });
  return el(
    "div",
    { className: "thread", data: { conversation: conversation.id } },
    el("div", { className: "thread-head" }, open, ` · ${conversation.participants.join(", ")} · `, time(conversation.lastAt, "last"), conversation.stuck > 0 ? el("span", { className: "badge status-unresolved" }, `${conversation.stuck} stuck`) : null),
    conversation.earlier ? el("div", { className: "earlier muted" }, "Its earlier messages are older than those loaded: open the conversation to see it whole.") : null,
    ...conversation.messages.map(messageView),
  );
}

function sessionView(session: UiSession): HTMLElement {
  return el(
    "article",
    { className: `session${session.alive ? " alive" : ""}`, data: { address: session.address } },
    el("div", { className: "head" }, addressButton(session.address), " ", el("span", { className: `badge ${session.alive ? "ok" : ""}` }, session.alive ? "running" : "not running"), " ", el("span", { className: "badge" }, session.host)),
    // Its process runs on, as another session: say which, or "not running" reads as wrong.
    session.leftFor ? el("div", { className: "left-for muted" }, "its Claude Code process left it for ", addressButton(session.leftFor), " (/clear or /resume)") : null,
    session.name ? el("div", { className: "name" }, session.name) : null,
    session.cwd ? el("div", { className: "cwd muted" }, session.cwd) : null,
    el(
      "div",
      { className: "facts" },
      `push: ${session.push ?? "unknown"} · wake: ${session.wake ? `${session.wake.kind} ${session.wake.outcome} ` : "none"}`,
      session.wake ? time(session.wake.at, "") : null,
      session.roles.length > 0 ? ` · roles: ${session.roles.join(", ")}` : null,
      " · ",
      time(session.lastSeen, "seen"),
    ),
    session.waiting.length > 0
      ? el("div", { className: "waiting" }, `${session.waiting.length} waiting on it: `, ...session.waiting.slice(0, 10).flatMap((request) => [el("span", { className: `badge status-${request.status}`, title: `from ${request.from}, ${request.sentAt}` }, `${request.id.slice(-6)} from ${request.from}`), " "]))
      : null,
  );
}

function receiptView(receipt: UiReceipt): HTMLElement {
  return el(
    "div",
    { className: "receipt", data: { kind: receipt.kind } },
    time(receipt.at, ""),
    el("div", { className: "sentence" }, receipt.sentence),
    el("details", { className: "fields" }, el("summary", null, "all fields"), el("dl", null, ...receipt.fields.flatMap(([key, value]) => [el("dt", null, key), el("dd", null, value)]))),
  );
}

/** Requests to the author with Reply and Decline; kept by id, so a change elsewhere never wipes what is being typed. */
function renderMine(mine: UiMessage[]): void {
  const section = $("#mine");
  section.hidden = state?.author === null;
  const list = section.querySelector(".list")!;
  const keep = new Set(mine.map((message) => message.id));
  for (const child of [...list.children] as HTMLElement[]) if (!keep.has(child.dataset.id ?? "")) child.remove();
  for (const message of mine) {
    const existing = list.querySelector<HTMLElement>(`[data-id="${message.id}"]`);
    const view = messageView(message);
    if (existing) {
      existing.querySelector(".message")!.replaceWith(view);
      continue;
    }
    const text = el("textarea", { className: "answer" });
    text.rows = 2;
    text.placeholder = "reply, or the reason to decline";
    const result = resultSpan();
    const reply = el("button", null, "Reply");
    reply.type = "button";
    const decline = el("button", null, "Decline");
    decline.type = "button";
    const act = (resolution: "reply" | "decline") => () =>
      holding([reply, decline], async () => {
        result.textContent = await write("/api/resolve", { id: message.id, resolution, text: text.value || undefined });
      });
    reply.addEventListener("click", act("reply"));
    decline.addEventListener("click", act("decline"));
    list.append(el("div", { className: "request", data: { id: message.id } }, view, text, el("div", { className: "actions" }, reply, " ", decline, " ", result)));
  }
  section.querySelector(".count")!.textContent = String(mine.length);
}

function fillSelect(select: HTMLSelectElement, values: string[], current: string | null): void {
  select.replaceChildren(el("option", null, "all"));
  select.options[0]!.value = "";
  for (const value of values) {
    const option = el("option", null, value);
    option.value = value;
    select.append(option);
  }
  select.value = current ?? "";
}

function setList(id: string, items: Node[], count: string, empty: Node[] = [el("p", { className: "muted" }, "none")]): void {
  $(`#${id} .list`).replaceChildren(...(items.length > 0 ? items : empty));
  $(`#${id} .count`).textContent = count;
}

/** What to do when no session is known yet: the set-up command for each host found on PATH, or doctor. */
function emptySessions(next: UiState): Node[] {
  if (next.setUp.length === 0 && next.attention.length > 0)
    return [el("p", { className: "next-step" }, `No sessions yet. peerpost needs a fix in ${next.attention.join(", ")} before a session there shows here: `, el("code", null, "peerpost doctor"), " prints it.")];
  if (next.setUp.length === 0 && next.ready.length > 0)
    return [el("p", { className: "next-step" }, `No sessions yet. peerpost is set up in ${next.ready.join(", ")}: start a session there and it shows here; `, el("code", null, "peerpost doctor"), " shows each host's set-up.")];
  if (next.setUp.length === 0) return [el("p", { className: "next-step" }, "No sessions yet. Install a host CLI (claude, codex, copilot, grok) and set peerpost up in it; ", el("code", null, "peerpost doctor"), " shows each host's set-up.")];
  return [
    el("p", { className: "next-step" }, "No sessions yet. Set peerpost up in your agents, then start a session there:"),
    ...next.setUp.map((entry) => el("div", { className: "next-step" }, `${entry.host}: `, el("code", null, entry.command))),
    el("p", { className: "muted" }, "Then check with ", el("code", null, "peerpost doctor"), "."),
  ];
}

function drawHeader(next: UiState): void {
  $("#state-dir").textContent = next.stateDir;
  $("#author").textContent = next.author ? `writing as ${next.author}` : "read-only";
  $("#compose").hidden = next.author === null;
}

function drawChoices(next: UiState): void {
  const filters = $("#filters") as HTMLFormElement;
  fillSelect(filters.elements.namedItem("session") as HTMLSelectElement, next.choices.sessions, params.get("session"));
  fillSelect(filters.elements.namedItem("role") as HTMLSelectElement, next.choices.roles, params.get("role"));
  // "to" completes from the known sessions and people, and the roles.
  const addresses = [...next.choices.sessions, ...next.choices.roles.map((role) => `role:${role}`)];
  $("#addresses").replaceChildren(...addresses.map((address) => Object.assign(el("option", null), { value: address })));
}

function drawConversations(next: UiState): void {
  const shown = next.conversations.length;
  const { totals } = next;
  // Past a few thousand messages the server folds only the newest: the counts are theirs, and "show more" folds older ones.
  const counted = `${totals.messages} ${totals.partial ? "newest " : ""}message${totals.messages === 1 ? "" : "s"}${totals.partial ? " (older ones: show more)" : ""}`;
  setList("conversations", conversationViews(next.conversations), `${shown} of ${totals.matchedConversations}${totals.matchedConversations !== totals.conversations ? ` matching (${totals.conversations} in all)` : ""} · ${counted} · ${totals.stuck} stuck`, next.totals.conversations === 0 ? [el("p", { className: "next-step" }, "No conversations yet. Ask one of your agents to message another (", el("code", null, "peerpost agents"), " lists their addresses), or send one yourself. In a clone, ", el("code", null, "npm run demo -- --ui"), " makes one in a demo state dir of its own and opens a web view on it.")] : undefined);
  $("#more").hidden = shown >= totals.matchedConversations && !totals.partial;
}

function drawHealth(next: UiState): void {
  setList(
    "health",
    [
      ...next.health.logs.map((log) =>
        el("div", { className: `log${log.corrupt > 0 || log.tornTail || log.lock === "stale" ? " bad" : ""}`, data: { log: log.name } }, el("strong", null, log.name), ` ${bytes(log.bytes)} · ${log.corrupt} corrupt line${log.corrupt === 1 ? "" : "s"}${log.tornTail ? " · torn last line" : ""} · lock ${log.lock}`, ...log.recentCorrupt.map((line) => el("div", { className: "muted" }, `at byte ${line.offset}: ${line.reason}`))),
      ),
      el("div", { className: "log muted" }, "files: ", next.health.files.map((file) => `${file.name} ${bytes(file.bytes)}`).join(" · ") || "none"),
      ...(next.health.recentErrors.length > 0 ? [el("div", null, el("strong", null, "recent errors"), ...next.health.recentErrors.map((line) => el("pre", null, line)))] : []),
    ],
    "",
  );
}

/** Each part of the page with the parts of the state it is drawn from: a delta redraws only the parts it touches. */
const PARTS: Array<[Array<keyof UiState>, (next: UiState) => void]> = [
  [["stateDir", "author"], drawHeader],
  [["choices"], drawChoices],
  [["mine", "author"], (next) => (renderMine(next.mine), notifyNew(next.mine))],
  [["sessions", "setUp"], (next) => setList("sessions", next.sessions.map(sessionView), String(next.sessions.length), emptySessions(next))],
  [["conversations", "totals"], drawConversations],
  [["claims"], (next) => renderClaims(next.claims, work)],
  [["tasks", "author"], (next) => renderTasks(next, work)],
  [["wakes"], (next) => setList("wakes", next.wakes.map(receiptView), String(next.wakes.length))],
  [["receipts", "choices"], (next) => setList("receipts", next.receipts.map(receiptView), `latest ${next.receipts.length} · kinds: ${next.choices.receiptKinds.join(", ") || "none"}`)],
  [["health"], drawHealth],
];

/** Draws the state: every part, or only those drawn from the `changed` parts of the state. */
function render(next: UiState, changed?: ReadonlySet<string>): void {
  state = next;
  const live = $("#live");
  if (live.classList.contains("bad") && !live.textContent?.startsWith("disconnected")) Object.assign(live, { className: "badge ok", textContent: "live" });
  for (const [keys, draw] of PARTS) {
    if (changed && !keys.some((key) => changed.has(key))) continue;
    // One part that cannot be drawn leaves the others drawn, and the page live.
    try {
      draw(next);
    } catch (error) {
      console.error("peerpost: a part of the page could not be drawn", error);
    }
  }
  refreshTimes();
  document.body.dataset.version = next.version;
  if (!performance.getEntriesByName("peerpost-rendered").length) performance.mark("peerpost-rendered");
}

async function write(path: string, body: unknown): Promise<string> {
  try {
    const response = await fetch(path, { method: "POST", headers: { "content-type": "application/json", "x-peerpost-token": token }, body: JSON.stringify(body) });
    const result = (await response.json()) as { ok: boolean; messageId?: string; task?: { id: string }; warnings?: string[]; error?: { code: string; message: string; hint?: string } };
    void sync.load();
    const id = result.messageId ?? result.task?.id;
    // A write that succeeded with warnings (not running, a receipt not written: do not repeat it) says them too.
    const warned = result.warnings?.length ? ` · warning: ${result.warnings.join(" ")}` : "";
    return result.ok ? `done${id ? ` (${id})` : ""}${warned}` : `${result.error?.code}: ${result.error?.message}${result.error?.hint ? ` ${result.error.hint}` : ""}`;
  } catch (error) {
    return `failed: ${String(error)}`;
  }
}

const work: WorkHelpers = { time, address: addressButton, write };

function prepareSend(to: string, replyTo: string): void {
  ($("#compose") as HTMLDetailsElement).open = true;
  const form = $("#send-form") as HTMLFormElement;
  (form.elements.namedItem("to") as HTMLInputElement).value = to;
  (form.elements.namedItem("replyToMessageId") as HTMLInputElement).value = replyTo;
  (form.elements.namedItem("body") as HTMLTextAreaElement).focus();
}

/** Requests to you already seen (notified or shown at load); undefined until the first render. */
let seenMine: Set<string> | undefined;

/** A browser notification for each new request to you, once the person allowed them (asked only on a click). */
function notifyNew(mine: UiMessage[]): void {
  const fresh = seenMine === undefined ? [] : mine.filter((message) => !seenMine!.has(message.id));
  seenMine = new Set([...(seenMine ?? []), ...mine.map((message) => message.id)]);
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  for (const message of fresh) new Notification(`peerpost: ${message.from} asks`, { body: message.body.slice(0, 200), tag: message.id });
}

function wireNotifications(): void {
  const button = $("#notify") as HTMLButtonElement;
  if (!("Notification" in window)) return;
  const show = () => {
    button.hidden = Notification.permission !== "default";
    $("#notify-state").textContent = Notification.permission === "granted" ? "notifications on" : "";
  };
  button.addEventListener("click", () => void Notification.requestPermission().then(show));
  show();
}

function wire(): void {
  wireNotifications();
  wireTaskForm(work);
  const filters = $("#filters") as HTMLFormElement;
  for (const name of ["session", "role"] as const) (filters.elements.namedItem(name) as HTMLSelectElement).addEventListener("change", (event) => setFilter(name, (event.target as HTMLSelectElement).value));
  for (const name of ["conversation", "q"] as const) {
    const input = filters.elements.namedItem(name) as HTMLInputElement;
    input.value = params.get(name) ?? "";
    let timer: ReturnType<typeof setTimeout> | undefined;
    input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => setFilter(name, input.value.trim()), 250);
    });
  }
  filters.addEventListener("submit", (event) => event.preventDefault());
  $("#clear-filters").addEventListener("click", () => {
    for (const name of FILTERS) params.delete(name);
    for (const name of ["conversation", "q"]) (filters.elements.namedItem(name) as HTMLInputElement).value = "";
    setFilter("session", "");
  });
  // Shown only once a state is drawn: its limit is the server's (DEFAULT_LIMIT in core/ui/filters.ts) or the URL's.
  $("#more").addEventListener("click", () => setFilter("limit", String(state!.filters.limit * 2)));
  const send = $("#send-form") as HTMLFormElement;
  send.addEventListener("submit", async (event) => {
    event.preventDefault();
    const field = (name: string) => (send.elements.namedItem(name) as HTMLInputElement).value;
    await holding([send.querySelector<HTMLButtonElement>('button[type="submit"]')], async () => {
      const result = await write("/api/send", { to: field("to").trim(), body: field("body"), anticipation: field("anticipation"), replyToMessageId: field("replyToMessageId").trim() || undefined });
      send.querySelector(".result")!.textContent = result;
      if (result.startsWith("done")) (send.elements.namedItem("body") as HTMLTextAreaElement).value = "";
    });
  });
}

const sync = new PageSync(params, token, { render, problem: showProblem, connected: () => Object.assign($("#live"), { className: "badge ok", textContent: "live" }) });
wire();
sync.start();
