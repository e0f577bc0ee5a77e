// Keyboard only: Send, pressed with Enter, is disabled while its write is on its way (so a double press
// sends once), and a focused button that is disabled drops the focus to <body>: the focus comes back to it
// afterwards, so a keyboard user who sent a message is where they were.
import { test } from "node:test";
import assert from "node:assert/strict";
import { NO_CHROMIUM } from "./helpers/browser.js";
import { pageAsPerson } from "./helpers/ui.js";
import { until } from "./helpers/poll.js";

test("after a send made with the keyboard, the focus is still in the send form", { skip: NO_CHROMIUM }, async (t) => {
  const { page } = await pageAsPerson(t);
  await page.focus('#send-form input[name="to"]');
  await page.keyboard.type("claude:alice");
  await page.focus('#send-form textarea[name="body"]');
  await page.keyboard.type("hello from the keyboard");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Send");
  await page.keyboard.press("Enter");
  await until(async () => ((await page.textContent("#send-form .result")) ?? "").startsWith("done"), 10_000, "the send's result on the page");
  const focused = await page.evaluate(() => {
    const active = document.activeElement;
    return { tag: active?.tagName, inForm: active !== null && document.getElementById("send-form")!.contains(active) };
  });
  assert.ok(focused.inForm, `the focus after the send: ${JSON.stringify(focused)}`);
});
