// apply_patch as the hosts pass it to the pre-tool hook: Codex's `command`, and Copilot CLI's toolArgs,
// which for apply_patch are the patch text itself (the tool it offers OpenAI's Codex models and gpt-5.5 on
// the responses API instead of create and edit). The hook reads a patch as Codex's parser does: a header
// indented with any whitespace still names its file, a context line that quotes one names nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runHook } from "./helpers/hooks.js";
import { tempRepo } from "./helpers/repo.js";
import { onCleanup, tempPeerpost } from "./helpers/temp.js";
import { claimPaths } from "../core/claims/claims.js";
import { openPeerpost } from "../core/peerpost.js";
import { copilotPrompt, copilotUnavailable, installCopilotPlugin, makeCopilotHome, repoRoot } from "./helpers/copilot-cli.js";
import { startLoopbackServer, writeJson, writeSse } from "./helpers/loopback-http.js";

/** A repository where a live session holds src/a.ts exclusively; the env its hooks run with. */
async function held(t: Parameters<typeof tempRepo>[0]) {
  const repo = tempRepo(t);
  const { peerpost, stateDir, home, clock } = tempPeerpost(t);
  const host = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  onCleanup(t, () => host.kill("SIGKILL"));
  await peerpost.sessions.register({ host: "claude-code", address: "claude:holder", sessionId: "holder", hostPid: host.pid!, source: "startup" });
  await claimPaths(peerpost, { holder: "claude:holder", cwd: repo, paths: ["src/a.ts"], ttl: "1h" });
  return { repo, env: { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now) } };
}

test("codex and copilot: a patch is read as Codex reads it, headers indented with any whitespace, quoted headers in a hunk's context not", async (t) => {
  const { repo, env } = await held(t);
  const calls = {
    codex: (patch: string) => ({ session_id: "editor", cwd: repo, hook_event_name: "PreToolUse", tool_name: "apply_patch", tool_input: { command: patch } }),
    copilot: (patch: string) => ({ sessionId: "editor", cwd: repo, toolName: "apply_patch", toolArgs: patch }),
  };
  const cases: Array<[string, string, boolean]> = [
    ["a plain header", "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch\n", true],
    ["a header indented with a no-break space", "*** Begin Patch\n\u00a0*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch\n", true],
    ["a move into the claim", "*** Begin Patch\n*** Update File: src/b.ts\n*** Move to: src/a.ts\n@@\n-b\n+a\n*** End Patch\n", true],
    ["a second hunk after an update", "*** Begin Patch\n*** Update File: docs/guide.md\n@@\n-g\n+h\n*** End of File\n*** Delete File: src/a.ts\n*** End Patch\n", true],
    ["inside a quoted heredoc", "<<'EOF'\n*** Begin Patch\n*** Add File: src/a.ts\n+x\n*** End Patch\nEOF\n", true],
    ["a context line quoting a header", "*** Begin Patch\n*** Update File: docs/guide.md\n@@\n *** Update File: src/a.ts\n-guide\n+guide, updated\n*** End Patch\n", false],
    ["an added line quoting a header", "*** Begin Patch\n*** Add File: docs/new.md\n+*** Update File: src/a.ts\n*** End Patch\n", false],
  ];
  for (const [host, call] of Object.entries(calls) as Array<["codex" | "copilot", (patch: string) => object]>)
    for (const [name, patch, denied] of cases) {
      const { stdout } = await runHook(host, "pre-tool", call(patch), env);
      assert.equal(/"permissionDecision":"deny"/.test(stdout), denied, `${host}, ${name}: ${stdout}`);
    }
});

const RESPONSES_USAGE = { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 };

test("Copilot CLI with gpt-5.5 on the responses API: its apply_patch into another live session's claim is refused, and the file stays", { skip: copilotUnavailable() ?? false, timeout: 300_000 }, async (t) => {
  const repo = tempRepo(t);
  let requests = 0;
  // The model's loopback fake: first an apply_patch of the claimed file, then a last word.
  const server = await startLoopbackServer(async (request, response) => {
    if (request.method !== "POST" || !request.path.startsWith("/v1/responses")) return writeJson(response, 404, {});
    const n = ++requests;
    const item =
      n === 1
        ? { type: "custom_tool_call", id: "ctc-1", call_id: "call-1", name: "apply_patch", status: "completed", input: "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+patched\n*** End Patch\n" }
        : { type: "message", role: "assistant", id: `msg-${n}`, status: "completed", content: [{ type: "output_text", text: "DONE", annotations: [] }] };
    const id = `resp-${n}`;
    writeSse(response, [
      { event: "response.created", data: { type: "response.created", sequence_number: 0, response: { id, object: "response", status: "in_progress", output: [] } } },
      { event: "response.output_item.added", data: { type: "response.output_item.added", sequence_number: 1, output_index: 0, item: { ...item, status: "in_progress" } } },
      { event: "response.output_item.done", data: { type: "response.output_item.done", sequence_number: 2, output_index: 0, item } },
      { event: "response.completed", data: { type: "response.completed", sequence_number: 3, response: { id, object: "response", status: "completed", output: [item], usage: RESPONSES_USAGE } } },
    ]);
  });
  onCleanup(t, () => server.close());
  const copilot = makeCopilotHome();
  onCleanup(t, () => copilot.cleanup());
  const stateDir = join(copilot.root, "peerpost");
  Object.assign(copilot.env, { PEERPOST_HOME: stateDir });
  await installCopilotPlugin(copilot, repoRoot(), "peerpost@peerpost");
  const host = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  onCleanup(t, () => host.kill("SIGKILL"));
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: copilot.home });
  onCleanup(t, () => peerpost.backend.close());
  await peerpost.sessions.register({ host: "codex", address: "codex:holder", sessionId: "holder", hostPid: host.pid!, source: "startup" });
  await claimPaths(peerpost, { holder: "codex:holder", cwd: repo, paths: ["src/**"] });
  const run = await copilotPrompt("patch src/a.ts", { home: copilot, provider: { baseUrl: `${server.url}/v1`, model: "gpt-5.5", wireApi: "responses" }, cwd: repo });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(requests >= 2, "the model was asked again with the tool's answer");
  assert.equal(readFileSync(join(repo, "src", "a.ts"), "utf8"), "a\n", "the claimed file is unchanged");
});
