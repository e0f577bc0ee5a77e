// Browser notifications in the web view, in a real Chromium: permission is asked only when the person
// clicks, and once granted, each new request to the person shows one notification (none for mail that
// was there at load, none for fyi, none for mail to others). The page's own Notification calls are
// recorded by an init script that passes each one on to the browser's real Notification.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { launchBrowser, NO_CHROMIUM } from "./helpers/browser.js";
import { cli, registerSessions, startUi, uiEnv } from "./helpers/ui.js";
import { until } from "./helpers/poll.js";

interface Recorded {
  asked: number;
  shown: Array<{ title: string; body: string; tag: string }>;
}

/** Wraps the page's Notification: counts permission requests and records each notification, then does the real thing. */
function recordNotifications(): void {
  const Real = window.Notification;
  const recorded: Recorded = { asked: 0, shown: [] };
  (window as unknown as { __notifications: Recorded }).__notifications = recorded;
  class Recording extends Real {
    constructor(title: string, options: NotificationOptions = {}) {
      super(title, options);
      recorded.shown.push({ title, body: options.body ?? "", tag: options.tag ?? "" });
    }
    static override requestPermission(...args: Parameters<typeof Real.requestPermission>): Promise<NotificationPermission> {
      recorded.asked++;
      return Real.requestPermission(...args);
    }
    static override get permission(): NotificationPermission {
      return Real.permission;
    }
  }
  window.Notification = Recording as typeof Notification;
}

const recorded = (page: Page) => page.evaluate(() => (window as unknown as { __notifications: Recorded }).__notifications);

test("notifications: asked for only on a click; once granted, one per new request to the person", { skip: NO_CHROMIUM }, async (t) => {
  const env = { ...uiEnv(t), PEERPOST_USER: "pat" };
  const ui = await startUi(t, { env });
  await registerSessions(ui.store, "claude:alice", "codex:bob");
  const before = await cli(env, "send", "--from", "claude:alice", "--to", "user:pat", "--anticipation", "reply", "--json", "a request already waiting");
  assert.equal(before.code, 0, before.stderr);

  const browser = await launchBrowser(t);
  const origin = new URL(ui.url).origin;

  // Not granted yet: the page shows the button and asks nothing until it is clicked.
  const asking = await browser.newContext();
  await asking.addInitScript(recordNotifications);
  const first = await asking.newPage();
  await first.goto(ui.url);
  await first.waitForSelector("body[data-version]");
  await first.locator(".message", { hasText: "a request already waiting" }).first().waitFor();
  assert.equal(await first.evaluate(() => Notification.permission), "default");
  assert.equal(await first.locator("#notify").isVisible(), true, "the button that turns notifications on");
  assert.equal((await recorded(first)).asked, 0, "no permission prompt at load");
  await first.locator("#notify").click();
  await until(async () => (await recorded(first)).asked === 1, 10_000, "the click to ask for permission");
  await asking.close();

  // Granted: the page says so, and new requests to pat show one notification each.
  const granted = await browser.newContext();
  await granted.grantPermissions(["notifications"], { origin });
  await granted.addInitScript(recordNotifications);
  const page = await granted.newPage();
  await page.goto(ui.url);
  await page.waitForSelector("body[data-version]");
  await page.locator(".message", { hasText: "a request already waiting" }).first().waitFor();
  assert.equal(await page.locator("#notify").isVisible(), false);
  assert.equal(await page.locator("#notify-state").textContent(), "notifications on");

  const fyi = await cli(env, "send", "--from", "codex:bob", "--to", "user:pat", "--anticipation", "fyi", "just so you know");
  const others = await cli(env, "send", "--from", "codex:bob", "--to", "claude:alice", "--anticipation", "reply", "a request to someone else");
  const asked = await cli(env, "send", "--from", "codex:bob", "--to", "user:pat", "--anticipation", "reply", "--json", "which port does the api use?");
  for (const sent of [fyi, others, asked]) assert.equal(sent.code, 0, sent.stderr);
  const { messageId } = JSON.parse(asked.stdout) as { messageId: string };
  await page.locator(".message", { hasText: "which port does the api use?" }).first().waitFor();
  await until(async () => (await recorded(page)).shown.length > 0, 10_000, "the notification of the new request");
  // The fyi and the request to alice were sent first: had either notified, it would be here by now.
  assert.deepEqual((await recorded(page)).shown, [{ title: "peerpost: codex:bob asks", body: "which port does the api use?", tag: messageId }]);
  assert.equal((await recorded(page)).asked, 0, "permission already granted: nothing asked");
});
