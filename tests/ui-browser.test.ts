// The web view in a real browser (Debian's Chromium): what a person sees, live updates from the CLI,
// hostile bodies that stay text, writes from the page, and refusals. Screenshots go to tests/artifacts/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { monotonicFactory } from "ulid";
import { artifactPath, launchBrowser, NO_CHROMIUM } from "./helpers/browser.js";
import { cli, registerSessions, startUi, uiEnv, type RunningUi } from "./helpers/ui.js";
import { until } from "./helpers/poll.js";
import { tempDir } from "./helpers/temp.js";

const HOSTILE = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b>bold</b> \u202Egnp.exe\u202C zero\u200Bwidth`;

async function openPage(t: Parameters<typeof launchBrowser>[0], ui: RunningUi, viewport = { width: 1200, height: 900 }): Promise<{ page: Page; errors: string[] }> {
  const browser = await launchBrowser(t);
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  const response = await page.goto(ui.url);
  assert.equal(response?.status(), 200);
  await page.waitForSelector("body[data-version]");
  return { page, errors };
}

test("the page shows a conversation and updates live after a CLI send and reply", { skip: NO_CHROMIUM }, async (t) => {
  const env = uiEnv(t);
  const ui = await startUi(t, { env });
  await registerSessions(ui.store, "claude:alice", "codex:bob");
  await ui.store.sessions.register({ host: "codex", address: "codex:bob", sessionId: "bob", source: "server", roles: ["reviewer"], push: "app-server" });
  const first = await cli(env, "send", "--from", "claude:alice", "--to", "codex:bob", "--anticipation", "reply", "--json", "please review the storage change");
  const { messageId } = JSON.parse(first.stdout) as { messageId: string };
  const { page, errors } = await openPage(t, ui);
  await page.locator(".message", { hasText: "please review the storage change" }).waitFor();
  assert.equal(await page.locator(`.message[data-id="${messageId}"] [data-status]`).textContent(), "queued");
  const bob = page.locator('.session[data-address="codex:bob"]');
  assert.match((await bob.textContent()) ?? "", /\/work\/bob.*push: app-server.*roles: reviewer/s);
  assert.match((await bob.locator(".waiting").textContent()) ?? "", /1 waiting on it/);
  await page.screenshot({ path: artifactPath("ui-conversation.png"), fullPage: true });

  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
  const second = await cli(env, "send", "--from", "codex:bob", "--to", "claude:alice", "a new note from the command line");
  assert.equal(second.code, 0, second.stderr);
  await page.locator(".message", { hasText: "a new note from the command line" }).waitFor({ timeout: 60_000 });
  await cli(env, "reply", messageId, "--as", "codex:bob", "--reply", "looks good");
  await page.locator(`.message[data-id="${messageId}"] [data-status="replied"]`).waitFor({ timeout: 60_000 });
  assert.equal(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument), true, "updated without a reload");
  assert.equal(await page.locator("#live").textContent(), "live");
  await page.screenshot({ path: artifactPath("ui-live.png"), fullPage: true });

  // Filters live in the URL: clicking a session keeps only its traffic, and a reload keeps the filter.
  await page.locator('#conversations .message[data-id] .head button', { hasText: "claude:alice" }).first().click();
  await until(async () => new URL(page.url()).searchParams.get("session") === "claude:alice", 10_000, "the session filter in the URL");
  await page.fill('#filters input[name="q"]', "STORAGE");
  await until(async () => (await page.locator("#conversations .thread").count()) === 1 && new URL(page.url()).searchParams.get("q") === "STORAGE", 10_000, "the search to narrow the threads");
  await page.reload();
  await page.waitForSelector("body[data-version]");
  assert.equal(await page.inputValue('#filters input[name="q"]'), "STORAGE");
  assert.equal(await page.locator("#conversations .thread").count(), 1);

  // A narrow window: one column, nothing wider than the window.
  await page.setViewportSize({ width: 380, height: 800 });
  await page.goto(ui.url);
  await page.waitForSelector("body[data-version]");
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), "no horizontal scrolling at 380 px");
  await page.screenshot({ path: artifactPath("ui-narrow.png"), fullPage: true });
  assert.deepEqual(errors, []);
});

test("the page opens with the newest 20 conversations; show more doubles that in the URL and draws the rest", { skip: NO_CHROMIUM }, async (t) => {
  const env = uiEnv(t);
  const newId = monotonicFactory();
  const start = Date.parse("2026-06-01T00:00:00Z");
  const lines = Array.from({ length: 25 }, (_, i) => {
    const id = newId(start + i * 1000);
    return JSON.stringify({ v: 1, type: "msg", id, from: "claude:alice", fromVerified: true, to: "codex:bob", sentAt: new Date(start + i * 1000).toISOString(), anticipation: "fyi", conversationId: id, hop: 1, body: `note ${i}` });
  });
  mkdirSync(env.PEERPOST_HOME!, { recursive: true, mode: 0o700 });
  writeFileSync(join(env.PEERPOST_HOME!, "mailbox.jsonl"), lines.join("\n") + "\n", { mode: 0o600 });
  const ui = await startUi(t, { env });
  const { page, errors } = await openPage(t, ui);
  assert.equal(await page.locator("#conversations .thread").count(), 20);
  assert.equal(await page.locator("#more").isVisible(), true);
  await page.click("#more");
  await until(async () => new URL(page.url()).searchParams.get("limit") === "40" && (await page.locator("#conversations .thread").count()) === 25, 10_000, "all 25 conversations under limit=40");
  assert.equal(await page.locator("#more").isVisible(), false, "nothing more to show");
  assert.deepEqual(errors, []);
});

test("hostile bodies, titles and dirs stay text: no script runs, no markup appears, markup cannot be inserted", { skip: NO_CHROMIUM }, async (t) => {
  const env = uiEnv(t);
  const ui = await startUi(t, { env });
  await ui.store.sessions.register({ host: "claude-code", address: "claude:mallory", sessionId: "mallory", source: "startup", cwd: `/tmp/<img src=x onerror="window.__pwned=3">`, title: `<script>window.__pwned=4</script>\u202Etitle` });
  await registerSessions(ui.store, "codex:bob");
  const sent = await cli(env, "send", "--from", "claude:mallory", "--to", "codex:bob", "--anticipation", "reply", HOSTILE);
  assert.equal(sent.code, 0, sent.stderr);
  await cli(env, "reply", ui.store.mailbox.inbox("codex:bob")[0]!.message.id, "--as", "codex:bob", "--decline", `<iframe src="https://example.com"></iframe>`);
  const { page } = await openPage(t, ui);
  const body = page.locator("#conversations .message .body").first();
  await body.waitFor();
  const text = (await body.textContent()) ?? "";
  assert.ok(text.includes(`<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b>bold</b>`), `the markup shows as text: ${text}`);
  assert.ok(text.includes("⟨U+202E⟩gnp.exe⟨U+202C⟩") && text.includes("zero⟨U+200B⟩width"), `bidi and invisible characters are visible: ${text}`);
  assert.equal(await page.locator("main img, main script, main b, main iframe").count(), 0, "no element came from a body");
  assert.match((await page.locator('.session[data-address="claude:mallory"]').textContent()) ?? "", /<script>window.__pwned=4<\/script>⟨U\+202E⟩title.*<img src=x/s);
  assert.match((await page.locator(".reason").first().textContent()) ?? "", /<iframe src="https:\/\/example.com"><\/iframe>/);
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined, "no script ran");
  const inserted = await page.evaluate(() => {
    try {
      document.body.innerHTML = "<b>x</b>";
      return "inserted";
    } catch (error) {
      return (error as Error).name;
    }
  });
  assert.equal(inserted, "TypeError", "Trusted Types refuse a string turned into markup");
  const inline = await page.evaluate(() => {
    try {
      const script = document.createElement("script");
      script.textContent = "window.__inline = 1";
      document.head.append(script);
    } catch {
      // Trusted Types refuse the script's text itself.
    }
    return (window as unknown as { __inline?: number }).__inline;
  });
  assert.equal(inline, undefined, "the CSP refuses inline script");
  await page.screenshot({ path: artifactPath("ui-hostile.png"), fullPage: true });
});

test("a person sends, replies and declines from the page as their user:<name>", { skip: NO_CHROMIUM }, async (t) => {
  const env = { ...uiEnv(t), PEERPOST_USER: "person" };
  const ui = await startUi(t, { env });
  await registerSessions(ui.store, "claude:alice");
  const ids: string[] = [];
  for (const text of ["may I deploy?", "may I delete the branch?"]) ids.push((JSON.parse((await cli(env, "send", "--from", "claude:alice", "--to", "user:person", "--anticipation", "reply", "--json", text)).stdout) as { messageId: string }).messageId);
  const { page, errors } = await openPage(t, ui);
  assert.match((await page.locator("#author").textContent()) ?? "", /writing as user:person/);
  await page.locator(`#mine .request[data-id="${ids[0]}"]`).waitFor();
  await page.fill(`#mine .request[data-id="${ids[0]}"] textarea`, "yes, go ahead");
  // A change elsewhere while the person types must not wipe the text.
  await cli(env, "send", "--from", "claude:alice", "--to", "user:person", "an fyi meanwhile");
  await page.locator(".message", { hasText: "an fyi meanwhile" }).waitFor({ timeout: 60_000 });
  assert.equal(await page.inputValue(`#mine .request[data-id="${ids[0]}"] textarea`), "yes, go ahead");
  await page.click(`#mine .request[data-id="${ids[0]}"] button:text("Reply")`);
  await until(() => ui.store.mailbox.find(ids[0]!)?.resolved?.resolution === "reply", 10_000, "the reply in the mailbox");
  await page.fill(`#mine .request[data-id="${ids[1]}"] textarea`, "not yet");
  await page.click(`#mine .request[data-id="${ids[1]}"] button:text("Decline")`);
  await until(() => ui.store.mailbox.find(ids[1]!)?.resolved?.resolution === "decline", 10_000, "the decline in the mailbox");
  await until(async () => (await page.locator("#mine .request").count()) === 0, 10_000, "answered requests to leave the list");

  assert.equal(await page.locator("#compose").getAttribute("open"), "", "compose is open, not collapsed");
  await page.fill('#send-form input[name="to"]', "claude:alice");
  await page.fill('#send-form textarea[name="body"]', "sent from the page");
  await page.click('#send-form button[type="submit"]');
  await until(() => ui.store.mailbox.inbox("claude:alice").some((entry) => entry.body === "sent from the page" && entry.message.from === "user:person"), 10_000, "the page's message in alice's inbox");
  const reply = ui.store.mailbox.inbox("claude:alice").find((entry) => entry.body === "yes, go ahead");
  assert.equal(reply?.message.from, "user:person");
  assert.equal(ui.store.mailbox.find(ids[1]!)?.resolved?.reason, "not yet");
  await page.locator(".message", { hasText: "sent from the page" }).waitFor({ timeout: 60_000 });
  await page.screenshot({ path: artifactPath("ui-writing.png"), fullPage: true });
  assert.deepEqual(errors, []);
});

