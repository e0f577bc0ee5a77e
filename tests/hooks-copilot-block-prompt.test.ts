// Copilot's agentStop block: the reason comes back as a new user prompt, and userPromptSubmitted fires
// with prompt = the reason (docs/hosts/copilot.md, "Stop"). The prompt hook does not flag the same mail
// a second time in that one continuation prompt.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { tempDir } from "./helpers/temp.js";
import { runHook } from "./helpers/hooks.js";
import { openPeerpost } from "../core/peerpost.js";

test("copilot: the continuation prompt a stop block starts is not flagged again by the prompt hook", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const sessionId = randomUUID();
  const me = `copilot:${sessionId}`;
  await runHook("copilot", "session-start", { sessionId, timestamp: Date.now(), cwd: "/w", source: "new" }, env);
  await openPeerpost({ env, home }).mailbox.send({ from: "codex:asker", fromVerified: true, to: me, body: "q?", anticipation: "reply" });
  const stop = await runHook("copilot", "stop", { sessionId, timestamp: Date.now(), cwd: "/w", transcriptPath: "/w/t", stopReason: "end_turn", stop_hook_active: false }, env);
  const reason = (JSON.parse(stop.stdout) as { decision: string; reason: string }).reason;
  assert.match(reason, /1 new message/);
  // What Copilot does next: the reason becomes the user prompt, and userPromptSubmitted runs with it.
  const prompted = await runHook("copilot", "user-prompt", { sessionId, timestamp: Date.now(), cwd: "/w", prompt: reason }, env);
  assert.equal(prompted.code, 0, prompted.stderr);
  assert.equal(prompted.stdout, "", `the same mail flagged twice in one prompt: ${prompted.stdout}`);
});
