// A fork runs on a copy of a session's history and carries no mail: a request sent to the dormant
// session meanwhile is woken as usual, not told that a run of the session takes it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { dormantSession, standInClaude } from "./helpers/stand-in-claude.js";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { openPeerpost } from "../core/peerpost.js";

test("a request sent while a fork of the session runs is woken once the fork ends (it was told a run takes it)", { timeout: 60_000 }, async (t) => {
  // A stand-in `claude`: a fork (--fork-session) waits for the gate and names its new session; a resume answers.
  const standIn = standInClaude(
    t,
    "peerpost-strand-",
    (home) => `const fs = require("node:fs");
const args = process.argv.slice(2);
const fork = args.includes("--fork-session");
fs.appendFileSync(${JSON.stringify(join(home, "invocations.jsonl"))}, JSON.stringify({ fork, args }) + "\\n");
const finish = () => process.stdout.write(JSON.stringify({ type: "result", subtype: "success", is_error: false, num_turns: 1, result: "done", session_id: fork ? "forked-1" : "dormant" }) + "\\n");
const wait = () => (fork && !fs.existsSync(${JSON.stringify(join(home, "release"))}) ? setTimeout(wait, 20) : finish());
wait();
`,
  );
  const { home, stateDir, path } = standIn;
  const record = join(home, "invocations.jsonl");
  const gate = join(home, "release");
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  const store = () => openPeerpost({ env, home, create: true });
  const address = "claude:dormant";
  await dormantSession(store(), standIn, address);
  const cli = async (...args: string[]) => collect(spawn(process.execPath, [CLI, ...args], { env: { ...env, PATH: path }, stdio: ["ignore", "pipe", "pipe"] }));
  const invocations = () => (existsSync(record) ? readFileSync(record, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as { fork: boolean }) : []);

  assert.equal((await cli("wake", "on", address)).code, 0);
  const forked = await cli("fork", address, "summarize what you did", "--json");
  assert.equal(forked.code, 0, forked.stderr + forked.stdout);
  const forkRun = String((JSON.parse(forked.stdout) as { runId: string }).runId);
  await until(() => invocations().some((entry) => entry.fork), 20_000, "the fork's host to start");

  // The owner's mail meanwhile: a request that a wake should answer.
  const sent = await cli("send", "--json", "--from", "codex:asker", "--to", address, "--anticipation", "reply", "are the tests green?");
  assert.equal(sent.code, 0, sent.stderr);
  const result = JSON.parse(sent.stdout) as { messageId: string; wake?: string; warnings: Array<{ code: string; message: string }> };
  // On the current code it is told a run takes it (wake: "running", the fork's run id)...
  assert.ok(result.wake === "running" || result.wake === "started", JSON.stringify(result));

  writeFileSync(gate, "");
  await until(() => store().wakes.fold().runs.get(forkRun)?.reconciled !== undefined, 20_000, "the fork to end and answer");
  // ...so once the fork is over, a wake must carry it (the switch is on, the budget has room).
  const carried = () => store().wakes.fold().runsFor({ messageId: result.messageId }).some((run) => run.claim.kind === "wake");
  const deadline = Date.now() + 10_000;
  while (!carried() && Date.now() < deadline) await sleep(100);
  assert.ok(carried(), `no wake ever carried ${result.messageId}: the fork's "${result.wake}" stranded it (resumes: ${invocations().filter((entry) => !entry.fork).length})`);
});
