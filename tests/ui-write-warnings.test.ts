// A write from the page that succeeded with warnings (the recipient is not running, or its process left it
// for another session after /clear; the receipt could not be written, "do not repeat it") says them beside
// "done (id)", as the server sends them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { NO_CHROMIUM } from "./helpers/browser.js";
import { pageAsPerson } from "./helpers/ui.js";
import { until } from "./helpers/poll.js";

test("a send from the page to a session that is not running says so beside its result", { skip: NO_CHROMIUM }, async (t) => {
  // Registered with no host process: not running, and the CLI and the tool warn recipient_not_running.
  const { page } = await pageAsPerson(t);
  await page.fill('#send-form input[name="to"]', "claude:alice");
  await page.fill('#send-form textarea[name="body"]', "are you there?");
  await page.click('#send-form button[type="submit"]');
  await until(async () => ((await page.textContent("#send-form .result")) ?? "").startsWith("done"), 10_000, "the send's result on the page");
  const shown = (await page.textContent("#send-form .result")) ?? "";
  assert.match(shown, /not running/, `the page's result for a send the server answered with a warning: ${JSON.stringify(shown)}`);
});
