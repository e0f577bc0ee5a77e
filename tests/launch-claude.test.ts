// Launching a helper on real Claude Code, offline and without the plugin installed: the `launch` tool
// returns the new session's address at once; peerpost's server reaches the session on the command line
// (--mcp-config); the fake model reads and replies; the launcher's `wait` gets the answer. The launch
// switch is off by default. A follow-up wakes the helper with the launch's model and its server again (a
// resume does not keep the command line that gave it), and it answers that too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { spawn } from "node:child_process";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { CLI, connect } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { claudeAnswerMail } from "./helpers/answer-mail.js";
import { startFakeAnthropic } from "./helpers/fake-anthropic.js";
import { claudeBinary, claudeSkipReason, isolatedClaudeEnv } from "./helpers/claude-cli.js";
import { openPeerpost } from "../core/peerpost.js";

const skip = claudeSkipReason();
const tool = (name: string) => `mcp__peerpost__${name}`;

test("launch: a new headless Claude Code session gets the task, has peerpost's tools without the plugin, and its answer reaches wait; woken for a follow-up, it has them again", { skip, timeout: 300_000 }, async (t) => {
  const base = tempDir(t, "peerpost-launch-");
  const stateDir = join(base, "peerpost");
  const work = join(base, "work");
  mkdirSync(work);
  const fake = await startFakeAnthropic(claudeAnswerMail(tool, "helper says: done,"));
  onCleanup(t, () => fake.close());
  const env = isolatedClaudeEnv(base, fake.url, { PEERPOST_HOME: stateDir, PATH: `${dirname(claudeBinary())}:${process.env.PATH ?? ""}` });
  const launcherEnv = { ...(env as Record<string, string>), PEERPOST_ADDRESS: "codex:boss" };
  const boss = await connect(t, launcherEnv);
  const refused = await boss.raw("launch", { host: "claude-code", cwd: work, message: "Count the files here." });
  assert.equal(refused.isError, true);
  assert.equal((refused.structuredContent?.error as { code: string }).code, "permission_denied", "off by default");
  const on = await collect(spawn(process.execPath, [CLI, "launch", "on"], { env: launcherEnv, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(on.code, 0, on.stderr);

  const launched = await boss.call("launch", { host: "claude-code", cwd: work, message: "Count the files here.", model: "claude-launch-model" });
  assert.equal(launched.ok, true, JSON.stringify(launched));
  const address = String(launched.address);
  assert.match(address, /^claude:[0-9a-f-]{36}$/);
  const agents = await boss.call("agents", { includeDead: true });
  assert.ok((agents.sessions as Array<{ address: string; cwd: string }>).some((session) => session.address === address && session.cwd === work), "listed at once");
  const waited = await boss.call("wait", { messageId: launched.messageId, timeoutMs: 90_000 });
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: env.HOME! });
  assert.equal(waited.outcome, "reply", JSON.stringify({ waited, runs: store().wakes.fold().runsFor({ address }), errors: fake.errors }));
  assert.match(String((waited.reply as { envelope: string }).envelope), new RegExp(`from="${address}" fromVerified="true"[\\s\\S]*helper says: done`));
  assert.ok(fake.sawText("Count the files here."), "the launched turn's prompt, on stdin, carries the request");
  await until(() => store().wakes.fold().runsFor({ address })[0]?.ended !== undefined, 60_000, "the launched run to end");
  const run = store().wakes.fold().runsFor({ address })[0]!;
  assert.equal(run.claim.kind, "launch");
  assert.equal(run.ended?.outcome, "ok");
  assert.equal(store().receipts.query({ kind: "launch" }).receipts[0]?.delivery, "delivered");

  const wakeOn = await collect(spawn(process.execPath, [CLI, "wake", "on", address], { env: launcherEnv, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(wakeOn.code, 0, wakeOn.stderr);
  const before = fake.modelRequests.length;
  const asked = await boss.call("message", { to: address, message: "And how many of them are empty?", anticipation: "reply" });
  assert.equal(asked.wake, "started", JSON.stringify(asked));
  const followUp = await boss.call("wait", { messageId: asked.messageId, timeoutMs: 90_000 });
  const woken = fake.modelRequests.slice(before);
  assert.deepEqual([...new Set(woken.map((request) => request.body.model))], ["claude-launch-model"], "the wake runs on the launch's model");
  assert.equal(followUp.outcome, "reply", JSON.stringify({ followUp, tools: woken.at(0)?.toolNames.filter((name) => name.includes("peerpost")), runs: store().wakes.fold().runsFor({ address }).map((each) => each.ended) }));
});
