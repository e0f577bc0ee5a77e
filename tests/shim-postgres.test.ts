// `peerpost shim` on a PostgreSQL store: the session the editor opens is registered before its pushes start,
// and a registration the database refused once (its connection dropped) is tried again: the session still
// gets its requests as turns.
import { test } from "node:test";
import { openPeerpost } from "../core/peerpost.js";
import { until } from "./helpers/poll.js";
import { NO_POSTGRES, dropConnectionOnce, testDatabase } from "./helpers/postgres.js";
import { SCRIPTED_CODEX, editorOnShim, scriptedHost, shimRequests } from "./helpers/scripted-agent.js";

test("a session whose registration the database dropped once still gets its requests pushed", { timeout: 150_000 }, async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const rig = scriptedHost(t, "codex", SCRIPTED_CODEX);
  Object.assign(rig.env, { PEERPOST_STORE: url });
  const store = () => openPeerpost({ env: { PEERPOST_HOME: rig.stateDir, PEERPOST_STORE: url }, home: rig.home });
  // The schema, then a trigger that drops the connection of the first registration's insert.
  const setUp = store();
  await setUp.backend.sync();
  await setUp.sessions.register({ host: "claude-code", address: "claude:asker", sessionId: "asker", source: "startup" });
  await setUp.backend.close();
  await dropConnectionOnce(url, "peerpost_log_sessions", "NEW.record->>'address' = 'codex:thr-1'");
  const editor = editorOnShim(t, ["codex", "app-server"], rig);
  await editor.request("initialize", { clientInfo: { name: "ide", version: "1" } });
  await editor.request("thread/start", {});
  const peer = store();
  t.after(() => peer.backend.close());
  await until(async () => (await peer.backend.sync(), peer.sessions.get("codex:thr-1")?.push === "shim"), 20_000, "the shim's registration, tried again");
  await peer.mailbox.send({ from: "claude:asker", fromVerified: true, to: "codex:thr-1", body: "which branch?", anticipation: "reply" });
  await until(() => shimRequests(rig).some((entry) => entry.line.includes('"method":"turn/start"')), 20_000, "the push");
});
