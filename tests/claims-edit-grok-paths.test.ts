// What the pre-tool hook reads of Grok 1.0.41's writes, checked against another session's exclusive claim,
// each verified against the real CLI:
// - past 128 KiB Grok cuts a PreToolUse event's toolInput: the tool's arguments arrive as their JSON text
//   cut short with " [truncated]" (and `toolInputTruncated: true`), so a write of a large file (a generated
//   file, a lockfile, a bundle) is checked by the path read from that text. Captured: a `write` of 300 000
//   bytes gave the hook
//     "toolInput":"{\"file_path\":\"src/rel.ts\",\"content\":\"xxx…xxx [truncated]","toolInputTruncated":true
//   (131 072 characters of the arguments' text, then " [truncated]"), and the same under tool_input;
// - Grok expands a leading `~` in the file_path of `write` and `search_replace` to the home directory
//   (`write {file_path: "~/proj/tilde.ts"}` created $HOME/proj/tilde.ts, and the hook's stdin carried the
//   path unexpanded): the hook checks the path as Grok writes it. (Codex's dialect checks both readings;
//   Claude Code expands the path itself before the hook; Copilot does not expand it.)
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runHook } from "./helpers/hooks.js";
import { git, tempRepo } from "./helpers/repo.js";
import { onCleanup, tempPeerpost } from "./helpers/temp.js";
import { grokSingle, grokUnavailable, installGrokPlugin, makeGrokHome } from "./helpers/grok-cli.js";
import { contentText, startFakeOpenAIChat, toolResults } from "./helpers/fake-openai-chat.js";
import { CLI, REPO_ROOT } from "./helpers/mcp.js";
import { claimPaths } from "../core/claims/claims.js";
import { openPeerpost, type Peerpost } from "../core/peerpost.js";

const GROK_TRUNCATE_AT = 131_072;

/** Grok's PreToolUse stdin for a tool call whose arguments' text is `args`, truncated as Grok 1.0.41 does. */
function grokPreToolUse(sessionId: string, cwd: string, toolName: string, args: string): Record<string, unknown> {
  const truncated = args.length > GROK_TRUNCATE_AT;
  const toolInput = truncated ? `${args.slice(0, GROK_TRUNCATE_AT)} [truncated]` : JSON.parse(args);
  return { hookEventName: "pre_tool_use", sessionId, cwd, workspaceRoot: cwd + "/", permissionMode: "bypassPermissions", toolName, toolUseId: "call_1", toolInput, toolInputTruncated: truncated, hook_event_name: "PreToolUse", session_id: sessionId, tool_name: toolName, tool_input: toolInput, tool_use_id: "call_1" };
}

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

/** codex:holder, a live session elsewhere, claims src/** of `repo` exclusively. */
async function holderClaims(t: TestContext, peerpost: Peerpost, repo: string) {
  const host = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  onCleanup(t, () => host.kill("SIGKILL"));
  await peerpost.sessions.register({ host: "codex", address: "codex:holder", sessionId: "holder", hostPid: host.pid!, source: "startup" });
  await claimPaths(peerpost, { holder: "codex:holder", cwd: repo, paths: ["src/**"], reason: "mine", ttl: "1h" });
}

async function held(t: TestContext) {
  const repo = tempRepo(t);
  const { peerpost, stateDir, home, clock } = tempPeerpost(t);
  await holderClaims(t, peerpost, repo);
  return { repo, env: { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now) } };
}

const denied = (stdout: string) => (stdout === "" ? undefined : (JSON.parse(stdout) as { decision?: string; reason?: string }));

/**
 * The real Grok, offline, with peerpost's plugin and user-level hooks, in a repository (`repoOf` its home)
 * whose src/** codex:holder claims, and whose model makes one tool call (`name`, with `argsOf` the
 * repository) and then says DONE. Returns the repository.
 */
async function grokEdits(t: TestContext, name: string, repoOf: (home: string) => string, argsOf: (repo: string) => Record<string, unknown>): Promise<string> {
  let args: Record<string, unknown> = {};
  const fake = await startFakeOpenAIChat({
    script: (call) => {
      const last = call.body.messages.at(-1);
      if (last?.role === "user" && /ultra-short dashboard line|Generate a session title/.test(contentText(last.content))) return { text: "title" };
      return toolResults(call.body).length === 0 ? { toolCall: { name, arguments: args } } : { text: "DONE" };
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
  const repo = repoOf(grok.home);
  args = argsOf(repo);
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: grok.home });
  onCleanup(t, () => peerpost.backend.close());
  await holderClaims(t, peerpost, repo);
  const run = await grokSingle(`${name} in src`, { home: grok, cwd: repo });
  assert.equal(run.code, 0, run.stderr.slice(-2000));
  return repo;
}

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
    assert.match(denied(big.stdout)!.reason!, /is claimed exclusively by codex:holder/);
  }
});

test("grok end to end: the real CLI is refused a 200 KB write into a claimed directory", { skip: grokUnavailable() ?? false, timeout: 300_000 }, async (t) => {
  const repo = await grokEdits(t, "write", () => tempRepo(t), (repo) => ({ file_path: join(repo, "src", "generated.ts"), content: "// generated\n".repeat(16_000) }));
  assert.ok(!existsSync(join(repo, "src", "generated.ts")), "Grok wrote a 200 KB file into src/**, which codex:holder claims exclusively");
});

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
  const repo = await grokEdits(t, "search_replace", repoInHome, () => ({ file_path: "~/proj/src/a.ts", old_string: "a", new_string: "edited" }));
  assert.equal(readFileSync(join(repo, "src", "a.ts"), "utf8"), "a\n", "Grok edited src/a.ts, which codex:holder claims exclusively");
});
