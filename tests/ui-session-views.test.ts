// The web view's memory follows what its pages show (docs/web-view.md), not every page it was ever asked
// for. A session's page folds that address's whole mail (its view, through the per-address index); the ui
// keeps the views of the last few session pages, so a person clicking through the sessions of a busy store
// does not grow the process by each session's whole mail.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { monotonicFactory } from "ulid";
import { request, startUi, uiEnv } from "./helpers/ui.js";

const SESSIONS = 40;
const EACH = 10_000;
/** A heap that holds the page and a few sessions' mail, not all of them. */
const HEAP_MB = 64;

test("clicking through many sessions' pages does not keep each session's whole mail in the ui process", async (t) => {
  const env: Record<string, string> = { ...uiEnv(t), PEERPOST_USER: "person" };
  const newId = monotonicFactory();
  let clock = Date.parse("2026-06-01T00:00:00Z");
  const lines: string[] = [];
  for (let i = 0; i < EACH; i++)
    for (let s = 0; s < SESSIONS; s++) {
      const id = newId((clock += 10));
      lines.push(JSON.stringify({ v: 1, type: "msg", id, from: `claude:s${s}`, fromVerified: true, to: `codex:p${s}`, sentAt: new Date(clock).toISOString(), anticipation: "fyi", conversationId: id, hop: 1, body: `note ${i}` }));
    }
  mkdirSync(env.PEERPOST_HOME!, { recursive: true, mode: 0o700 });
  writeFileSync(join(env.PEERPOST_HOME!, "mailbox.jsonl"), lines.join("\n") + "\n", { mode: 0o600 });
  lines.length = 0;
  const ui = await startUi(t, { env: { ...env, NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` } });
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${ui.child.pid}/status`, "utf8"))![1]) / 1024;
  const page = async (query: string) => {
    const answer = await request(ui.port, `/api/state?token=${ui.token}${query}`).catch((error: Error) => ({ status: 0, body: `${error.message}; the ui process: ${ui.stderr().split("\n").filter((line) => /heap|memory|FATAL/i.test(line)).slice(0, 3).join(" ")}` }));
    assert.equal(answer.status, 200, `${query}: ${answer.body.slice(0, 300)}`);
  };
  await page("");
  // One session's page: what one such page costs.
  await page("&session=claude:s0");
  await page("");
  const one = rss();
  for (let s = 1; s < SESSIONS; s++) await page(`&session=claude:s${s}`);
  await page("");
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await page("");
  const all = rss();
  assert.equal(ui.child.exitCode, null, "the ui process is still serving");
  t.diagnostic(`RSS after one session's page ${one.toFixed(0)} MB, after ${SESSIONS}: ${all.toFixed(0)} MB`);
});
