// The web view's claims and tasks panels: real claims and tasks made by CLI processes show (and update
// live) in a real browser, the person's actions there land in the log as the CLI's would (checked with
// the CLI), and the writes behind them are refused without the token or from another origin.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { artifactPath, launchBrowser, NO_CHROMIUM } from "./helpers/browser.js";
import { cli, cliIn, registerSessions, request, startUi, uiEnv, write, type RunningUi } from "./helpers/ui.js";
import { until } from "./helpers/poll.js";
import { tempDir } from "./helpers/temp.js";
import type { TestContext } from "node:test";

interface Claim {
  holder: string;
  path: string;
}
interface Task {
  id: string;
  status: string;
  takenBy?: string;
  assignee?: string;
  note?: string;
  title: string;
}

function repository(t: TestContext): string {
  const repo = join(tempDir(t), "repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(join(repo, "src"));
  return repo;
}

async function json<T>(run: Promise<{ code: number | null; stdout: string; stderr: string }>): Promise<T> {
  const result = await run;
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
}

async function claimsByCli(env: Record<string, string>, repo: string): Promise<Claim[]> {
  return (await json<{ claims: Claim[] }>(cliIn(env, repo, "claims", "--json"))).claims;
}

async function tasksByCli(env: Record<string, string>): Promise<Task[]> {
  return (await json<{ tasks: Task[] }>(cli(env, "task", "list", "--json"))).tasks;
}

async function openPage(t: TestContext, ui: RunningUi): Promise<{ page: Page; errors: string[] }> {
  const browser = await launchBrowser(t);
  const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  await page.goto(ui.url);
  await page.waitForSelector("body[data-version]");
  return { page, errors };
}

test("the claims and tasks panels show the CLI's claims and tasks live, and a person's actions there are the CLI's", { skip: NO_CHROMIUM }, async (t) => {
  const env: Record<string, string> = { ...uiEnv(t), PEERPOST_USER: "person" };
  const repo = repository(t);
  const ui = await startUi(t, { env });
  await registerSessions(ui.store, "claude:alice", "codex:bob");
  await json(cliIn(env, repo, "claim", "src/parser.ts", "--as", "claude:alice", "--reason", "fixing <b>#12</b>", "--json"));
  await json(cliIn(env, repo, "claim", "docs/**", "--shared", "--json"));
  const first = (await json<{ task: Task }>(cli(env, "task", "add", "Write the parser", "--as", "claude:alice", "--json"))).task;
  const second = (await json<{ task: Task }>(cli(env, "task", "add", "Ship it", "--after", first.id, "--assignee", "codex:bob", "--json"))).task;

  const { page, errors } = await openPage(t, ui);
  const alices = page.locator('#claims .claim[data-holder="claude:alice"]');
  await alices.waitFor();
  assert.match((await alices.textContent()) ?? "", /src\/parser\.ts.*exclusive.*held by.*claude:alice.*since.*until.*fixing <b>#12<\/b>/s, "who holds what, since and until when, and why (as text)");
  assert.equal(await page.locator("#claims b").count(), 0);
  const mine = page.locator('#claims .claim[data-holder="user:person"]');
  assert.match((await mine.textContent()) ?? "", /docs\/\*\*.*shared/s);
  assert.equal(await mine.locator("button.release").count(), 1, "the person releases their own");
  assert.equal(await alices.locator("button.force-release").count(), 1, "and may end another holder's, as release --force");
  const blocked = page.locator(`#tasks .task[data-id="${second.id}"]`);
  assert.equal(await blocked.locator("[data-blocked]").getAttribute("data-blocked"), "yes");
  assert.match((await blocked.textContent()) ?? "", /Ship it.*pending.*waits on 1.*for codex:bob.*after:.*Write the parser/s);
  assert.equal(await blocked.locator("button.take").isHidden(), true, "a task waiting on another cannot be taken");
  await page.screenshot({ path: artifactPath("ui-work.png"), fullPage: true });

  // Releasing one's own claim, and ending alice's: the CLI sees both gone, and alice is told.
  await mine.locator("button.release").click();
  await until(async () => (await claimsByCli(env, repo)).every((claim) => claim.holder !== "user:person"), 10_000, "the person's claim released");
  await alices.locator("button.force-release").click();
  await until(async () => (await claimsByCli(env, repo)).length === 0, 10_000, "alice's claim ended");
  await until(async () => (await page.locator("#claims .claim").count()) === 0, 10_000, "the panel to empty");
  assert.ok(ui.store.mailbox.inbox("claude:alice").some((entry) => entry.message.from === "user:person" && entry.body.includes("claim_released")), "the holder is told in its mailbox");
  const released = readFileSync(join(env.PEERPOST_HOME!, "mailbox.jsonl"), "utf8").split("\n").filter((line) => line.includes('"type":"release"')).map((line) => JSON.parse(line) as { why: string; by: string; holder: string });
  assert.deepEqual(released.map((event) => [event.holder, event.why, event.by]), [["user:person", "released", "user:person"], ["claude:alice", "forced", "user:person"]]);

  // A claim made meanwhile by the CLI shows without a reload.
  await json(cliIn(env, repo, "claim", "src", "--as", "codex:bob", "--json"));
  await page.locator('#claims .claim[data-holder="codex:bob"]', { hasText: "src/**" }).waitFor({ timeout: 60_000 });

  // Tasks: the person takes the first, finishes it with a result; the second is unblocked.
  const firstRow = page.locator(`#tasks .task[data-id="${first.id}"]`);
  await firstRow.locator("button.take").click();
  await until(async () => (await tasksByCli(env)).find((task) => task.id === first.id)?.takenBy === "user:person", 10_000, "the task taken");
  await firstRow.locator('[data-status="in_progress"]').waitFor({ timeout: 60_000 });
  await firstRow.locator("textarea").fill("parser merged in abc123");
  await firstRow.locator("button.done").click();
  await until(async () => (await tasksByCli(env)).find((task) => task.id === first.id)?.status === "done", 10_000, "the task done");
  assert.equal((await tasksByCli(env)).find((task) => task.id === first.id)?.note, "parser merged in abc123");
  await blocked.locator('[data-blocked="no"]').waitFor({ timeout: 60_000 });
  assert.equal(await blocked.locator("button.take").isVisible(), true, "the unblocked task can be taken now");
  assert.ok(ui.store.mailbox.inbox("codex:bob").some((entry) => entry.body.includes("task_unblocked")), "its assignee is told");

  // A new task from the form, for an assignee and after another.
  await page.click("#task-new summary");
  await page.fill('#task-form input[name="title"]', "Review the parser");
  await page.fill('#task-form input[name="assignee"]', "role:reviewer");
  await page.fill('#task-form input[name="after"]', second.id);
  await page.click('#task-form button[type="submit"]');
  await until(async () => (await tasksByCli(env)).some((task) => task.title === "Review the parser" && task.assignee === "role:reviewer"), 10_000, "the new task on the board");
  await page.locator("#tasks .task", { hasText: "Review the parser" }).waitFor({ timeout: 60_000 });
  await page.screenshot({ path: artifactPath("ui-work-after.png"), fullPage: true });
  assert.deepEqual(errors, []);

  // A page of another origin (evil.test is 127.0.0.1 in this browser), even knowing the token, cannot act.
  const evil = await page.context().browser()!.newPage();
  await evil.goto(`http://evil.test:${ui.port}/`);
  const attempts = await evil.evaluate(
    async ({ port, token, id }) => {
      const outcome = async (init: RequestInit) => {
        try {
          const response = await fetch(`http://127.0.0.1:${port}/api/task`, { method: "POST", ...init });
          return `answered ${response.status}`;
        } catch (error) {
          return (error as Error).name;
        }
      };
      return {
        withToken: await outcome({ headers: { "content-type": "application/json", "x-peerpost-token": token }, body: JSON.stringify({ action: "claim", id }) }),
        asForm: await outcome({ mode: "no-cors", headers: { "content-type": "text/plain" }, body: JSON.stringify({ action: "claim", id }) }),
      };
    },
    { port: ui.port, token: ui.token, id: second.id },
  );
  assert.equal(attempts.withToken, "TypeError", "the token header needs a preflight, which is refused");
  assert.equal((await tasksByCli(env)).find((task) => task.id === second.id)?.status, "pending", "neither attempt moved the task");
});

test("claims and tasks writes need the token header and the page's origin, and refuse what the CLI refuses, with its code", async (t) => {
  const env = uiEnv(t);
  const repo = repository(t);
  const ui = await startUi(t, { env, args: ["--no-open", "--as", "codex:person"] });
  await json(cliIn(env, repo, "claim", "src/a.ts", "--as", "claude:alice", "--json"));
  const task = (await json<{ task: Task }>(cli(env, "task", "add", "First", "--as", "claude:alice", "--json"))).task;
  const later = (await json<{ task: Task }>(cli(env, "task", "add", "Later", "--after", task.id, "--as", "claude:alice", "--json"))).task;
  const release = { repo, path: "src/a.ts", force: true };
  const take = { action: "claim", id: task.id };
  const origin = `http://127.0.0.1:${ui.port}`;
  const cases: Array<[string, string, Promise<{ status: number; body: string }>, number, string?]> = [
    ["release without the token header", "release", write(ui, "/api/release", release, { "x-peerpost-token": "" }), 401],
    ["task without the token header", "task", write(ui, "/api/task", take, { "x-peerpost-token": "" }), 401],
    ["release with a wrong token", "release", write(ui, "/api/release", release, { "x-peerpost-token": "nope" }), 403],
    ["release from a foreign Origin", "release", write(ui, "/api/release", release, { origin: "http://evil.example" }), 403],
    ["task from a foreign Origin", "task", write(ui, "/api/task", take, { origin: "http://evil.example" }), 403],
    ["task from another local port", "task", write(ui, "/api/task", take, { origin: `http://127.0.0.1:${ui.port + 1}` }), 403],
    ["task without an Origin", "task", request(ui.port, "/api/task", { method: "POST", body: JSON.stringify(take), headers: { "content-type": "application/json", "x-peerpost-token": ui.token } }), 403],
    ["task as a form post", "task", write(ui, "/api/task", take, { "content-type": "text/plain" }), 415],
    ["task with the token only in the URL", "task", request(ui.port, `/api/task?token=${ui.token}`, { method: "POST", body: JSON.stringify(take), headers: { "content-type": "application/json", origin } }), 401],
    ["a forced release by a session address", "release", write(ui, "/api/release", release), 403, "permission_denied"],
    ["a release of a claim one does not hold", "release", write(ui, "/api/release", { ...release, force: false }), 404, "not_found"],
    ["a path out of the repository", "release", write(ui, "/api/release", { ...release, force: false, path: "../elsewhere" }), 400, "invalid_arguments"],
    ["a task waiting on another", "task", write(ui, "/api/task", { action: "claim", id: later.id }), 409, "task_blocked"],
    ["an unknown task", "task", write(ui, "/api/task", { action: "claim", id: "01JF3Q0M9C6R2S3T4V5W6X7Y8Z" }), 404, "not_found"],
    ["done on a task one did not take", "task", write(ui, "/api/task", { action: "done", id: task.id, note: "x" }), 403, "permission_denied"],
    ["an unknown action", "task", write(ui, "/api/task", { action: "delete", id: task.id }), 400, "invalid_arguments"],
    ["an empty title", "task", write(ui, "/api/task", { action: "add", title: " " }), 400, "invalid_arguments"],
  ];
  for (const [what, , answer, status, code] of cases) {
    const result = await answer;
    assert.equal(result.status, status, `${what}: ${result.body}`);
    if (code) assert.equal((JSON.parse(result.body) as { error: { code: string } }).error.code, code, what);
  }
  assert.deepEqual((await claimsByCli(env, repo)).map((claim) => claim.holder), ["claude:alice"], "no refused write released anything");
  assert.deepEqual((await tasksByCli(env)).map((entry) => entry.status), ["pending", "pending"], "nor moved a task");

  // The same writes from the page's origin go through, as the CLI's would.
  const taken = await write(ui, "/api/task", take);
  assert.equal(taken.status, 200, taken.body);
  const refused = await cli(env, "task", "claim", task.id, "--as", "claude:alice", "--json");
  assert.notEqual(refused.code, 0);
  assert.match(refused.stdout + refused.stderr, /claim_conflict/, "the CLI sees the page's take");
  assert.equal((await tasksByCli(env)).find((entry) => entry.id === task.id)?.takenBy, "codex:person");
});
