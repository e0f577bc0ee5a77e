// Copilot CLI offline: a `copilot -p` run creates a session (its plugin's sessionStart hook registers
// it and peerpost captures the copilot process's own environment, provider variables included, which
// Copilot strips from hooks and servers) and ends; a request wakes it with `copilot --resume=<id>
// --allow-tool=peerpost(read) --allow-tool=peerpost(reply)` and the prompt on stdin; the fake model tries
// to send a message (refused: not allowed without asking), reads and replies; the answer reaches wait. A
// launched session is woken the same way, with peerpost's server on its command line again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { spawn } from "node:child_process";
import { CLI, connect } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { chatAnswerMail } from "./helpers/answer-mail.js";
import { until } from "./helpers/poll.js";
import type { ChatScript, Turn } from "./helpers/fake-openai-chat.js";
import { copilotPrompt, copilotUnavailable } from "./helpers/copilot-cli.js";
import { copilotWithPeerpost } from "./helpers/chat-hosts.js";
import { openPeerpost } from "../core/peerpost.js";

const unavailable = copilotUnavailable();
const call = (tool: string, args: unknown): Turn => ({ toolCall: { name: `peerpost-${tool}`, arguments: args } });

/** A model that first calls a peerpost tool a woken run may not use without asking (message), then answers the mail. */
function triesMessageFirst(script: ChatScript): ChatScript {
  let tried = false;
  return (request) => {
    if (tried) return script(request);
    tried = true;
    return call("message", { to: "user:bystander", message: "sent by a woken run" });
  };
}

test("copilot: a request wakes an ended session headless; the model reads and replies; the answer reaches the sender's wait", { skip: unavailable ? `copilot CLI unavailable: ${unavailable}` : false, timeout: 240_000 }, async (t) => {
  const { fake, home: copilot, stateDir, answer } = await copilotWithPeerpost(t);
  const sessionId = randomUUID();
  const address = `copilot:${sessionId}`;
  const first = await copilotPrompt("hello", { home: copilot, provider: { baseUrl: fake.baseUrl }, sessionId });
  assert.equal(first.code, 0, first.stderr.slice(-2000));
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: copilot.home });
  const entry = store().sessions.all().find((session) => session.address === address);
  assert.ok(entry?.cwd !== undefined && entry.alive === false, JSON.stringify(entry));
  const captured = JSON.parse(readFileSync(join(stateDir, "wake-env", `copilot_${sessionId}.json`), "utf8")) as { env: Record<string, string> };
  assert.equal(captured.env.COPILOT_PROVIDER_BASE_URL, fake.baseUrl, "the provider variables come from the copilot process itself");

  // The requester's PATH has the host binary: a run without the session's own capture (a launch) starts the one found there.
  const peerEnv = { HOME: copilot.home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "claude:peer", PATH: copilot.env.PATH ?? "" };
  const peer = await connect(t, peerEnv);
  await peer.call("health");
  const on = await collect(spawn(process.execPath, [CLI, "wake", "on", "copilot"], { env: peerEnv, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(on.code, 0, on.stderr);
  answer(triesMessageFirst(chatAnswerMail(call, "copilot answers")));
  const asked = await peer.call("message", { to: address, message: "Did the tests pass?", anticipation: "reply" });
  assert.equal(asked.wake, "started", JSON.stringify(asked));
  const waited = await peer.call("wait", { messageId: asked.messageId, timeoutMs: 60_000 });
  const runs = store().wakes.fold().runsFor({ address });
  const log = runs[0]?.ended?.logPath && existsSync(runs[0].ended.logPath) ? readFileSync(runs[0].ended.logPath, "utf8").slice(-2000) : "";
  assert.equal(waited.outcome, "reply", JSON.stringify({ waited, runs, log }));
  assert.match(String((waited.reply as { envelope: string }).envelope), new RegExp(`from="${address}" fromVerified="true"[\\s\\S]*copilot answers ${String(asked.messageId)}`));
  // The run ends after the reply: its outcome is a receipt.
  await until(() => store().wakes.fold().runsFor({ address })[0]?.ended !== undefined, 60_000, "the woken run to end");
  assert.equal(store().wakes.fold().runsFor({ address })[0]!.ended!.outcome, "ok");
  // The prompt, given on stdin, carried the request to the model.
  assert.ok(fake.findShown("Did the tests pass?").length > 0, "the woken turn's prompt carries the request");
  // Only read and reply run without asking, and nobody answers a headless run's question.
  assert.deepEqual(store().mailbox.inbox("user:bystander", { unreadOnly: false }), []);

  // Launch: a new Copilot session in the same dir, peerpost's server on its command line; the newest
  // Copilot session's captured environment gives it the provider.
  assert.equal((await collect(spawn(process.execPath, [CLI, "launch", "on"], { env: peerEnv, stdio: ["ignore", "pipe", "pipe"] }))).code, 0);
  answer(chatAnswerMail(call, "copilot helper"));
  const launched = await peer.call("launch", { host: "copilot", cwd: copilot.workDir, message: "Summarise the work dir." });
  assert.match(String(launched.address), /^copilot:[0-9a-f-]{36}$/, JSON.stringify(launched));
  const helped = await peer.call("wait", { messageId: launched.messageId, timeoutMs: 60_000 });
  const launchRuns = store().wakes.fold().runsFor({ address: String(launched.address) });
  const launchLog = launchRuns[0]?.ended?.logPath && existsSync(launchRuns[0].ended.logPath) ? readFileSync(launchRuns[0].ended.logPath, "utf8").slice(-2000) : "";
  assert.equal(helped.outcome, "reply", JSON.stringify({ helped, launchRuns, launchLog }));
  assert.match(String((helped.reply as { envelope: string }).envelope), new RegExp(`from="${String(launched.address)}" fromVerified="true"[\\s\\S]*copilot helper`));
  await until(() => store().wakes.fold().runsFor({ address: String(launched.address) })[0]?.ended !== undefined, 60_000, "the launched run to end");
  assert.ok(fake.findShown("Summarise the work dir.").length > 0, "the launched turn's prompt carries the request");

  // A follow-up wakes the launched session with `--resume` and peerpost's server on the command line again
  // (here the plugin's server is there too: the flag's, of the same name, takes precedence).
  const helper = String(launched.address);
  assert.equal((await collect(spawn(process.execPath, [CLI, "wake", "on", helper], { env: peerEnv, stdio: ["ignore", "pipe", "pipe"] }))).code, 0);
  answer(chatAnswerMail(call, "copilot helper again"));
  const followUp = await peer.call("message", { to: helper, message: "And the largest file?", anticipation: "reply" });
  assert.equal(followUp.wake, "started", JSON.stringify(followUp));
  const again = await peer.call("wait", { messageId: followUp.messageId, timeoutMs: 60_000 });
  assert.equal(again.outcome, "reply", JSON.stringify({ again, runs: store().wakes.fold().runsFor({ address: helper }).map((run) => run.ended) }));
  const resumed = store().wakes.fold().runsFor({ address: helper })[0]!;
  assert.equal(resumed.claim.kind, "wake");
});
