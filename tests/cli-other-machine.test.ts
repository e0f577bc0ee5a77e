// Two machines share one PostgreSQL store. A session running on the other machine is one whose liveness
// this machine cannot see: `agents` says RUNNING ?, as its help explains, and so do `status` and `send`:
// neither tells the person it is not running.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { cli } from "./helpers/cli.js";
import { NO_POSTGRES, testDatabase } from "./helpers/postgres.js";
import { openPeerpost } from "../core/peerpost.js";

test("a session running on another machine is not 'not running' in status or send", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const machine = () => {
    const home = tempDir(t);
    return { home, env: { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_STORE: url, PEERPOST_USER: "ana" } };
  };
  const laptop = machine();
  const devbox = machine();
  // The devbox's session, running there (its host process is alive on the devbox).
  const there = openPeerpost({ env: devbox.env, home: devbox.home });
  await there.sessions.register({ host: "codex", address: "codex:devbox", sessionId: "devbox", source: "startup", hostPid: process.pid, cwd: devbox.home });
  assert.equal(there.sessions.get("codex:devbox")?.alive, true);
  await there.backend.close();

  const agents = await cli(laptop.env, "agents");
  assert.equal(agents.code, 0, agents.stderr);
  assert.match(agents.stdout, /^codex:devbox .* \? /m);

  const status = await cli(laptop.env, "status");
  assert.equal(status.code, 0, status.stderr);
  const row = status.stdout.split("\n").find((line) => line.startsWith("codex:devbox"));
  assert.ok(row, status.stdout);
  assert.doesNotMatch(row, /^codex:devbox +no /, `status on the laptop says the devbox's running session is not running:\n${status.stdout}`);

  const sent = await cli(laptop.env, "send", "--to", "codex:devbox", "--anticipation", "reply", "Is the build green?");
  assert.equal(sent.code, 0, sent.stderr);
  assert.doesNotMatch(sent.stderr, /is not running now/, `send on the laptop:\n${sent.stderr}`);
});
