// Grok 1.0.41 expands a leading `~` in the file_path of its `write` and `search_replace` tools to the home
// directory (verified: `write {file_path: "~/proj/tilde.ts"}` created $HOME/proj/tilde.ts, and the hook's
// stdin carried the path unexpanded): the hook checks the path as Grok writes it. (Codex's dialect checks
// both readings; Claude Code expands the path itself before the hook; Copilot does not expand it.)
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runHook } from "./helpers/hooks.js";
import { git } from "./helpers/repo.js";
import { onCleanup, tempPeerpost } from "./helpers/temp.js";
import { grokSingle, grokUnavailable, installGrokPlugin, makeGrokHome } from "./helpers/grok-cli.js";
import { contentText, startFakeOpenAIChat, toolResults } from "./helpers/fake-openai-chat.js";
import { CLI, REPO_ROOT } from "./helpers/mcp.js";
import { claimPaths } from "../core/claims/claims.js";
import { openPeerpost, type Peerpost } from "../core/peerpost.js";

/** A git repository at <home>/proj with src/a.ts. */
function repoInHome(home: string): string {
  const repo = join(home, "proj");
  mkdirSync(join(repo, "src"), { recursive: true });
  writeFileSync(join(repo, "src", "a.ts"), "a\n");
  git(repo, "init", "-q", "-b", "main");
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "start");
  return repo;
}

async function holderClaims(t: TestContext, peerpost: Peerpost, repo: string) {
  const host = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  onCleanup(t, () => host.kill("SIGKILL"));
  await peerpost.sessions.register({ host: "codex", address: "codex:holder", sessionId: "holder", hostPid: host.pid!, source: "startup" });
  await claimPaths(peerpost, { holder: "codex:holder", cwd: repo, paths: ["src/**"], reason: "mine", ttl: "1h" });
}

test("grok: a write named from `~` (which Grok expands to $HOME) into another session's exclusive claim is refused", async (t) => {
  const { peerpost, stateDir, home, clock } = tempPeerpost(t);
  const repo = repoInHome(home);
  await holderClaims(t, peerpost, repo);
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now) };
  const stdin = (tool: string, toolInput: Record<string, unknown>) => ({ hookEventName: "pre_tool_use", sessionId: "editor", cwd: repo, workspaceRoot: repo + "/", toolName: tool, toolInput, hook_event_name: "PreToolUse", session_id: "editor", tool_name: tool, tool_input: toolInput });
  const absolute = await runHook("grok", "pre-tool", stdin("write", { file_path: join(repo, "src", "a.ts"), content: "x" }), env);
  assert.match(absolute.stdout, /"decision":"deny"/, "the same file named absolutely is refused");
  for (const [tool, input] of [
    ["write", { file_path: "~/proj/src/a.ts", content: "x" }],
    ["search_replace", { file_path: "~/proj/src/a.ts", old_string: "a", new_string: "b" }],
  ] as const) {
    const run = await runHook("grok", "pre-tool", stdin(tool, input), env);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /"decision":"deny"/, `${tool} of ~/proj/src/a.ts was let through`);
  }
});

test("grok end to end: the real CLI is refused an edit of a claimed file named from `~`", { skip: grokUnavailable() ?? false, timeout: 300_000 }, async (t) => {
  const fake = await startFakeOpenAIChat({
    script: (call) => {
      const last = call.body.messages.at(-1);
      if (last?.role === "user" && /ultra-short dashboard line|Generate a session title/.test(contentText(last.content))) return { text: "title" };
      return toolResults(call.body).length === 0 ? { toolCall: { name: "search_replace", arguments: { file_path: "~/proj/src/a.ts", old_string: "a", new_string: "edited" } } } : { text: "DONE" };
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
  const repo = repoInHome(grok.home);
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: grok.home });
  onCleanup(t, () => peerpost.backend.close());
  await holderClaims(t, peerpost, repo);
  const run = await grokSingle("edit src/a.ts", { home: grok, cwd: repo });
  assert.equal(run.code, 0, run.stderr.slice(-2000));
  assert.equal(readFileSync(join(repo, "src", "a.ts"), "utf8"), "a\n", "Grok edited src/a.ts, which codex:holder claims exclusively");
});
