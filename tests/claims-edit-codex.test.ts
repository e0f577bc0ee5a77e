// Edit-time enforcement on the real, pinned Codex, offline: a model Codex's catalogue gives the freeform
// apply_patch tool (gpt-5.5) patches a file another live session claimed exclusively; the plugin's
// PreToolUse hook refuses it with Codex's deny answer, the file is unchanged, and the model reads who
// holds it in the tool's output. Released, the same patch goes through.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { codexAvailable, isolatedCodexEnv, makeScratchDir, repoRoot, runCodex, type CodexEnv } from "./helpers/codex-cli.js";
import { startFakeResponses, type ResponsesRequest, type Turn } from "./helpers/fake-openai-responses.js";
import { tempRepo } from "./helpers/repo.js";
import { onCleanup } from "./helpers/temp.js";
import { openPeerpost } from "../core/peerpost.js";
import { claimPaths, releasePaths } from "../core/claims/claims.js";

const availability = codexAvailable();
const skip = availability.ok ? false : `codex CLI unavailable: ${availability.reason}`;
const ROOT = repoRoot() ?? process.cwd();
/** In Codex 0.171.0's model catalogue with `apply_patch_tool_type: "freeform"`; a name it does not know gets no apply_patch. */
const MODEL = "gpt-5.5";
const PATCH = "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+patched\n*** End Patch\n";
const REFUSAL = /src\/a\.ts is claimed exclusively by codex:holder until \S+ \("rewriting the parser"\)\. Ask the holder with peerpost's message tool \(to codex:holder\)/;

/** What a request showed the model as the output of its apply_patch call. */
function patchOutputs(request: ResponsesRequest): string[] {
  const input = request.body["input"];
  if (!Array.isArray(input)) return [];
  return input.flatMap((item: Record<string, unknown>) => (item["type"] === "custom_tool_call_output" || item["type"] === "function_call_output" ? [typeof item["output"] === "string" ? item["output"] : JSON.stringify(item["output"])] : []));
}

test("Codex refuses an apply_patch on a claimed file through the plugin's PreToolUse, and applies it once released", { skip, timeout: 300_000 }, async (t: TestContext) => {
  const outputs: string[] = [];
  const offered: unknown[] = [];
  const fake = await startFakeResponses((request): Turn => {
    offered.push(request.body["tools"]);
    const seen = patchOutputs(request);
    if (seen.length === 0) return { customToolCall: { name: "apply_patch", input: PATCH } };
    outputs.push(seen.at(-1)!);
    return { text: "DONE" };
  });
  onCleanup(t, () => fake.close());
  const scratch = makeScratchDir("peerpost-codex-claims-");
  onCleanup(t, () => rmSync(scratch, { recursive: true, force: true }));
  const stateDir = join(scratch, "peerpost");
  const codex: CodexEnv = isolatedCodexEnv(scratch, fake.baseUrl, { model: MODEL, env: { PEERPOST_HOME: stateDir } });
  for (const args of [["plugin", "marketplace", "add", ROOT, "--json"], ["plugin", "add", "peerpost@peerpost", "--json"]]) {
    const run = await runCodex(args, { env: codex.env });
    assert.equal(run.code, 0, run.stderr);
  }
  const repo = tempRepo(t);
  const target = join(repo, "src", "a.ts");

  // The holder: a Codex session whose host process runs.
  const host = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  onCleanup(t, () => host.kill("SIGKILL"));
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: codex.home });
  onCleanup(t, () => peerpost.backend.close());
  await peerpost.sessions.register({ host: "codex", address: "codex:holder", sessionId: "holder", hostPid: host.pid!, source: "startup" });
  await claimPaths(peerpost, { holder: "codex:holder", cwd: repo, paths: ["src/**"], reason: "rewriting the parser" });

  const exec = () => runCodex(["exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "-s", "danger-full-access", "patch src/a.ts"], { env: codex.env, cwd: repo, timeoutMs: 90_000 });
  const refused = await exec();
  assert.equal(refused.code, 0, refused.stderr.slice(-2000));
  const tools = JSON.stringify(offered[0]);
  assert.match(tools, /"name":"apply_patch"/, "Codex offered the model apply_patch");
  assert.equal(readFileSync(target, "utf8"), "a\n", "the file is unchanged");
  assert.equal(outputs.length, 1, refused.stdout.slice(-2000));
  assert.match(outputs[0]!, /^Command blocked by PreToolUse hook: peerpost: /, "Codex's refusal, with the hook's reason");
  assert.match(outputs[0]!, REFUSAL, "the model read who holds it");

  await releasePaths(peerpost, { by: "codex:holder", cwd: repo, paths: ["src/**"] });
  const allowed = await exec();
  assert.equal(allowed.code, 0, allowed.stderr.slice(-2000));
  assert.equal(readFileSync(target, "utf8"), "patched\n", "the released file is patched");
  assert.equal(outputs.length, 2);
  assert.doesNotMatch(outputs[1]!, /claimed exclusively/);
});
