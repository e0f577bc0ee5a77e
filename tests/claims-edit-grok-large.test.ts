// Grok 1.0.41 cuts a PreToolUse event's toolInput past 128 KiB: the tool's arguments arrive as their JSON
// text cut short with " [truncated]" (and `toolInputTruncated: true`), so a write of a large file (a
// generated file, a lockfile, a bundle) is checked against the claims by the path read from that text.
// Captured from the real CLI: a `write` of 300 000 bytes gave the hook
//   "toolInput":"{\"file_path\":\"src/rel.ts\",\"content\":\"xxx…xxx [truncated]","toolInputTruncated":true
// (131 072 characters of the arguments' text, then " [truncated]"), and the same under tool_input.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runHook } from "./helpers/hooks.js";
import { tempRepo } from "./helpers/repo.js";
import { onCleanup, tempPeerpost } from "./helpers/temp.js";
import { grokSingle, grokUnavailable, installGrokPlugin, makeGrokHome } from "./helpers/grok-cli.js";
import { contentText, startFakeOpenAIChat, toolResults } from "./helpers/fake-openai-chat.js";
import { CLI, REPO_ROOT } from "./helpers/mcp.js";
import { claimPaths } from "../core/claims/claims.js";
import { openPeerpost } from "../core/peerpost.js";

const GROK_TRUNCATE_AT = 131_072;

/** Grok's PreToolUse stdin for a tool call whose arguments' text is `args`, truncated as Grok 1.0.41 does. */
function grokPreToolUse(sessionId: string, cwd: string, toolName: string, args: string): Record<string, unknown> {
  const truncated = args.length > GROK_TRUNCATE_AT;
  const toolInput = truncated ? `${args.slice(0, GROK_TRUNCATE_AT)} [truncated]` : JSON.parse(args);
  return { hookEventName: "pre_tool_use", sessionId, cwd, workspaceRoot: cwd + "/", permissionMode: "bypassPermissions", toolName, toolUseId: "call_1", toolInput, toolInputTruncated: truncated, hook_event_name: "PreToolUse", session_id: sessionId, tool_name: toolName, tool_input: toolInput, tool_use_id: "call_1" };
}

async function held(t: TestContext) {
  const repo = tempRepo(t);
  const { peerpost, stateDir, home, clock } = tempPeerpost(t);
  const host = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  onCleanup(t, () => host.kill("SIGKILL"));
  await peerpost.sessions.register({ host: "claude-code", address: "claude:holder", sessionId: "holder", hostPid: host.pid!, source: "startup" });
  await claimPaths(peerpost, { holder: "claude:holder", cwd: repo, paths: ["src/**"], ttl: "1h" });
  return { repo, env: { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now) } };
}

const denied = (stdout: string) => (stdout === "" ? undefined : (JSON.parse(stdout) as { decision?: string; reason?: string }));

test("grok: a write over 128 KiB (toolInput truncated by Grok) into another session's exclusive claim is refused like a small one", async (t) => {
  const { repo, env } = await held(t);
  const small = await runHook("grok", "pre-tool", grokPreToolUse("editor", repo, "write", JSON.stringify({ file_path: "src/gen.ts", content: "x".repeat(1000) })), env);
  assert.equal(denied(small.stdout)?.decision, "deny", "a small write is refused");
  for (const [tool, args] of [
    ["write", { file_path: "src/gen.ts", content: "x".repeat(300_000) }],
    ["search_replace", { file_path: join(repo, "src", "a.ts"), old_string: "a", new_string: "y".repeat(200_000) }],
  ] as const) {
    const big = await runHook("grok", "pre-tool", grokPreToolUse("editor", repo, tool, JSON.stringify(args)), env);
    assert.equal(big.code, 0);
    assert.equal(denied(big.stdout)?.decision, "deny", `${tool} of ${JSON.stringify(args).length} bytes into src/** was let through: ${JSON.stringify(big.stdout.slice(0, 200))}`);
    assert.match(denied(big.stdout)!.reason!, /is claimed exclusively by claude:holder/);
  }
});

test("grok end to end: the real CLI is refused a 200 KB write into a claimed directory", { skip: grokUnavailable() ?? false, timeout: 300_000 }, async (t) => {
  const repo = tempRepo(t);
  const target = join(repo, "src", "generated.ts");
  const fake = await startFakeOpenAIChat({
    script: (call) => {
      const last = call.body.messages.at(-1);
      if (last?.role === "user" && /ultra-short dashboard line|Generate a session title/.test(contentText(last.content))) return { text: "title" };
      return toolResults(call.body).length === 0 ? { toolCall: { name: "write", arguments: { file_path: target, content: "// generated\n".repeat(16_000) } } } : { text: "DONE" };
    },
  });
  onCleanup(t, () => fake.close());
  const grok = makeGrokHome({ apiBaseUrl: fake.baseUrl });
  onCleanup(t, () => grok.cleanup());
  const stateDir = join(grok.root, "peerpost");
  Object.assign(grok.env, { PEERPOST_HOME: stateDir });
  await installGrokPlugin(grok, REPO_ROOT, "peerpost");
  const installed = spawnSync(process.execPath, [CLI, "hooks", "install", "grok"], { env: grok.env, encoding: "utf8" });
  assert.equal(installed.status, 0, installed.stderr);
  const host = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  onCleanup(t, () => host.kill("SIGKILL"));
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: grok.home });
  onCleanup(t, () => peerpost.backend.close());
  await peerpost.sessions.register({ host: "codex", address: "codex:holder", sessionId: "holder", hostPid: host.pid!, source: "startup" });
  await claimPaths(peerpost, { holder: "codex:holder", cwd: repo, paths: ["src/**"], reason: "regenerating" });
  const run = await grokSingle("regenerate src/generated.ts", { home: grok, cwd: repo });
  assert.equal(run.code, 0, run.stderr.slice(-2000));
  assert.ok(!existsSync(target), "Grok wrote a 200 KB file into src/**, which codex:holder claims exclusively");
});
