// The state dir's own subdirs that hold what a wake runs with (wake-env/: a host's captured environment,
// credentials among them), when a terminal turn ended (turns/) and which servers follow a database
// (followers/) are checked as cache/ and logs/ are: a link in their place, or another user's dir, gets
// nothing written into it (each write is best effort, so the caller goes on without it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { captureHostEnv } from "../core/wake/host-env.js";
import { recordTurn } from "../core/live/turns.js";
import { markFollowing } from "../core/store/postgres/followers.js";

test("wake-env/, turns/ and followers/ that are links receive nothing", (t) => {
  const base = tempDir(t);
  const stateDir = join(base, "state");
  mkdirSync(stateDir, { mode: 0o700 });
  const elsewhere = join(base, "elsewhere");
  mkdirSync(elsewhere, { mode: 0o755 });
  for (const name of ["wake-env", "turns", "followers"]) symlinkSync(elsewhere, join(stateDir, name));
  captureHostEnv(stateDir, "claude:s1", undefined, { PATH: "/usr/bin", ANTHROPIC_API_KEY: "sk-ant-secret" });
  recordTurn(stateDir, "claude:s1", "prompt", new Date().toISOString());
  markFollowing(stateDir, "postgres://db/peerpost", true);
  assert.deepEqual(readdirSync(elsewhere), []);
  markFollowing(stateDir, "postgres://db/peerpost", false);
});