test("in the browser, a missing token is 401 and a rebound host name is 403", { skip: NO_CHROMIUM }, async (t) => {
  const ui = await startUi(t);
  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  const missing = await page.goto(`http://127.0.0.1:${ui.port}/`);
  assert.equal(missing?.status(), 401);
  const wrong = await page.goto(`http://127.0.0.1:${ui.port}/?token=guess`);
  assert.equal(wrong?.status(), 403);
  const rebound = await page.goto(`http://evil.test:${ui.port}/?token=${ui.token}`);
  assert.equal(rebound?.status(), 403, "evil.test resolves to 127.0.0.1 but is refused by its Host");
  assert.doesNotMatch(await page.content(), new RegExp(ui.token));
  // A page on another origin cannot read the API even knowing the token.
  const read = await page.evaluate(async (url) => {
    try {
      const response = await fetch(url);
      return `read ${response.status}`;
    } catch (error) {
      return `refused ${(error as Error).name}`;
    }
  }, `http://127.0.0.1:${ui.port}/api/state?token=${ui.token}`);
  assert.match(read, /^refused/);
  await page.screenshot({ path: artifactPath("ui-refused.png") });
});

test("the browser opened at the one-time URL lands on the page with the token, reloads it, and the same URL works only once", { skip: NO_CHROMIUM }, async (t) => {
  const dir = tempDir(t);
  const seen = join(dir, "seen");
  const opener = join(dir, "opener.sh");
  writeFileSync(opener, `#!/bin/sh\nprintf '%s' "$1" > '${seen}'\n`, { mode: 0o755 });
  const ui = await startUi(t, { env: { ...uiEnv(t), BROWSER: opener }, args: [] });
  await until(() => existsSync(seen) && readFileSync(seen, "utf8") !== "", 10_000, "the opener to get the URL");
  const openingUrl = readFileSync(seen, "utf8");
  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  await page.goto(openingUrl);
  await page.waitForSelector("body[data-version]");
  assert.equal(new URL(page.url()).searchParams.get("token"), ui.token);
  assert.equal(await page.locator("#live").textContent(), "live");
  assert.equal((await page.reload())?.status(), 200, "a reload of the page it landed on");
  const second = await browser.newPage();
  assert.equal((await second.goto(openingUrl))?.status(), 401, "the code is used up");
});

