// A Codex sub-agent (spawn_agent) writes a rollout of its own, whose session_meta names its parent
// (`parent_thread_id`, `source: {subagent: …}`). It is part of its parent's turn, not a session a person
// started: `agents --all` and `sessions list` list the parent once and not the sub-agent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { cli, json } from "./helpers/cli.js";
import { codexAvailable, isolatedCodexEnv, jsonLines, makeScratchDir, runCodex } from "./helpers/codex-cli.js";
import { startFakeResponses } from "./helpers/fake-openai-responses.js";

test("Codex: a sub-agent's rollout is not listed as a session of its own", { skip: codexAvailable().ok ? false : "codex CLI unavailable" }, async (t) => {
  const scratch = makeScratchDir();
  onCleanup(t, () => rmSync(scratch, { recursive: true, force: true }));
  const cwd = join(scratch, "project");
  mkdirSync(cwd);
  // The parent's first turn spawns a sub-agent; every other request is answered with text.
  const fake = await startFakeResponses((_request, index) => (index === 0 ? { toolCall: { namespace: "multi_agent_v1", name: "spawn_agent", arguments: { message: "look at the tests" } } } : { text: "DONE" }));
  onCleanup(t, () => fake.close());
  const codex = isolatedCodexEnv(scratch, fake.baseUrl);
  const run = await runCodex(["exec", "--json", "--skip-git-repo-check", "tidy the readme"], { env: codex.env, cwd, timeoutMs: 90_000 });
  assert.equal(run.code, 0, run.stderr);
  const events = jsonLines(run.stdout);
  const parent = events.find((event) => event.type === "thread.started")!.thread_id as string;
  const spawned = events.flatMap((event) => ((event.item as { receiver_thread_ids?: string[] } | undefined)?.receiver_thread_ids ?? []));
  assert.equal(spawned.length, 1, run.stdout);

  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "pat", CODEX_HOME: codex.codexHome, CLAUDE_CONFIG_DIR: join(home, "none"), COPILOT_HOME: join(home, "none"), GROK_HOME: join(home, "none") };
  const listed = await cli(env, "agents", "--all", "--json");
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual((json(listed).unseen as Array<{ address: string }>).map((row) => row.address), [`codex:${parent}`], `the sub-agent codex:${spawned[0]} is no session of its own`);
  const sessions = await cli(env, "sessions", "list", "--json");
  assert.equal(sessions.code, 0, sessions.stderr);
  assert.ok(!sessions.stdout.includes(spawned[0]!), sessions.stdout);
});
