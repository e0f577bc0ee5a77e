// A refused action on the claims panel (here state_io_error: the log's lock is held past the timeout, as
// when another process hangs holding it, or the database is away) keeps its code and hint beside the
// button: the fetch of the state that follows every write redraws only the claims that changed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { NO_CHROMIUM, openUiPage } from "./helpers/browser.js";
import { cliIn, startUi, uiEnv } from "./helpers/ui.js";
import { tempDir } from "./helpers/temp.js";
import { until } from "./helpers/poll.js";
import { lockLog } from "../core/log/lock.js";

test("a refused Release keeps saying why on the claims panel", { skip: NO_CHROMIUM }, async (t) => {
  const env: Record<string, string> = { ...uiEnv(t), PEERPOST_USER: "person", PEERPOST_LOCK_TIMEOUT_MS: "300" };
  const repo = join(tempDir(t), "repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
  const ui = await startUi(t, { env });
  assert.equal((await cliIn(env, repo, "claim", "src/a.ts", "--json")).code, 0);
  const page = await openUiPage(t, ui.url);
  const mine = page.locator('#claims .claim[data-holder="user:person"]');
  await mine.waitFor({ timeout: 60_000 });
  // Another process holds the mailbox's lock (and keeps it fresh) while the person clicks Release.
  const unlock = await lockLog(ui.store.mailbox.log.path, { lockStaleMs: 60_000, lockTimeoutMs: 1000 } as never);
  t.after(() => unlock());
  await page.evaluate(() => {
    const results: string[] = [];
    new MutationObserver(() => { for (const node of document.querySelectorAll("#claims .result")) if (node.textContent) results.push(node.textContent); }).observe(document.getElementById("claims")!, { childList: true, characterData: true, subtree: true });
    (window as unknown as { __results: string[] }).__results = results;
  });
  await mine.locator("button.release").click();
  await until(async () => (await page.evaluate(() => (window as unknown as { __results: string[] }).__results)).length > 0, 10_000, "the release's result on the page");
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const said = await page.evaluate(() => (window as unknown as { __results: string[] }).__results);
  assert.match(said[0]!, /state_io_error/, JSON.stringify(said));
  assert.equal(await mine.count(), 1, "the claim stands");
  assert.match((await mine.locator(".result").textContent()) ?? "", /state_io_error/, "what the claim's row says 1.5 s after the refusal");
});
