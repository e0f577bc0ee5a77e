// Grok Build offline: `peerpost hooks install grok` writes the user-level hook file the real CLI runs
// (it ignores a plugin's own hooks); a `grok --single` run registers its session and ends; a request
// wakes it with `grok --prompt-file /dev/stdin --resume <id> --allow peerpost__read --allow peerpost__reply`; the fake
// model reads and replies through use_tool; the answer reaches the sender's `wait`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { spawn } from "node:child_process";
import { CLI, connect } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { chatAnswerMail } from "./helpers/answer-mail.js";
import { until } from "./helpers/poll.js";
import type { Turn } from "./helpers/fake-openai-chat.js";
import { grokSingle, grokUnavailable } from "./helpers/grok-cli.js";
import { grokWithPeerpost } from "./helpers/chat-hosts.js";
import { openPeerpost } from "../core/peerpost.js";
import { GROK_HOOKS } from "../plugins/grok/inspect.js";

const unavailable = grokUnavailable();
const useTool = (tool: string, input: unknown): Turn => ({ toolCall: { name: "use_tool", arguments: { tool_name: `peerpost__${tool}`, tool_input: input } } });


test("grok: user-level hooks installed by peerpost; a request wakes an ended session; the model reads and replies; the answer reaches wait", { skip: unavailable ? `grok CLI unavailable: ${unavailable}` : false, timeout: 240_000 }, async (t) => {
  const { home: grok, stateDir, answer, fake } = await grokWithPeerpost(t);
  const cliEnv = { ...grok.env, PEERPOST_ADDRESS: "claude:peer" };
  const cli = (args: string[]) => collect(spawn(process.execPath, [CLI, ...args], { env: cliEnv, stdio: ["ignore", "pipe", "pipe"] }));

  const doctorBefore = JSON.parse((await cli(["doctor", "--json"])).stdout) as { problems: Array<{ fix: string }> };
  assert.ok(doctorBefore.problems.some((problem) => /^(peerpost|node \S+\/dist\/cli\.cjs) hooks install grok/.test(problem.fix)), "doctor says the user-level hooks are missing");
  const installed = await cli(["hooks", "install", "grok", "--json"]);
  assert.equal(installed.code, 0, installed.stderr);
  const hookFile = join(grok.grokHome, "hooks", "peerpost.json");
  assert.equal((JSON.parse(installed.stdout) as { path: string }).path, hookFile);
  assert.match(readFileSync(hookFile, "utf8"), /node '[^']*\/hooks\.cjs' session-start/);
  const doctorAfter = JSON.parse((await cli(["doctor", "--json"])).stdout) as { problems: Array<{ fix: string }>; hosts: Array<{ host: string; hooks: string }> };
  assert.ok(!doctorAfter.problems.some((problem) => problem.fix.includes("hooks install grok")));
  assert.equal(doctorAfter.hosts.find((host) => host.host === "grok")?.hooks, GROK_HOOKS.installed, "doctor says the hooks run once they are installed");

  const sessionId = randomUUID();
  const address = `grok:${sessionId}`;
  const first = await grokSingle("hello", { home: grok, sessionId });
  assert.equal(first.code, 0, first.stderr.slice(-2000));
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: grok.home });
  const entry = store().sessions.all().find((session) => session.address === address);
  assert.ok(entry?.cwd !== undefined && entry.alive === false, JSON.stringify(entry));
  const records = readFileSync(join(stateDir, "sessions.jsonl"), "utf8");
  assert.match(records, new RegExp(`"address":"${address}"[^\\n]*"source":"startup"`), "the user-level SessionStart hook ran");

  // The launch below runs the grok binary found on the requesting server's own PATH, never a capture's.
  const peer = await connect(t, { HOME: grok.home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "claude:peer", PATH: grok.env.PATH ?? "" });
  await peer.call("health");
  assert.equal((await cli(["wake", "on", "grok"])).code, 0);
  answer(chatAnswerMail(useTool, "grok answers"));
  const asked = await peer.call("message", { to: address, message: "Is the build green?", anticipation: "reply" });
  assert.equal(asked.wake, "started", JSON.stringify(asked));
  const waited = await peer.call("wait", { messageId: asked.messageId, timeoutMs: 60_000 });
  const runs = store().wakes.fold().runsFor({ address });
  const log = runs[0]?.ended?.logPath && existsSync(runs[0].ended.logPath) ? readFileSync(runs[0].ended.logPath, "utf8").slice(-2000) : "";
  assert.equal(waited.outcome, "reply", JSON.stringify({ waited, runs, log }));
  assert.match(String((waited.reply as { envelope: string }).envelope), new RegExp(`from="${address}" fromVerified="true"[\\s\\S]*grok answers ${String(asked.messageId)}`));

  await until(() => store().wakes.fold().runsFor({ address })[0]?.ended !== undefined, 60_000, "the woken run to end");
  assert.equal(store().wakes.fold().runsFor({ address })[0]!.ended!.outcome, "ok");
  assert.ok(fake.findShown("Is the build green?").length > 0, "the woken turn's prompt, on stdin, carries the request");
  // Launch: a new Grok session (Grok takes MCP servers from its config: the installed plugin serves it).
  assert.equal((await cli(["launch", "on"])).code, 0);
  answer(chatAnswerMail(useTool, "grok helper"));
  const launched = await peer.call("launch", { host: "grok", cwd: grok.workDir, message: "Summarise the work dir." });
  assert.match(String(launched.address), /^grok:[0-9a-f-]{36}$/, JSON.stringify(launched));
  const helped = await peer.call("wait", { messageId: launched.messageId, timeoutMs: 60_000 });
  const launchRuns = store().wakes.fold().runsFor({ address: String(launched.address) });
  assert.equal(helped.outcome, "reply", JSON.stringify({ helped, launchRuns }));
  assert.match(String((helped.reply as { envelope: string }).envelope), new RegExp(`from="${String(launched.address)}" fromVerified="true"[\\s\\S]*grok helper`));
  await until(() => store().wakes.fold().runsFor({ address: String(launched.address) })[0]?.ended !== undefined, 60_000, "the launched run to end");
  assert.ok(fake.findShown("Summarise the work dir.").length > 0, "the launched turn's prompt carries the request");
  const removed = await cli(["hooks", "uninstall", "grok"]);
  assert.equal(removed.code, 0);
  assert.equal(existsSync(hookFile), false);
});
