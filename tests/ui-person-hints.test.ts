// A refused write from the page says what to do to the person who reads it: the server answers with the
// hints written for a person (commands), not a model's ("Call `agents` …", "pass allowSelf: true"), and the
// page shows the hint after the code and message.
// A person's request from the page wakes a dormant session as `peerpost send` does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { launchBrowser, NO_CHROMIUM } from "./helpers/browser.js";
import { cli, registerSessions, startUi, uiEnv, write } from "./helpers/ui.js";
import { until } from "./helpers/poll.js";
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { openPeerpost } from "../core/peerpost.js";

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

test("a request sent from the web view to a dormant session with waking on wakes it, as `peerpost send` does", async (t) => {
  const env: Record<string, string> = { ...uiEnv(t), PEERPOST_USER: "ana" };
  const peerpost = openPeerpost({ env, home: env.HOME! });
  const project = join(env.HOME!, "project");
  mkdirSync(project);
  for (const id of ["by-cli", "by-page"])
    await peerpost.sessions.register({ host: "claude-code", address: `claude:${id}`, sessionId: id, cwd: project, source: "startup", hostPid: spawnSync("true").pid! });
  assert.equal((await cli(env, "wake", "on", "all")).code, 0);
  const claimed = (address: string) => openPeerpost({ env, home: env.HOME! }).wakes.fold().runsFor({ address }).length;

  const sent = await cli(env, "send", "--json", "--to", "claude:by-cli", "--anticipation", "reply", "Are the tests green?");
  assert.equal(sent.code, 0, sent.stderr);
  assert.equal(claimed("claude:by-cli"), 1, `the CLI's request claimed a wake run: ${sent.stdout}`);

  const ui = await startUi(t, { env });
  const viaPage = await write(ui, "/api/send", { to: "claude:by-page", body: "Are the tests green?", anticipation: "reply" });
  assert.equal(viaPage.status, 200, viaPage.body);
  assert.equal(claimed("claude:by-page"), 1, `the page's request, the same one to the same kind of session, claimed no wake run (it waits until someone starts the session): ${viaPage.body}`);
  assert.match(viaPage.body, /is not running now; peerpost started a headless turn/, "the page says the session is being woken, as the CLI does");
});