test("a long body folds with show all; a conversation's URL opens its thread; receipts read as sentences; to completes roles", { skip: NO_CHROMIUM }, async (t) => {
  const env = { ...uiEnv(t), PEERPOST_USER: "person" };
  const ui = await startUi(t, { env });
  await registerSessions(ui.store, "claude:alice", "codex:bob");
  await ui.store.sessions.register({ host: "codex", address: "codex:bob", sessionId: "bob", source: "server", roles: ["reviewer"] });
  const long = Array.from({ length: 60 }, (_, index) => `line ${index + 1} of the build log`).join("\n");
  const sent = JSON.parse((await cli(env, "send", "--from", "claude:alice", "--to", "codex:bob", "--json", long)).stdout) as { messageId: string; conversationId: string };
  const other = JSON.parse((await cli(env, "send", "--from", "codex:bob", "--to", "claude:alice", "--json", "another conversation")).stdout) as { conversationId: string };
  const { page, errors } = await openPage(t, ui);
  const body = page.locator(`.message[data-id="${sent.messageId}"] .body`);
  await body.waitFor();
  const folded = (await body.boundingBox())!.height;
  assert.ok(folded < 250, `a 60-line body shows its start (${folded} px)`);
  await page.click(`.message[data-id="${sent.messageId}"] button.show-all`);
  assert.ok((await body.boundingBox())!.height > 800, "show all shows the whole body");
  assert.equal(await page.locator(`.message[data-id="${sent.messageId}"] button.show-all`).textContent(), "show less");
  // Times read as in the CLI: local time with its offset, and how long ago.
  assert.match((await page.locator(`.message[data-id="${sent.messageId}"] .times .time`).first().textContent()) ?? "", /^sent \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d \(\d+ (s|min) ago\)$/);

  // Receipts are sentences, with the raw fields one click away.
  assert.match((await page.locator("#receipts .receipt .sentence").last().textContent()) ?? "", new RegExp(`^send by claude:alice to codex:bob \\(cli\\), queued: message ${sent.messageId}; identity explicit \\(--from\\)`));
  // "to" completes from sessions, people and roles.
  const options = await page.locator("#addresses option").evaluateAll((nodes) => nodes.map((node) => (node as HTMLOptionElement).value));
  for (const address of ["claude:alice", "codex:bob", "role:reviewer"]) assert.ok(options.includes(address), address);

  // The conversation's own URL: opened directly, it shows that thread alone.
  const href = await page.locator(`.thread[data-conversation="${sent.conversationId}"] .thread-head a`).getAttribute("href");
  assert.equal(href, `?token=${ui.token}&conversation=${sent.conversationId}`);
  await page.goto(new URL(href!, ui.url).toString());
  await page.waitForSelector("body[data-version]");
  await page.locator(`.thread[data-conversation="${sent.conversationId}"]`).waitFor();
  assert.equal(await page.locator(".thread").count(), 1);
  assert.equal(await page.locator(`.thread[data-conversation="${other.conversationId}"]`).count(), 0);
  assert.deepEqual(errors, []);
});

