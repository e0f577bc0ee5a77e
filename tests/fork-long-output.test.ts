// A fork's final answer comes back to the forked session however much the fork printed on its way: a Codex
// fork streams every command's output in its `--json` events, so a turn that read a big file prints more
// than the run log keeps (256 KiB), and its answer, the last event, still reaches the original.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { standInOnPath } from "./helpers/stand-in-bin.js";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { openPeerpost } from "../core/peerpost.js";

test("a Codex fork that printed more than the log keeps still sends its final answer back", { timeout: 60_000 }, async (t) => {
  // A stand-in `codex exec --json fork`: the thread, one command whose output is 300 KiB, the answer.
  const { home, work: project, env } = standInOnPath(
    t,
    "peerpost-fork-big-",
    "codex",
    `const out = (event) => process.stdout.write(JSON.stringify(event) + "\\n");
out({ type: "thread.started", thread_id: "forked-thread" });
out({ type: "item.completed", item: { id: "item_0", type: "command_execution", command: "cat big.log", aggregated_output: "x".repeat(300 * 1024), exit_code: 0, status: "completed" } });
out({ type: "item.completed", item: { id: "item_1", type: "agent_message", text: "FORK ANSWER: 42" } });
out({ type: "turn.completed", usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 5 } });
`,
  );
  const store = () => openPeerpost({ env, home, create: true });
  const address = "codex:original";
  await store().sessions.register({ host: "codex", address, sessionId: "original", cwd: project, source: "startup" });
  const forked = await collect(spawn(process.execPath, [CLI, "fork", address, "What is the answer?", "--json"], { env, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(forked.code, 0, forked.stderr + forked.stdout);
  const runId = String((JSON.parse(forked.stdout) as { runId: string }).runId);
  await until(() => store().wakes.fold().runs.get(runId)?.reconciled !== undefined, 30_000, "the fork to end and answer");
  const run = store().wakes.fold().runs.get(runId)!;
  assert.equal(run.ended?.outcome, "ok", JSON.stringify(run.ended));
  const answers = Object.values(store().mailbox.view(address).state.messages).filter((message) => message.to === address && message.from === "codex:forked-thread");
  assert.equal(answers.length, 1);
  const body = store().mailbox.body(answers[0]!);
  assert.match(body, /FORK ANSWER: 42/, `the original was sent: ${body.slice(0, 300)}`);
});
