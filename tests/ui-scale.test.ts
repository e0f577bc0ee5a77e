// The web view over a mailbox larger than what it folds: the unfiltered page draws from the newest
// messages only, while an address's page, a conversation's page and the person's own requests still
// reach mail anywhere in the log (through the per-address index), and "show more" folds older mail.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { monotonicFactory } from "ulid";
import { cli, registerSessions, request, startUi, uiEnv } from "./helpers/ui.js";
import { until } from "./helpers/poll.js";
import type { UiState } from "../core/ui/types.js";
import { RECENT_MESSAGES, RecentMail } from "../core/ui/recent.js";
import { onCleanup, tempDir } from "./helpers/temp.js";
import { openPeerpost } from "../core/peerpost.js";

const FILLER = RECENT_MESSAGES + 1000;

async function state(port: number, token: string, query = ""): Promise<UiState> {
  const answer = await request(port, `/api/state?token=${token}${query}`);
  assert.equal(answer.status, 200, answer.body);
  return JSON.parse(answer.body) as UiState;
}

/** Old mail first (a request to the person, a conversation with its reply), then filler from other addresses. */
function writeMailbox(stateDir: string): { request: string; question: string; answer: string; opener: string } {
  const newId = monotonicFactory();
  const start = Date.parse("2026-06-01T00:00:00Z");
  const lines: string[] = [];
  let clock = start;
  const msg = (from: string, to: string, body: string, extra: Record<string, unknown> = {}) => {
    const id = newId((clock += 1000));
    const at = new Date(clock).toISOString();
    lines.push(JSON.stringify({ v: 1, type: "msg", id, from, fromVerified: true, to, sentAt: at, anticipation: "reply", conversationId: id, hop: 1, body, ...extra }));
    return { id, at };
  };
  const request = msg("claude:old", "user:person", "an ancient request to the person").id;
  const question = msg("codex:old", "claude:old", "an ancient question");
  const answer = msg("claude:old", "codex:old", "the ancient answer", { anticipation: "fyi", inReplyTo: question.id, conversationId: question.id, hop: 2 });
  lines.push(JSON.stringify({ v: 1, type: "resolved", id: question.id, resolution: "reply", replyId: answer.id, by: "claude:old", at: answer.at }));
  const opener = msg("grok:old", "claude:old", "an old opener", { anticipation: "fyi" });
  for (let i = 0; i < FILLER; i++) {
    const { id, at } = msg(`claude:f${i % 10}`, `codex:f${i % 7}`, `filler ${i}`);
    lines.push(JSON.stringify({ v: 1, type: "resolved", id, resolution: "done", by: `codex:f${i % 7}`, at }));
  }
  // A follow-up, last in the log, in a conversation that began before the newest messages.
  msg("claude:old", "grok:old", "a late follow-up", { anticipation: "fyi", inReplyTo: opener.id, conversationId: opener.id, hop: 2 });
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(stateDir, "mailbox.jsonl"), lines.join("\n") + "\n", { mode: 0o600 });
  return { request, question: question.id, answer: answer.id, opener: opener.id };
}

test("past a few thousand messages the page folds only the newest; filters, the person's requests and show more reach older mail", async (t) => {
  const env: Record<string, string> = { ...uiEnv(t), PEERPOST_USER: "person" };
  const old = writeMailbox(env.PEERPOST_HOME!);
  const ui = await startUi(t, { env });

  const page = await state(ui.port, ui.token);
  assert.equal(page.totals.partial, true, "older mail lies before what is folded");
  assert.ok(page.totals.messages >= RECENT_MESSAGES && page.totals.messages < FILLER, `only the newest messages are folded: ${page.totals.messages}`);
  assert.equal(page.conversations.length, 20, "a page opens with the newest 20 conversations");
  assert.deepEqual(page.conversations.slice(0, 2).map((conversation) => conversation.messages.map((message) => message.body)), [["a late follow-up"], [`filler ${FILLER - 1}`]], "newest first");
  assert.equal(page.conversations[0]?.earlier, true, "a conversation that began before the folded messages says so");
  assert.equal(page.conversations[1]?.earlier, undefined);
  assert.deepEqual(page.mine.map((message) => [message.id, message.body]), [[old.request, "an ancient request to the person"]], "the person's open request, however old");
  assert.equal((await state(ui.port, ui.token, "&q=ancient")).conversations.length, 0, "a search reads the folded messages");

  const byAddress = await state(ui.port, ui.token, "&session=codex:old");
  assert.deepEqual(byAddress.conversations.map((conversation) => conversation.messages.map((message) => [message.id, message.status])), [[[old.question, "replied"], [old.answer, "queued"]]], "an address's page reads its mail through the index");
  assert.equal(byAddress.totals.partial, false);
  const thread = await state(ui.port, ui.token, `&conversation=${old.question}`);
  assert.deepEqual(thread.conversations[0]?.messages.map((message) => message.body), ["an ancient question", "the ancient answer"], "a conversation's page finds it anywhere");

  assert.deepEqual((await state(ui.port, ui.token, `&conversation=${old.opener}`)).conversations[0]?.messages.map((message) => message.body), ["an old opener", "a late follow-up"], "and its own page shows it whole");
  const more = await state(ui.port, ui.token, "&q=ancient&limit=100");
  assert.deepEqual(more.conversations.map((conversation) => conversation.id).sort(), [old.request, old.question].sort(), "show more folds older mail until it finds enough");
  assert.equal(more.totals.partial, false);

  // What is appended later is folded on top, live.
  await registerSessions(ui.store, "claude:alice");
  const sent = await cli(env, "send", "--from", "claude:alice", "--to", "user:person", "--anticipation", "reply", "--json", "a fresh question");
  assert.equal(sent.code, 0, sent.stderr);
  const { messageId } = JSON.parse(sent.stdout) as { messageId: string };
  await until(async () => (await state(ui.port, ui.token)).conversations[0]?.id === messageId, 10_000, "the new message first");
  assert.deepEqual((await state(ui.port, ui.token)).mine.map((message) => message.id).sort(), [old.request, messageId].sort());
});

test("a tail widened for show more is folded back to the first one a while after the last page that asked for more", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  writeMailbox(stateDir);
  const peerpost = openPeerpost({ env: { HOME: home, PEERPOST_HOME: stateDir }, home });
  onCleanup(t, () => peerpost.backend.close());
  const recent = new RecentMail(peerpost.mailbox.log, 100, 1000);
  const held = () => Object.keys(recent.view.state.messages).length;
  const first = held();
  assert.ok(first >= 100 && first < 200, `the first tail holds ${first}`);
  assert.equal(recent.widen(), true);
  assert.ok(held() >= 200, "widened");
  // Pages that go on asking for more keep it.
  for (let i = 0; i < 5; i++) {
    await delay(100);
    recent.keepWide();
  }
  assert.ok(held() >= 200, "still wide while pages ask for it");
  await until(() => held() < 200, 10_000, "the first tail again");
  assert.equal(held(), first);
  assert.ok(recent.partial);
});
