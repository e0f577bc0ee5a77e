// A refused write from the page says what to do to the person who reads it: the server answers with the
// hints written for a person (commands), not a model's ("Call `agents` …", "pass allowSelf: true"), and the
// page shows the hint after the code and message.
import { test } from "node:test";
import assert from "node:assert/strict";
import { launchBrowser, NO_CHROMIUM } from "./helpers/browser.js";
import { registerSessions, startUi, uiEnv, write } from "./helpers/ui.js";
import { until } from "./helpers/poll.js";

test("a refused write is answered with the person's hint, not the model's", async (t) => {
  const ui = await startUi(t, { env: { ...uiEnv(t), PEERPOST_USER: "person" } });
  const answer = await write(ui, "/api/send", { to: "claude:nobody", body: "hello?" });
  assert.equal(answer.status, 404);
  const { error } = JSON.parse(answer.body) as { error: { code: string; hint?: string } };
  assert.equal(error.code, "not_found");
  assert.ok(error.hint, "the refusal has a hint");
  assert.doesNotMatch(error.hint, /Call `agents`|includeUnseen/, `a person cannot call a tool: ${error.hint}`);
});

test("the page shows a refused send's hint beside its code and message", { skip: NO_CHROMIUM }, async (t) => {
  const ui = await startUi(t, { env: { ...uiEnv(t), PEERPOST_USER: "person" } });
  await registerSessions(ui.store, "claude:alice");
  const page = await (await launchBrowser(t)).newPage();
  await page.goto(ui.url);
  await page.waitForSelector("body[data-version]");
  await page.fill('#send-form input[name="to"]', "claude:nobody");
  await page.fill('#send-form textarea[name="body"]', "hello?");
  await page.click('#send-form button[type="submit"]');
  await until(async () => ((await page.textContent("#send-form .result")) ?? "") !== "", 10_000, "the send's result");
  const shown = (await page.textContent("#send-form .result")) ?? "";
  assert.match(shown, /^not_found: /);
  assert.match(shown, /peerpost agents/, `the page tells the person how to find an address: ${shown}`);
});
