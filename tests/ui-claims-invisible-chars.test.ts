// The claims panel shows a claim's repository and pattern made visible (a zero-width or format character
// as ⟨U+…⟩), and its Release button names the claim as stored: a claim on a path whose name has such a
// character (a Persian file name's zero-width non-joiner, U+200C) is released from the page.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { NO_CHROMIUM, openUiPage } from "./helpers/browser.js";
import { cliIn, startUi, uiEnv } from "./helpers/ui.js";
import { tempDir } from "./helpers/temp.js";
import { until } from "./helpers/poll.js";

function repository(t: TestContext): string {
  const repo = join(tempDir(t), "repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(join(repo, "docs"));
  return repo;
}

test("a claim on a path with a zero-width non-joiner is released from the page", { skip: NO_CHROMIUM }, async (t) => {
  const env: Record<string, string> = { ...uiEnv(t), PEERPOST_USER: "person" };
  const repo = repository(t);
  const ui = await startUi(t, { env });
  const path = "docs/می\u200Cخواهم.md";
  const claimed = await cliIn(env, repo, "claim", path, "--json");
  assert.equal(claimed.code, 0, claimed.stderr);
  const page = await openUiPage(t, ui.url);
  const mine = page.locator('#claims .claim[data-holder="user:person"]');
  await mine.waitFor({ timeout: 60_000 });
  const results: string[] = [];
  page.on("console", (message) => results.push(message.text()));
  await page.evaluate(() => {
    // What the row says, logged even when the row leaves the panel with the next state.
    new MutationObserver(() => { for (const node of document.querySelectorAll("#claims .result")) if (node.textContent) console.log(node.textContent); }).observe(document.getElementById("claims")!, { childList: true, characterData: true, subtree: true });
  });
  await mine.locator("button.release").click();
  const standing = async () => (JSON.parse((await cliIn(env, repo, "claims", "--json")).stdout) as { claims: unknown[] }).claims.length;
  await until(async () => results.length > 0 || (await standing()) === 0, 10_000, "the release's result on the page, or the claim gone");
  assert.equal(await standing(), 0, `the claim still stands; the page said: ${JSON.stringify(results)}`);
});
