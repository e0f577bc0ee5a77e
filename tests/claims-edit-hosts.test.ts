// Edit-time enforcement on the real, pinned Copilot CLI and Grok, offline: the fake model writes a file
// another live session claimed exclusively; the host's pre-tool hook (Copilot: the plugin's preToolUse;
// Grok: the user-level PreToolUse that `peerpost hooks install grok` writes) refuses it through the
// host's own deny answer, the file is not written, and the model reads who holds it. Released, it runs.
// In `warn` mode the write runs, and the model reads the same line after it, from the post-tool hook.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { copilotPrompt, copilotUnavailable, installCopilotPlugin, makeCopilotHome, repoRoot } from "./helpers/copilot-cli.js";
import { grokSingle, grokUnavailable, installGrokPlugin, makeGrokHome } from "./helpers/grok-cli.js";
import { contentText, startFakeOpenAIChat, toolResults, type ChatCall, type Turn } from "./helpers/fake-openai-chat.js";
import { tempRepo } from "./helpers/repo.js";
import { onCleanup } from "./helpers/temp.js";
import { CLI } from "./helpers/mcp.js";
import { openPeerpost } from "../core/peerpost.js";
import { claimPaths, releasePaths } from "../core/claims/claims.js";

const ROOT = repoRoot();
const REFUSAL = /src\/new\.ts is claimed exclusively by codex:holder until \S+ \("rewriting the parser"\)\. Ask the holder with peerpost's message tool \(to codex:holder\)/;

/** A live Codex session holding src/** of the repository. */
async function holderClaims(t: TestContext, stateDir: string, home: string, repo: string) {
  const host = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  onCleanup(t, () => host.kill("SIGKILL"));
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir }, home });
  onCleanup(t, () => peerpost.backend.close());
  await peerpost.sessions.register({ host: "codex", address: "codex:holder", sessionId: "holder", hostPid: host.pid!, source: "startup" });
  await claimPaths(peerpost, { holder: "codex:holder", cwd: repo, paths: ["src/**"], reason: "rewriting the parser" });
  return () => releasePaths(peerpost, { by: "codex:holder", cwd: repo, paths: ["src/**"] });
}

/** A model that writes the file once, then answers; records what it was shown after its call (the tool result, and any note after it). */
function writeOnce(write: Turn): { script: (call: ChatCall) => Turn; results: string[] } {
  const results: string[] = [];
  return {
    results,
    script: (call) => {
      // Grok asks the model for titles on the side; those calls get text.
      const last = call.body.messages.at(-1);
      if (last?.role === "user" && /ultra-short dashboard line|Generate a session title/.test(contentText(last.content))) return { text: "title" };
      const answered = toolResults(call.body);
      if (answered.length === 0) return write;
      const lastCall = call.body.messages.map((message) => message.role).lastIndexOf("assistant");
      results.push(call.body.messages.slice(lastCall + 1).map((message) => contentText(message.content)).join("\n"));
      return { text: "DONE" };
    },
  };
}

test("Copilot CLI refuses a create on a claimed path through preToolUse, and runs it once released", { skip: copilotUnavailable() ?? false, timeout: 300_000 }, async (t) => {
  const repo = tempRepo(t);
  const target = join(repo, "src", "new.ts");
  let model = writeOnce({ toolCall: { name: "create", arguments: { path: target, file_text: "written\n" } } });
  const fake = await startFakeOpenAIChat({ script: (call) => model.script(call) });
  onCleanup(t, () => fake.close());
  const copilot = makeCopilotHome();
  onCleanup(t, () => copilot.cleanup());
  const stateDir = join(copilot.root, "peerpost");
  Object.assign(copilot.env, { PEERPOST_HOME: stateDir });
  await installCopilotPlugin(copilot, ROOT, "peerpost@peerpost");
  const release = await holderClaims(t, stateDir, copilot.home, repo);

  const refused = await copilotPrompt("create src/new.ts", { home: copilot, provider: { baseUrl: fake.baseUrl }, cwd: repo });
  assert.equal(refused.code, 0, refused.stderr + refused.stdout);
  assert.ok(!existsSync(target), "nothing was written");
  assert.match(model.results.join("\n"), REFUSAL, "the model read who holds it");

  await release();
  model = writeOnce({ toolCall: { name: "create", arguments: { path: target, file_text: "written\n" } } });
  const allowed = await copilotPrompt("create src/new.ts", { home: copilot, provider: { baseUrl: fake.baseUrl }, cwd: repo });
  assert.equal(allowed.code, 0, allowed.stderr + allowed.stdout);
  assert.equal(readFileSync(target, "utf8"), "written\n");
});

