// A prompt or stop hook naming a session that another running host holds was not run by that host (an
// agent's shell can run the hook with any id): like a claimed identity (docs/security.md) it neither tells
// that session's mail nor marks it noticed, so the real session's own stop hook still holds its turn.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { runHook } from "./helpers/hooks.js";
import { openPeerpost } from "../core/peerpost.js";
import { hostStartField } from "../core/sessions/process-tree.js";

test("a Stop hook naming a session another live host holds neither tells its mail nor marks it noticed", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const peerpost = openPeerpost({ env, home });
  const bobHost = spawn("sleep", ["300"], { stdio: "ignore" });
  onCleanup(t, () => bobHost.kill());
  await peerpost.sessions.register({ host: "claude-code", address: "claude:bob", sessionId: "bob", source: "startup", hostPid: bobHost.pid!, ...hostStartField(bobHost.pid!) });
  assert.equal(peerpost.sessions.get("claude:bob")?.alive, true);
  const { message } = await peerpost.mailbox.send({ from: "codex:asker", fromVerified: true, to: "claude:bob", body: "q?", anticipation: "reply" });

  // Alice's agent, from its shell (not under Bob's host), runs the plugin's Stop hook with Bob's id.
  const forged = await runHook("claude-code", "stop", { session_id: "bob", hook_event_name: "Stop", stop_hook_active: false }, env);
  assert.equal(forged.code, 0, forged.stderr);
  const noticed = openPeerpost({ env, home }).mailbox.view("claude:bob").state.messages[message.id]?.noticed;
  assert.equal(forged.stdout, "", `the forged hook learns nothing of Bob's mail: ${forged.stdout}`);
  assert.equal(noticed, undefined, "Bob's request is not marked noticed by someone else's hook: Bob's own Stop hook must still block for it");
});
