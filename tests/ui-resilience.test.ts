// The web view under what it must survive: a store it cannot read for a while (no descriptors left),
// a body whose markdown nests past the lexer's recursion, ids and role names that name members of
// Object.prototype, and more tabs open than a browser opens connections to one origin.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { connect, type Socket } from "node:net";
import { readFileSync } from "node:fs";
import { until } from "./helpers/poll.js";
import { CLI } from "./helpers/mcp.js";
import type { Page } from "playwright-core";
import { launchBrowser, NO_CHROMIUM } from "./helpers/browser.js";
import { registerSessions, startUi, uiEnv, write } from "./helpers/ui.js";
import { openPeerpost } from "../core/peerpost.js";

test("with every descriptor taken, a change in the store does not end the ui process, and it serves again once they are back", async (t) => {
  const env = uiEnv(t);
  // A low descriptor limit stands in for a machine's: any local process may open connections, no token needed.
  const child = spawn("/bin/sh", ["-c", `ulimit -n 64 && exec "${process.execPath}" "${CLI}" ui --no-open`], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<string>((resolve) => child.on("exit", (code, signal) => resolve(`exited ${code ?? signal}`)));
  t.after(() => void child.kill());
  const url = await new Promise<string>((resolve) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()) && /http:\S+/.test(out) && resolve(/http:\S+/.exec(out)![0]));
  });
  const sockets: Socket[] = [];
  t.after(() => sockets.forEach((socket) => socket.destroy()));
  for (let i = 0; i < 120; i++) {
    sockets.push(connect(Number(new URL(url).port), "127.0.0.1").on("error", () => undefined));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  // Any session's ordinary activity meanwhile: a receipt appended.
  const store = openPeerpost({ env, home: env.HOME! });
  t.after(() => store.backend.close());
  await store.receipts.record({ kind: "send", from: "user:x", to: "claude:y", messageId: "01J00000000000000000000000", host: "ui", delivery: "queued", warnings: [], origin: { source: "explicit", detail: "test", pid: 1, cwd: "/" } } as never);
  const outcome = await Promise.race([exited, new Promise<string>((resolve) => setTimeout(() => resolve("running"), 5_000))]);
  assert.equal(outcome, "running", stderr.split("\n").filter((line) => line.length < 300).join("\n"));
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const page = await fetch(url);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /claude:y/, "the receipt appended meanwhile is in the state");
});

test("a body of deeply nested markdown is shown as its text, and the rest of the page is drawn and live", { skip: NO_CHROMIUM }, async (t) => {
  const ui = await startUi(t, { env: uiEnv(t) });
  await registerSessions(ui.store, "claude:alice", "codex:bob");
  await ui.store.mailbox.send({ from: "claude:alice", fromVerified: false, to: "codex:bob", body: "an ordinary note" });
  await ui.store.mailbox.send({ from: "claude:alice", fromVerified: false, to: "codex:bob", body: ">".repeat(20_000) });
  const page = await (await launchBrowser(t)).newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(ui.url);
  await page.waitForSelector("body[data-version]");
  assert.equal(await page.locator(".message", { hasText: "an ordinary note" }).count(), 1, "the other conversation is drawn");
  assert.equal(await page.locator(".message .body p", { hasText: ">>>>>>>>>>" }).count(), 1, "the nested body is shown as text");
  assert.ok((await page.locator("#health .list > *").count()) > 0, "the panels after the conversations are drawn");
  await page.locator("#live", { hasText: "live" }).waitFor();
  assert.deepEqual(errors, []);
});