test("Grok refuses a write on a claimed path through the user-level PreToolUse hook, and runs it once released", { skip: grokUnavailable() ?? false, timeout: 300_000 }, async (t) => {
  const repo = tempRepo(t);
  const target = join(repo, "src", "new.ts");
  let model = writeOnce({ toolCall: { name: "write", arguments: { file_path: target, content: "written\n" } } });
  const fake = await startFakeOpenAIChat({ script: (call) => model.script(call) });
  onCleanup(t, () => fake.close());
  const grok = makeGrokHome({ apiBaseUrl: fake.baseUrl });
  onCleanup(t, () => grok.cleanup());
  const stateDir = join(grok.root, "peerpost");
  Object.assign(grok.env, { PEERPOST_HOME: stateDir });
  await installGrokPlugin(grok, ROOT, "peerpost");
  const installed = spawnSync(process.execPath, [CLI, "hooks", "install", "grok"], { env: grok.env, encoding: "utf8" });
  assert.equal(installed.status, 0, installed.stderr);
  const release = await holderClaims(t, stateDir, grok.home, repo);

  const refused = await grokSingle("create src/new.ts", { home: grok, cwd: repo });
  assert.equal(refused.code, 0, refused.stderr.slice(-2000));
  assert.ok(!existsSync(target), "nothing was written");
  assert.match(model.results.join("\n"), REFUSAL, "the model read who holds it");

  await release();
  model = writeOnce({ toolCall: { name: "write", arguments: { file_path: target, content: "written\n" } } });
  const allowed = await grokSingle("create src/new.ts", { home: grok, cwd: repo });
  assert.equal(allowed.code, 0, allowed.stderr.slice(-2000));
  assert.equal(readFileSync(target, "utf8"), "written\n");
});

test("Copilot CLI in warn mode runs a create on a claimed path and tells the model after it, through postToolUse", { skip: copilotUnavailable() ?? false, timeout: 300_000 }, async (t) => {
  const repo = tempRepo(t);
  const target = join(repo, "src", "new.ts");
  const model = writeOnce({ toolCall: { name: "create", arguments: { path: target, file_text: "written\n" } } });
  const fake = await startFakeOpenAIChat({ script: (call) => model.script(call) });
  onCleanup(t, () => fake.close());
  const copilot = makeCopilotHome();
  onCleanup(t, () => copilot.cleanup());
  const stateDir = join(copilot.root, "peerpost");
  Object.assign(copilot.env, { PEERPOST_HOME: stateDir, PEERPOST_CLAIMS_EDITS: "warn" });
  await installCopilotPlugin(copilot, ROOT, "peerpost@peerpost");
  await holderClaims(t, stateDir, copilot.home, repo);

  const warned = await copilotPrompt("create src/new.ts", { home: copilot, provider: { baseUrl: fake.baseUrl }, cwd: repo });
  assert.equal(warned.code, 0, warned.stderr + warned.stdout);
  assert.equal(readFileSync(target, "utf8"), "written\n", "warn lets the write run");
  assert.match(model.results.join("\n"), /Additional guidance from postToolUse hooks:\s*peerpost: src\/new\.ts is claimed exclusively/, "the note came with the tool's result");
  assert.match(model.results.join("\n"), REFUSAL);
});

test("Grok in warn mode runs a write on a claimed path and tells the model after it, through PostToolUse", { skip: grokUnavailable() ?? false, timeout: 300_000 }, async (t) => {
  const repo = tempRepo(t);
  const target = join(repo, "src", "new.ts");
  const model = writeOnce({ toolCall: { name: "write", arguments: { file_path: target, content: "written\n" } } });
  const fake = await startFakeOpenAIChat({ script: (call) => model.script(call) });
  onCleanup(t, () => fake.close());
  const grok = makeGrokHome({ apiBaseUrl: fake.baseUrl });
  onCleanup(t, () => grok.cleanup());
  const stateDir = join(grok.root, "peerpost");
  Object.assign(grok.env, { PEERPOST_HOME: stateDir, PEERPOST_CLAIMS_EDITS: "warn" });
  await installGrokPlugin(grok, ROOT, "peerpost");
  const installed = spawnSync(process.execPath, [CLI, "hooks", "install", "grok"], { env: grok.env, encoding: "utf8" });
  assert.equal(installed.status, 0, installed.stderr);
  await holderClaims(t, stateDir, grok.home, repo);

  const warned = await grokSingle("create src/new.ts", { home: grok, cwd: repo });
  assert.equal(warned.code, 0, warned.stderr.slice(-2000));
  assert.equal(readFileSync(target, "utf8"), "written\n", "warn lets the write run");
  assert.match(model.results.join("\n"), /Context from PostToolUse hook[^\n]*\n\s*peerpost: src\/new\.ts is claimed exclusively/, "the note came after the tool's result");
  assert.match(model.results.join("\n"), REFUSAL);
});
