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

interface ClaimedHost {
  target: string;
  /** Runs the host on a prompt whose model writes the target once; what it showed the model after the write. */
  prompt: () => Promise<{ code: number | null; log: string; shown: string }>;
  release: () => Promise<unknown>;
}

/** A repository whose src/** a live session claimed, and Copilot CLI with peerpost's plugin, its model writing src/new.ts. */
async function claimedCopilot(t: TestContext, env: Record<string, string> = {}): Promise<ClaimedHost> {
  const repo = tempRepo(t);
  const target = join(repo, "src", "new.ts");
  let model = writeOnce({ toolCall: { name: "create", arguments: { path: target, file_text: "written\n" } } });
  const fake = await startFakeOpenAIChat({ script: (call) => model.script(call) });
  onCleanup(t, () => fake.close());
  const copilot = makeCopilotHome();
  onCleanup(t, () => copilot.cleanup());
  const stateDir = join(copilot.root, "peerpost");
  Object.assign(copilot.env, { PEERPOST_HOME: stateDir, ...env });
  await installCopilotPlugin(copilot, ROOT, "peerpost@peerpost");
  const release = await holderClaims(t, stateDir, copilot.home, repo);
  return {
    target,
    release,
    prompt: async () => {
      model = writeOnce({ toolCall: { name: "create", arguments: { path: target, file_text: "written\n" } } });
      const run = await copilotPrompt("create src/new.ts", { home: copilot, provider: { baseUrl: fake.baseUrl }, cwd: repo });
      return { code: run.code, log: run.stderr + run.stdout, shown: model.results.join("\n") };
    },
  };
}

/** The same with Grok and the user-level hooks `peerpost hooks install grok` writes. */
async function claimedGrok(t: TestContext, env: Record<string, string> = {}): Promise<ClaimedHost> {
  const repo = tempRepo(t);
  const target = join(repo, "src", "new.ts");
  let model = writeOnce({ toolCall: { name: "write", arguments: { file_path: target, content: "written\n" } } });
  const fake = await startFakeOpenAIChat({ script: (call) => model.script(call) });
  onCleanup(t, () => fake.close());
  const grok = makeGrokHome({ apiBaseUrl: fake.baseUrl });
  onCleanup(t, () => grok.cleanup());
  const stateDir = join(grok.root, "peerpost");
  Object.assign(grok.env, { PEERPOST_HOME: stateDir, ...env });
  await installGrokPlugin(grok, ROOT, "peerpost");
  const installed = spawnSync(process.execPath, [CLI, "hooks", "install", "grok"], { env: grok.env, encoding: "utf8" });
  assert.equal(installed.status, 0, installed.stderr);
  const release = await holderClaims(t, stateDir, grok.home, repo);
  return {
    target,
    release,
    prompt: async () => {
      model = writeOnce({ toolCall: { name: "write", arguments: { file_path: target, content: "written\n" } } });
      const run = await grokSingle("create src/new.ts", { home: grok, cwd: repo });
      return { code: run.code, log: run.stderr.slice(-2000), shown: model.results.join("\n") };
    },
  };
}

for (const [name, claimed, skip, how] of [
  ["Copilot CLI", claimedCopilot, copilotUnavailable(), "preToolUse"],
  ["Grok", claimedGrok, grokUnavailable(), "the user-level PreToolUse hook"],
] as const) {
  test(`${name} refuses a write on a claimed path through ${how}, and runs it once released`, { skip: skip ?? false, timeout: 300_000 }, async (t) => {
    const host = await claimed(t);
    const refused = await host.prompt();
    assert.equal(refused.code, 0, refused.log);
    assert.ok(!existsSync(host.target), "nothing was written");
    assert.match(refused.shown, REFUSAL, "the model read who holds it");

    await host.release();
    const allowed = await host.prompt();
    assert.equal(allowed.code, 0, allowed.log);
    assert.equal(readFileSync(host.target, "utf8"), "written\n");
  });
}

for (const [name, claimed, skip, after] of [
  ["Copilot CLI", claimedCopilot, copilotUnavailable(), /Additional guidance from postToolUse hooks:\s*peerpost: src\/new\.ts is claimed exclusively/],
  ["Grok", claimedGrok, grokUnavailable(), /Context from PostToolUse hook[^\n]*\n\s*peerpost: src\/new\.ts is claimed exclusively/],
] as const) {
  test(`${name} in warn mode runs a write on a claimed path and tells the model after it, through its post-tool hook`, { skip: skip ?? false, timeout: 300_000 }, async (t) => {
    const host = await claimed(t, { PEERPOST_CLAIMS_EDITS: "warn" });
    const warned = await host.prompt();
    assert.equal(warned.code, 0, warned.log);
    assert.equal(readFileSync(host.target, "utf8"), "written\n", "warn lets the write run");
    assert.match(warned.shown, after, "the note came after the write");
    assert.match(warned.shown, REFUSAL);
  });
}
