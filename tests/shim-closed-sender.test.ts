// A sender writing to a Codex thread the editor closed is told that no turn will start there
// (`recipient_mailbox_only`): the shim starts none until the editor opens it again
// (docs/live-delivery-editors.md), so the message waits for read like mail to a session with no live push.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openPeerpost } from "../core/peerpost.js";
import { until } from "./helpers/poll.js";
import { connect } from "./helpers/mcp.js";
import { SCRIPTED_CODEX, editorOnShim, scriptedHost } from "./helpers/scripted-agent.js";

test("a sender writing to a Codex thread the editor closed hears that no turn will start (recipient_mailbox_only)", async (t) => {
  const rig = scriptedHost(t, "codex", SCRIPTED_CODEX);
  const store = () => openPeerpost({ env: { PEERPOST_HOME: rig.stateDir }, home: rig.home });
  const editor = editorOnShim(t, ["codex", "app-server"], rig);
  await editor.request("initialize", { clientInfo: { name: "ide", version: "1" } });
  await editor.request("thread/start", {});
  await until(() => store().sessions.get("codex:thr-1")?.push === "shim", 10_000, "the shim's registration");
  await editor.request("thread/unsubscribe", { threadId: "thr-1" });
  const sender = await connect(t, { HOME: rig.home, PEERPOST_HOME: rig.stateDir, PEERPOST_ADDRESS: "claude:peer" });
  // The shim's loop reports within moments.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const sent = await sender.raw("message", { to: "codex:thr-1", message: "which branch?", anticipation: "reply" });
  assert.match(JSON.stringify(sent.structuredContent), /recipient_mailbox_only/, JSON.stringify(sent.structuredContent));
});
