// Edit-time enforcement on the real, pinned Claude Code, offline: the fake model writes a file another
// live session claimed exclusively; the plugin's PreToolUse hook refuses it through Claude Code's own
// deny answer, the file stays as it was, and the model reads who holds it. Released, the same edit runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { claudeSkipReason, installFromDirectoryMarketplace, isolatedClaudeEnv, repoRoot, runClaude } from "./helpers/claude-cli.js";
import { callToolOnce, startFakeAnthropic } from "./helpers/fake-anthropic.js";
import { tempRepo } from "./helpers/repo.js";
import { onCleanup, tempDir } from "./helpers/temp.js";
import { openPeerpost } from "../core/peerpost.js";
import { claimPaths, releasePaths } from "../core/claims/claims.js";

const skip = claudeSkipReason();
const TIMEOUT_MS = 90_000;

test("Claude Code refuses an edit to a file another live session claimed, and lets it through once released", { skip }, async (t) => {
  const base = tempDir(t, "peerpost-claims-claude-");
  const repo = tempRepo(t);
  // A new file: Claude Code writes over an existing one only after reading it.
  const target = join(repo, "src", "new.ts");
  const stateDir = join(base, "peerpost");
  const fake = await startFakeAnthropic(callToolOnce("Write", { file_path: target, content: "written\n" }, "DONE"));
  onCleanup(t, () => fake.close());
  const env = isolatedClaudeEnv(base, fake.url, { PEERPOST_HOME: stateDir });
  await installFromDirectoryMarketplace(repoRoot(), "peerpost@peerpost", { env, cwd: repo, timeoutMs: TIMEOUT_MS });
  // The holder: a Codex session whose host process runs.
  const holderHost = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  onCleanup(t, () => holderHost.kill("SIGKILL"));
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: env.HOME! });
  onCleanup(t, () => peerpost.backend.close());
  await peerpost.sessions.register({ host: "codex", address: "codex:holder", sessionId: "holder", hostPid: holderHost.pid!, source: "startup" });
  await claimPaths(peerpost, { holder: "codex:holder", cwd: repo, paths: ["src/**"], reason: "rewriting the parser" });

  const refused = await runClaude(["-p", "create src/new.ts", "--output-format", "json", "--dangerously-skip-permissions"], { env, cwd: repo, timeoutMs: TIMEOUT_MS });
  assert.equal(refused.code, 0, refused.stderr + refused.stdout);
  assert.ok(!existsSync(target), "nothing was written");
  const result = fake.modelRequests.map((request) => request.lastToolResult).find((entry) => entry?.toolName === "Write");
  assert.ok(result, "the model got an answer to its Write");
  assert.match(result.text, /src\/new\.ts is claimed exclusively by codex:holder until \S+ \("rewriting the parser"\)\. Ask the holder with peerpost's message tool \(to codex:holder\)/);

  await releasePaths(peerpost, { by: "codex:holder", cwd: repo, paths: ["src/**"] });
  const allowed = await runClaude(["-p", "create src/new.ts", "--output-format", "json", "--dangerously-skip-permissions"], { env, cwd: repo, timeoutMs: TIMEOUT_MS });
  assert.equal(allowed.code, 0, allowed.stderr + allowed.stdout);
  assert.equal(readFileSync(target, "utf8"), "written\n", "with the claim released the same edit goes through");
});
