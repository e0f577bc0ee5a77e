// A wake carries its requests' envelopes in its prompt (the host's stdin), up to 96 KiB of them. A request
// within the 64 KiB body limit whose envelope grows past that (markup escaped as &lt; &gt; &amp;) is named
// by id for the woken turn to read instead: the run starts, and later wakes of the session are not stopped by it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { standInClaude, claudeResult } from "./helpers/stand-in-claude.js";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { openPeerpost } from "../core/peerpost.js";
import { captureHostEnv } from "../core/wake/host-env.js";
import { MAX_BODY_BYTES } from "../core/records/record-values.js";

test("a request within the body limit wakes its dormant recipient, and does not stop later wakes", async (t) => {
  const { home, stateDir, project, path } = standInClaude(
    t,
    "peerpost-wake-e2big-",
    (home) => `require("node:fs").appendFileSync(${JSON.stringify(join(home, "started"))}, "x");\nrequire("node:fs").appendFileSync(${JSON.stringify(join(home, "prompts"))}, require("node:fs").readFileSync(0, "utf8") + "\\u0000");\n${claudeResult("answered", "dormant")}`,
  );
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  const peerpost = openPeerpost({ env, home });
  await peerpost.sessions.register({ host: "claude-code", address: "claude:dormant", sessionId: "dormant", cwd: project, source: "startup", hostPid: spawnSync("true").pid! });
  await peerpost.sessions.register({ host: "codex", address: "codex:asker", sessionId: "asker", source: "startup" });
  captureHostEnv(stateDir, "claude:dormant", undefined, { PATH: path, HOME: home });
  const cli = (args: string[]) => collect(spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal((await cli(["wake", "on", "claude:dormant"])).code, 0);
  const ended = (count: number) => until(() => openPeerpost({ env, home }).wakes.fold().runsFor({}).filter((run) => run.ended).length >= count, 20_000, `${count} wake run(s) to end`);
  const starts = () => (existsSync(join(home, "started")) ? readFileSync(join(home, "started"), "utf8").length : 0);

  // A JSX snippet pasted for review: markup-heavy, and within the body limit.
  const snippet = "<td class=\"n\">&lt;&amp;</td>\n".repeat(3000).slice(0, MAX_BODY_BYTES - 100);
  const first = await cli(["send", "--json", "--from", "codex:asker", "--to", "claude:dormant", "--anticipation", "reply", `Please review:\n${snippet}`]);
  assert.equal(first.code, 0, first.stderr + first.stdout);
  assert.equal((JSON.parse(first.stdout) as { wake?: string }).wake, "started");
  await ended(1);
  // Another sender's short question, later: a wake of its own.
  await peerpost.sessions.register({ host: "codex", address: "codex:other", sessionId: "other", source: "startup" });
  const second = await cli(["send", "--json", "--from", "codex:other", "--to", "claude:dormant", "--anticipation", "reply", "are you there?"]);
  assert.equal(second.code, 0, second.stderr + second.stdout);
  await ended(2);
  const runs = openPeerpost({ env, home }).wakes.fold().runsFor({}).map((run) => `${run.ended?.outcome}${run.ended?.reason ? `: ${run.ended.reason}` : ""}`);
  assert.deepEqual({ runs, hostStarts: starts() }, { runs: ["ok", "ok"], hostStarts: 2 });
  // The woken turn is told of the request it could not be handed whole: read shows it.
  const firstId = (JSON.parse(first.stdout) as { messageId: string }).messageId;
  assert.match(readFileSync(join(home, "prompts"), "utf8").split("\u0000")[0]!, new RegExp(`${firstId}[^\\n]*read tool|<peerpost-message id="${firstId}"`));
});
