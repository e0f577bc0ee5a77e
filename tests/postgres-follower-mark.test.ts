// A server killed outright (SIGKILL, the OOM killer, a reboot) leaves its mark in followers/. A mark names
// its process by pid and start time: once the pid is handed out again (after a reboot the state dir keeps
// its marks, and low pids come back at once), the mark counts for nobody, and prompt hooks do not trust a
// mirror that no one follows.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "./helpers/temp.js";
import { runHook } from "./helpers/hooks.js";
import { mailFromAnotherMachine, NO_POSTGRES, testDatabase } from "./helpers/postgres.js";
import { until } from "./helpers/poll.js";

const peerpostModule = fileURLToPath(new URL("../core/peerpost.js", import.meta.url));

test("a follower's mark left by a killed server does not make hooks trust the mirror once its pid belongs to another process", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_STORE: url, PEERPOST_MIRROR_TRUST_MS: "1000" };
  const hook = (event: string, input: Record<string, unknown>) => runHook("claude-code", event, { session_id: "me", ...input }, env);
  const started = await hook("session-start", { cwd: "/work", hook_event_name: "SessionStart", source: "startup" });
  assert.equal(started.code, 0, started.stderr);

  // A process that follows the database as a server does, then is killed outright.
  const follower = spawn(process.execPath, ["--input-type=module", "-e", `const { openPeerpost } = await import(${JSON.stringify(peerpostModule)}); openPeerpost({ env: process.env, home: process.env.HOME, kind: "server" }).backend.follow(); setInterval(() => {}, 1000);`], { env: { ...process.env, ...env }, stdio: "ignore" });
  t.after(() => void follower.kill("SIGKILL"));
  const followers = join(stateDir, "followers");
  await until(() => existsSync(followers) && readdirSync(followers).length > 0, 20_000, "the follower to mark itself");
  follower.kill("SIGKILL");
  await new Promise((resolve) => follower.once("exit", resolve));
  const [mark, ...more] = readdirSync(followers);
  assert.ok(mark !== undefined && more.length === 0 && mark.split("-")[0] === String(follower.pid), "SIGKILL leaves the mark behind");

  // Its pid handed out again, to a process that has nothing to do with peerpost.
  const unrelated = spawn("sleep", ["60"], { stdio: "ignore" });
  t.after(() => void unrelated.kill("SIGKILL"));
  // (The mark as it lies, but under the pid's new owner: whatever else it records stays the killed server's.)
  renameSync(join(followers, mark), join(followers, mark.replace(/^\d+/, String(unrelated.pid))));

  // Mail from another machine, then a prompt past PEERPOST_MIRROR_TRUST_MS.
  await mailFromAnotherMachine(t, url, "claude:me");
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const prompt = await hook("user-prompt", { hook_event_name: "UserPromptSubmit", prompt: "hi" });
  assert.match(prompt.stdout, /1 new message/, `the hook trusted a mirror no one follows (a stale mark on pid ${unrelated.pid}, a \`sleep\`): ${JSON.stringify(prompt.stdout)}`);
});
