// Every action's result is a live region (role="status"): the send form's and the new-task form's, and
// those beside Reply and Decline, a claim's Release and a task's Take/Done/Fail/Block, so a screen reader
// reads "done" or the refusal (already_resolved, claim_conflict, task_blocked).
import { test } from "node:test";
import assert from "node:assert/strict";
import { NO_CHROMIUM, openUiPage } from "./helpers/browser.js";
import { cli, registerSessions, startUi, uiEnv } from "./helpers/ui.js";
import { until } from "./helpers/poll.js";
import { createTask } from "../core/tasks/tasks.js";

test("every action's result on the page is a live region, as the send form's is", { skip: NO_CHROMIUM }, async (t) => {
  const env = { ...uiEnv(t), PEERPOST_USER: "person" };
  const ui = await startUi(t, { env });
  await registerSessions(ui.store, "claude:alice");
  assert.equal((await cli(env, "send", "--from", "claude:alice", "--to", "user:person", "--anticipation", "reply", "may I deploy?")).code, 0);
  await createTask(ui.store, { by: "claude:alice", title: "ship it" });
  const page = await openUiPage(t, ui.url);
  await until(async () => (await page.$("#mine .request .result")) !== null && (await page.$("#tasks .task .result")) !== null, 10_000, "the request and the task on the page");
  const roles = await page.evaluate(() =>
    Object.fromEntries(
      ["#send-form .result", "#task-form .result", "#mine .request .result", "#tasks .task .result"].map((selector) => {
        const node = document.querySelector(selector)!;
        return [selector, node.getAttribute("role") ?? node.getAttribute("aria-live")];
      }),
    ),
  );
  assert.deepEqual(roles, { "#send-form .result": "status", "#task-form .result": "status", "#mine .request .result": "status", "#tasks .task .result": "status" });
});