test("ids and role names that name Object.prototype members are not found, not internal errors", async (t) => {
  const ui = await startUi(t, { env: { ...uiEnv(t), PEERPOST_USER: "ana" } });
  await registerSessions(ui.store, "claude:alice");
  const cases: Array<[string, unknown]> = [
    ["/api/send", { to: "claude:alice", body: "x", replyToMessageId: "constructor" }],
    ["/api/task", { action: "claim", id: "__proto__" }],
    ["/api/task", { action: "done", id: "toString", note: "n" }],
    ["/api/task", { action: "add", title: "t", after: ["constructor"] }],
    ["/api/resolve", { id: "constructor", resolution: "decline" }],
    ["/api/send", { to: "role:constructor", body: "x" }],
  ];
  const answers = [];
  for (const [path, body] of cases) {
    const answer = await write(ui, path, body);
    answers.push(`${path} ${answer.status} ${(JSON.parse(answer.body) as { error?: { code: string } }).error?.code ?? "ok"}`);
  }
  assert.deepEqual(answers, cases.map(([path]) => `${path} 404 not_found`));
});

test("six open tabs leave room for writes and a seventh tab: hidden ones let their streams go, the first keeps its own, and one shown again catches up", { skip: NO_CHROMIUM }, async (t) => {
  const ui = await startUi(t, { env: { ...uiEnv(t), PEERPOST_USER: "ana" } });
  await registerSessions(ui.store, "claude:alice");
  const context = await (await launchBrowser(t)).newContext();
  const tabs: Page[] = [];
  for (let i = 0; i < 6; i++) {
    const page = await context.newPage();
    await page.goto(ui.url);
    await page.locator("#live", { hasText: "live" }).waitFor();
    tabs.push(page);
  }
  // The person moves to other tabs: these five are hidden (headless Chromium shows every tab, so they are told so).
  const setHidden = (page: Page, hidden: boolean) =>
    page.evaluate((value) => {
      Object.defineProperty(document, "visibilityState", { configurable: true, get: () => (value ? "hidden" : "visible") });
      document.dispatchEvent(new Event("visibilitychange"));
    }, hidden);
  for (const page of tabs.slice(1)) await setHidden(page, true);
  const write = await tabs[0]!.evaluate(async (token) => {
    try {
      const response = await fetch("/api/send", { method: "POST", headers: { "content-type": "application/json", "x-peerpost-token": token }, body: JSON.stringify({ to: "claude:alice", body: "while six tabs are open" }), signal: AbortSignal.timeout(10_000) });
      return String(response.status);
    } catch (error) {
      return String(error);
    }
  }, ui.token);
  assert.equal(write, "200", "a write from the first tab");
  await tabs[0]!.locator(".message", { hasText: "while six tabs are open" }).waitFor();
  const seventh = await context.newPage();
  assert.equal((await seventh.goto(ui.url, { timeout: 10_000 }))?.status(), 200, "a seventh tab loads");
  // Shown again, a tab follows the store once more and catches up on what it missed.
  await setHidden(tabs[3]!, false);
  await tabs[3]!.locator(".message", { hasText: "while six tabs are open" }).waitFor();
});

test("a page that stops reading its event stream gets nothing piled up for it, and one delta brings it up to date when it reads again", async (t) => {
  const ui = await startUi(t, { env: uiEnv(t) });
  await registerSessions(ui.store, "claude:alice", "codex:bob");
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${ui.child.pid}/status`, "utf8"))![1]) / 1024;
  // A client that opens the stream and stops reading: the kernel's buffers fill, then the server's would.
  const socket = connect(ui.port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.write(`GET /events?token=${ui.token} HTTP/1.1\r\nHost: 127.0.0.1:${ui.port}\r\n\r\n`);
  socket.pause();
  t.after(() => socket.destroy());
  await new Promise((resolve) => setTimeout(resolve, 500));
  const before = rss();
  // Each change makes a delta of the newest conversations, 60 KB bodies each: over 100 MB unsent without backpressure.
  for (let i = 0; i < 120; i++) {
    await ui.store.mailbox.send({ from: "claude:alice", fromVerified: false, to: "codex:bob", body: `${i} ${"b".repeat(60_000)}` });
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const grown = rss() - before;
  assert.ok(grown < 50, `the ui process grew by ${grown.toFixed(0)} MB for a client that reads nothing`);
  // Reading again, the stream catches up: the last message sent arrives.
  let received = "";
  socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
  socket.resume();
  await until(() => received.includes("119 bbbb"), 60_000, "the newest message on the stream");
});