test("👩🏽‍💻 shows as one emoji while U+202E shows as ⟨U+202E⟩; an empty store says how to set peerpost up", { skip: NO_CHROMIUM }, async (t) => {
  const env = uiEnv(t);
  const ui = await startUi(t, { env });
  const { page: empty } = await openPage(t, ui);
  assert.match((await empty.locator("#sessions .list").textContent()) ?? "", /No sessions yet\..*peerpost doctor/s);
  assert.match((await empty.locator("#conversations .list").textContent()) ?? "", /No conversations yet\..*npm run demo/s);
  await registerSessions(ui.store, "claude:alice", "codex:bob");
  await cli(env, "send", "--from", "claude:alice", "--to", "codex:bob", "pair with me 👩🏽‍💻 then \u202Egnp.exe");
  const { page, errors } = await openPage(t, ui);
  const body = page.locator(".message .body", { hasText: "pair with me" });
  await body.waitFor();
  const text = (await body.textContent()) ?? "";
  assert.ok(text.includes("👩🏽‍💻"), "the emoji sequence is there whole");
  assert.ok(!text.includes("⟨U+200D⟩"), "its joiner is not escaped");
  assert.ok(text.includes("⟨U+202E⟩gnp.exe") && !text.includes("\u202E"), "the bidi control is escaped");
  // One emoji: the browser's own segmentation sees one grapheme where the sequence stands.
  const graphemes = await body.evaluate((node) => [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(node.textContent ?? "")].filter((part) => part.segment.includes("💻")).map((part) => part.segment));
  assert.deepEqual(graphemes, ["👩🏽‍💻"]);
  assert.deepEqual(errors, []);
});

