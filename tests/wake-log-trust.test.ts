// A run's output log (`wakes/<id>.log`, what the woken host printed, mail and answers included; a fork's
// answer is read back from it) and its prompt file are state files, in a `wakes/` dir of this user's own:
// a `wakes/` that is a link (or another user's dir) receives nothing, and the run ends failed with why.
// A wakes log that cannot be used skips only the wake: the request was stored, and its send says so
// (wake_unsure) rather than failing, which would make its sender send it again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { standInClaude, claudeResult, dormantSession } from "./helpers/stand-in-claude.js";
import { tempDir } from "./helpers/temp.js";
import { CLI, connect } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { openPeerpost } from "../core/peerpost.js";
import { setWakeRule, updateSwitches } from "../core/wake/switches.js";

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

test("a send whose wakes log is refused stores the message once and answers ok with a wake_unsure warning", { timeout: 60_000 }, async (t) => {
  const standIn = standInClaude(t, "peerpost-wakes-log-refused-", () => claudeResult("answered", "dormant"));
  const { home, stateDir } = standIn;
  const env = { HOME: home, PEERPOST_HOME: stateDir, PATH: standIn.path };
  const store = () => openPeerpost({ env, home, create: true });
  await dormantSession(store(), standIn);
  updateSwitches(stateDir, (switches) => setWakeRule(switches, "all", true, () => undefined));
  const elsewhere = join(home, "elsewhere.jsonl");
  writeFileSync(elsewhere, "");
  symlinkSync(elsewhere, join(stateDir, "wakes.jsonl"));

  // The command line.
  const sent = await collect(spawn(process.execPath, [CLI, "send", "--json", "--from", "codex:asker", "--to", "claude:dormant", "--anticipation", "reply", "first question"], { env, stdio: ["ignore", "pipe", "pipe"] }));
  const stored = () => Object.values(store().mailbox.view("claude:dormant").state.messages).filter((message) => message.to === "claude:dormant");
  assert.equal(stored().length, 1, "the message was stored");
  assert.equal(sent.code, 0, `the send was stored but reported as failed: ${sent.stdout}`);
  const cliResult = JSON.parse(sent.stdout) as { ok: boolean; warnings?: Array<{ code: string }> };
  assert.ok(cliResult.warnings?.some((warning) => warning.code === "wake_unsure"), sent.stdout);

  // The MCP tool.
  const asker = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:asker" });
  const asked = (await asker.call("message", { to: "claude:dormant", message: "second question", anticipation: "reply" })) as { ok?: boolean; error?: unknown; messageId?: string };
  assert.equal(stored().length, 2, "the message was stored");
  assert.equal(asked.error, undefined, `the message was stored but the tool answered an error: ${JSON.stringify(asked)}`);
  assert.ok(asked.messageId);
});
