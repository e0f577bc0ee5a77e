// A double click on the page's buttons writes once: each button is held while its write is on its way. A
// double click on Send sends the message once, on Add task adds one task, and on Reply answers once and
// keeps showing "done", not the second click's already_resolved.
import { test } from "node:test";
import assert from "node:assert/strict";
import { NO_CHROMIUM, openUiPage } from "./helpers/browser.js";
import { cli, pageAsPerson, registerSessions, startUi, uiEnv } from "./helpers/ui.js";
import { until } from "./helpers/poll.js";
import { listTasks } from "../core/tasks/tasks.js";
import { openPeerpost } from "../core/peerpost.js";

const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));

test("a double click on Send sends the message once", { skip: NO_CHROMIUM }, async (t) => {
  const { env, page } = await pageAsPerson(t);
  await page.fill('#send-form input[name="to"]', "claude:alice");
  await page.fill('#send-form textarea[name="body"]', "deploy now, please");
  await page.dblclick('#send-form button[type="submit"]');
  await until(async () => ((await page.textContent("#send-form .result")) ?? "").length > 0, 10_000, "the send's result on the page");
  await settle();
  const sent = openPeerpost({ env, home: env.HOME! }).mailbox.inbox("claude:alice").filter((entry) => entry.body === "deploy now, please");
  assert.equal(sent.length, 1, `one double click sent ${sent.length} messages`);
});

test("a double click on Add task adds the task once", { skip: NO_CHROMIUM }, async (t) => {
  const { env, page } = await pageAsPerson(t);
  await page.evaluate(() => ((document.getElementById("task-new") as HTMLDetailsElement).open = true));
  await page.fill('#task-form input[name="title"]', "ship the release");
  await page.dblclick('#task-form button[type="submit"]');
  await until(async () => ((await page.textContent("#task-form .result")) ?? "").length > 0, 10_000, "the task's result on the page");
  await settle();
  const tasks = listTasks(openPeerpost({ env, home: env.HOME! })).filter((task) => task.title === "ship the release");
  assert.equal(tasks.length, 1, `one double click added ${tasks.length} tasks`);
});

test("a double click on Reply answers once and does not report the answer it made as already_resolved", { skip: NO_CHROMIUM }, async (t) => {
  const env0: Record<string, string> = { ...uiEnv(t), PEERPOST_USER: "person" };
  const ui = await startUi(t, { env: env0 });
  await registerSessions(ui.store, "claude:alice");
  const asked = await cli(env0, "send", "--from", "claude:alice", "--to", "user:person", "--anticipation", "reply", "--json", "may I deploy?");
  const id = (JSON.parse(asked.stdout) as { messageId: string }).messageId;
  const page = await openUiPage(t, ui.url);
  const request = `#mine .request[data-id="${id}"]`;
  // Keep the row after it is answered (it would leave the list with the next state), to read what it said.
  await page.evaluate((selector) => {
    const row = document.querySelector(selector)!;
    const results: string[] = [];
    new MutationObserver(() => results.push(row.querySelector(".result")!.textContent ?? "")).observe(row.querySelector(".result")!, { childList: true, characterData: true, subtree: true });
    (window as unknown as { __results: string[] }).__results = results;
  }, request);
  await page.fill(`${request} textarea`, "yes, go ahead");
  await page.dblclick(`${request} button:text("Reply")`);
  await until(() => openPeerpost({ env: env0, home: env0.HOME! }).mailbox.find(id)?.resolved?.resolution === "reply", 10_000, "the reply in the mailbox");
  await settle();
  const results = await page.evaluate(() => (window as unknown as { __results: string[] }).__results);
  assert.ok(results.length > 0, "the page said how the reply went");
  assert.doesNotMatch(results.at(-1)!, /already_resolved/, `the page's last word on the reply it made: ${JSON.stringify(results)}`);
});
