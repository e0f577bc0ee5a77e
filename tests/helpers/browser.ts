// Debian's Chromium driven by playwright-core (no browser download), with the flags that keep it
// offline and quiet. `evil.test` resolves to 127.0.0.1 inside it, as a rebound DNS name would.
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { TestContext } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { onCleanup } from "./temp.js";

export const CHROMIUM = "/usr/bin/chromium";
export const NO_CHROMIUM = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (apt-get install -y chromium; .ci/run installs it)`;
export const ARTIFACTS = fileURLToPath(new URL("../../../tests/artifacts/", import.meta.url));

const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync", "--host-resolver-rules=MAP evil.test 127.0.0.1"];

export async function launchBrowser(t: TestContext): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  onCleanup(t, () => browser.close());
  return browser;
}

export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return `${ARTIFACTS}${name}`;
}

/** A page of the running web view at `url`, in a browser of its own, once the page has started. */
export async function openUiPage(t: TestContext, url: string): Promise<Page> {
  const browser = await launchBrowser(t);
  const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
  await page.goto(url);
  await page.waitForSelector("body[data-version]");
  return page;
}
