// A Codex launch whose host never names its thread is given up after LAUNCH_BIND_TIMEOUT_MS: the launcher
// hears it failed and its run is recorded ended, which frees its PEERPOST_WAKE_CONCURRENCY slot. The host
// it started does not keep running after that, unaddressed and uncounted, until the turn timeout.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { standInOnPath } from "./helpers/stand-in-bin.js";
import { isAlive } from "../core/sessions/process-tree.js";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { openPeerpost } from "../core/peerpost.js";


test("a Codex launch given up before its host named the thread leaves no host running", { timeout: 120_000 }, async (t) => {
  // A stand-in codex that hangs before its first event (stuck on its network or login).
  const { home, work, env: base } = standInOnPath(t, "peerpost-launch-unnamed-", "codex", `require("node:fs").writeFileSync(require("node:path").join(process.env.HOME, "codex.pid"), String(process.pid));\nsetTimeout(() => {}, 110000);\n`);
  const pidFile = join(home, "codex.pid");
  t.after(() => {
    if (existsSync(pidFile))
      try {
        process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL");
      } catch {
        // gone
      }
  });
  const env = { ...base, PEERPOST_WAKE_TIMEOUT_MS: "600000" };
  const cli = async (...args: string[]) => collect(spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal((await cli("launch", "on")).code, 0);
  const launched = await cli("launch", "--host", "codex", "--cwd", work, "--json", "count the files");
  assert.notEqual(launched.code, 0, launched.stdout);
  assert.match(launched.stdout + launched.stderr, /did not name its new session/);
  const store = openPeerpost({ env, home })!;
  const run = [...store.wakes.fold().runs.values()][0]!;
  assert.equal(run.ended?.outcome, "failed");
  assert.equal(store.wakes.fold().active(Date.now()).length, 0, "the run no longer counts against the concurrency");
  const host = Number(readFileSync(pidFile, "utf8"));
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.equal(isAlive(host), false, `codex (${host}) of the launch recorded "${run.ended?.reason}" still runs, outside the concurrency budget, until the ${env.PEERPOST_WAKE_TIMEOUT_MS} ms turn timeout`);
});
