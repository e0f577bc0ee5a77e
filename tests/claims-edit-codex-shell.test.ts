// Codex 0.171.0 offers a model it gives no apply_patch tool (gpt-5.1, and any model outside its catalogue)
// only exec_command, and its own instructions have the model edit with `apply_patch <<'EOF' … EOF` there.
// Codex recognises that command, applies the patch itself, and runs PreToolUse with tool_name "Bash" and
// tool_input.command = the command (captured from the real CLI): the hook reads that patch as it reads
// apply_patch's, and refuses it where it writes into another session's exclusive claim.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runHook } from "./helpers/hooks.js";
import { tempRepo } from "./helpers/repo.js";
import { onCleanup, tempPeerpost } from "./helpers/temp.js";
import { REPO_ROOT } from "./helpers/mcp.js";
import { codexAvailable, isolatedCodexEnv, makeScratchDir, runCodex } from "./helpers/codex-cli.js";
import { startFakeResponses } from "./helpers/fake-openai-responses.js";
import { claimPaths } from "../core/claims/claims.js";
import { openPeerpost, type Peerpost } from "../core/peerpost.js";

const HEREDOC = (path: string) => `apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: ${path}\n@@\n-a\n+patched\n*** End Patch\nEOF\n`;

async function holderClaims(t: TestContext, peerpost: Peerpost, repo: string) {
  const host = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  onCleanup(t, () => host.kill("SIGKILL"));
  await peerpost.sessions.register({ host: "claude-code", address: "claude:holder", sessionId: "holder", hostPid: host.pid!, source: "startup" });
  await claimPaths(peerpost, { holder: "claude:holder", cwd: repo, paths: ["src/**"], reason: "mine", ttl: "1h" });
}

test("codex: the PreToolUse hook is declared for the shell tool and refuses an apply_patch heredoc into a claim", async (t) => {
  const repo = tempRepo(t);
  const { peerpost, stateDir, home, clock } = tempPeerpost(t);
  await holderClaims(t, peerpost, repo);
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now) };
  const hooks = JSON.parse(readFileSync(join(REPO_ROOT, "dist", "codex", "hooks", "hooks.json"), "utf8")) as { hooks: { PreToolUse: Array<{ matcher: string }> } };
  assert.ok(hooks.hooks.PreToolUse.some((group) => new RegExp(`^(?:${group.matcher})$`).test("Bash")), `Codex never runs the pre-tool hook for its shell tool: matchers ${JSON.stringify(hooks.hooks.PreToolUse.map((group) => group.matcher))}`);
  const stdin = (command: string) => ({ session_id: "editor", turn_id: "t", cwd: repo, hook_event_name: "PreToolUse", model: "gpt-5.1", permission_mode: "bypassPermissions", tool_name: "Bash", tool_input: { command }, tool_use_id: "call-1" });
  for (const command of [HEREDOC("src/a.ts"), `cd src && ${HEREDOC("a.ts")}`]) {
    const run = await runHook("codex", "pre-tool", stdin(command), env);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /"permissionDecision":"deny"/, `let through: ${JSON.stringify(command)}`);
  }
  assert.equal((await runHook("codex", "pre-tool", stdin("ls -la src"), env)).stdout, "", "a command that is no patch passes");
  assert.equal((await runHook("codex", "pre-tool", stdin(HEREDOC("docs/guide.md")), env)).stdout, "", "a patch outside the claim passes");
});

test("codex end to end: with gpt-5.1 the real CLI is refused a patch of a claimed file through exec_command", { skip: codexAvailable().ok ? false : "codex CLI unavailable", timeout: 300_000 }, async (t) => {
  let calls = 0;
  const fake = await startFakeResponses(() => (++calls === 1 ? { toolCall: { name: "exec_command", arguments: { cmd: HEREDOC("src/a.ts") } } } : { text: "DONE" }));
  onCleanup(t, () => fake.close());
  const scratch = makeScratchDir("peerpost-codex-review-");
  onCleanup(t, () => rmSync(scratch, { recursive: true, force: true }));
  const stateDir = join(scratch, "peerpost");
  const codex = isolatedCodexEnv(scratch, fake.baseUrl, { model: "gpt-5.1", env: { PEERPOST_HOME: stateDir } });
  for (const args of [["plugin", "marketplace", "add", REPO_ROOT, "--json"], ["plugin", "add", "peerpost@peerpost", "--json"]]) {
    const run = await runCodex(args, { env: codex.env });
    assert.equal(run.code, 0, run.stderr);
  }
  const repo = tempRepo(t);
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: codex.home });
  onCleanup(t, () => peerpost.backend.close());
  await holderClaims(t, peerpost, repo);
  const run = await runCodex(["exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "-s", "danger-full-access", "patch src/a.ts"], { env: codex.env, cwd: repo, timeoutMs: 90_000 });
  assert.equal(run.code, 0, run.stderr.slice(-2000));
  assert.equal(readFileSync(join(repo, "src", "a.ts"), "utf8"), "a\n", "Codex patched src/a.ts, which claude:holder claims exclusively");
});