test("markdown renders as formatting, while raw HTML in it stays text and only http(s) links are links", { skip: NO_CHROMIUM }, async (t) => {
  const env = uiEnv(t);
  const ui = await startUi(t, { env });
  await registerSessions(ui.store, "claude:alice", "codex:bob");
  const markdown = "## Plan\n\n**bold** and `npm test` and <b>raw</b> <img src=x onerror=\"window.__pwned=5\">\n\n- [docs](https://example.com/docs)\n- [bad](javascript:window.__pwned=6)\n\n```sh\nnpm run demo\n```";
  await cli(env, "send", "--from", "claude:alice", "--to", "codex:bob", markdown);
  const { page, errors } = await openPage(t, ui);
  const body = page.locator(".message .body", { hasText: "Plan" });
  await body.waitFor();
  assert.equal(await body.locator("h4").textContent(), "Plan");
  assert.equal(await body.locator("strong").textContent(), "bold");
  assert.equal(await body.locator("p code").textContent(), "npm test");
  assert.equal(await body.locator("pre code").textContent(), "npm run demo");
  assert.deepEqual(await body.locator("li").allTextContents(), ["docs", "bad"]);
  assert.equal(await body.locator("a").count(), 1);
  assert.equal(await body.locator("a").getAttribute("href"), "https://example.com/docs");
  // Raw HTML is shown as its source: no element made from it, no script run.
  assert.equal(await body.locator("b, img").count(), 0);
  assert.match((await body.textContent()) ?? "", /<b>raw<\/b> <img src=x onerror="window.__pwned=5">/);
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  assert.deepEqual(errors, []);
});

test("a link in a body opens in a new tab with no handle back on the page and no referrer", { skip: NO_CHROMIUM }, async (t) => {
  // The landing page is another origin, as any link's would be.
  const landing = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html" });
    response.end("<!doctype html><title>elsewhere</title><p>elsewhere</p>");
  });
  await new Promise<void>((resolve) => landing.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => landing.close(() => resolve())));
  const target = `http://evil.test:${(landing.address() as AddressInfo).port}/landing`;
  const env = uiEnv(t);
  const ui = await startUi(t, { env });
  await registerSessions(ui.store, "claude:alice", "codex:bob");
  await cli(env, "send", "--from", "claude:alice", "--to", "codex:bob", `see [the landing](${target})`);
  const { page } = await openPage(t, ui);
  const link = page.locator(".message .body a", { hasText: "the landing" });
  await link.waitFor();
  const [opened] = await Promise.all([page.context().waitForEvent("page"), link.click()]);
  await opened.waitForLoadState();
  assert.equal(opened.url(), target);
  assert.deepEqual(await opened.evaluate(() => ({ opener: window.opener, referrer: document.referrer })), { opener: null, referrer: "" });
});

test("the page arrives with its state and styles: drawn without a fetch, updated by pushed deltas, and a body that would end the data block stays text", { skip: NO_CHROMIUM }, async (t) => {
  const env = uiEnv(t);
  const ui = await startUi(t, { env });
  await registerSessions(ui.store, "claude:alice", "codex:bob");
  const breakout = `</script><script>window.__pwned=5</script><!-- <style>body{display:none}</style>`;
  assert.equal((await cli(env, "send", "--from", "claude:alice", "--to", "codex:bob", breakout)).code, 0);
  const browser = await launchBrowser(t);

  // Before any script runs (none can here), the page is laid out by its own stylesheet, and the CSP let it apply.
  const still = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
  await still.goto(ui.url);
  assert.equal(await still.locator("h1").textContent(), "peerpost");
  assert.equal(await still.evaluate(() => getComputedStyle(document.querySelector("header")!).display), "flex");
  assert.equal(await still.locator("#conversations h2").isVisible(), true);

  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
  const fetched: string[] = [];
  page.on("request", (request) => new URL(request.url()).pathname === "/api/state" && fetched.push(request.url()));
  await page.goto(ui.url);
  await page.locator("#conversations .message .body", { hasText: "window.__pwned=5" }).waitFor();
  assert.ok(((await page.locator("#conversations .message .body").first().textContent()) ?? "").includes(breakout), "the body shows as written");
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined, "no script ran");
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).display), "block");
  assert.deepEqual(fetched, [], "the first state came with the page");

  // A CLI send reaches the page as a delta on its event stream: still no fetch, nothing reloaded.
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
  assert.equal((await cli(env, "send", "--from", "codex:bob", "--to", "claude:alice", "pushed, not fetched")).code, 0);
  await page.locator(".message", { hasText: "pushed, not fetched" }).waitFor({ timeout: 60_000 });
  assert.equal(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument), true);
  assert.deepEqual(fetched, [], "the update came as a delta");
  assert.deepEqual(errors, []);
});
