// A run's output log (`wakes/<id>.log`, what the woken host printed, mail and answers included; a fork's
// answer is read back from it) and its prompt file are state files, in a `wakes/` dir of this user's own:
// a `wakes/` that is a link (or another user's dir) receives nothing, and the run ends failed with why.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { standInClaude, claudeResult, dormantSession } from "./helpers/stand-in-claude.js";
import { tempDir } from "./helpers/temp.js";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { openPeerpost } from "../core/peerpost.js";

test("a wake's output log is never written through a linked wakes/ dir", { timeout: 60_000 }, async (t) => {
  const standIn = standInClaude(t, "peerpost-wakes-link-", () => `require("node:fs").readFileSync(0, "utf8");\n${claudeResult("SECRET ANSWER of the woken session", "dormant")}`);
  const { home, stateDir } = standIn;
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  const peerpost = openPeerpost({ env, home });
  await dormantSession(peerpost, standIn);
  const outside = join(tempDir(t, "peerpost-outside-"), "elsewhere");
  mkdirSync(outside);
  symlinkSync(outside, join(stateDir, "wakes"));
  const cli = (args: string[]) => collect(spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal((await cli(["wake", "on", "claude:dormant"])).code, 0);
  const sent = await cli(["send", "--json", "--from", "codex:asker", "--to", "claude:dormant", "--anticipation", "reply", "the private question"]);
  assert.equal(sent.code, 0, sent.stderr + sent.stdout);
  await until(() => openPeerpost({ env, home }).wakes.fold().runsFor({}).some((run) => run.ended), 20_000, "the wake run to end");
  assert.deepEqual(readdirSync(outside), [], "the run's log (the woken session's output) was written through the link");
  // Refused, the run ends at once and says why (not left claimed until its deadline).
  const run = openPeerpost({ env, home }).wakes.fold().runsFor({})[0]!;
  assert.equal(run.ended?.outcome, "failed");
  assert.match(run.ended?.reason ?? "", /symbolic link/);
});
