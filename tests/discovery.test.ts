// Discovery against real session files made offline by the pinned host CLIs: `agents --all` lists each
// session peerpost has not seen (address, host, working dir, last activity, title) exactly once; a message
// to it is accepted and registers it; a server started as that address reads exactly that message.
// Symlinked transcripts and folders in a host's store are never followed.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";
import { cli, json } from "./helpers/cli.js";
import { claudeSkipReason, isolatedClaudeEnv, parsePrintResult, runClaude } from "./helpers/claude-cli.js";
import { startFakeAnthropic } from "./helpers/fake-anthropic.js";
import { codexAvailable, isolatedCodexEnv, jsonLines, makeScratchDir, runCodex } from "./helpers/codex-cli.js";
import { alwaysText, startFakeResponses } from "./helpers/fake-openai-responses.js";
import { copilotPrompt, copilotUnavailable, makeCopilotHome } from "./helpers/copilot-cli.js";
import { grokSessionId, grokSingle, grokUnavailable, makeGrokHome } from "./helpers/grok-cli.js";
import { startFakeOpenAIChat } from "./helpers/fake-openai-chat.js";
import { openPeerpost } from "../core/peerpost.js";

interface Unseen {
  address: string;
  host: string;
  sessionId: string;
  cwd?: string;
  title?: string;
  lastActivity: string;
}

/**
 * Lists the unseen session, sends it a message from the CLI, and reads it as that session: the common
 * half of every host's test. `hostEnv` points peerpost at the host's store.
 */
async function listMessageRead(t: TestContext, hostEnv: Record<string, string>, expected: Omit<Unseen, "lastActivity">): Promise<void> {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "pat", ...hostEnv };
  const listed = await cli(env, "agents", "--all", "--json");
  assert.equal(listed.code, 0, listed.stderr);
  const unseen = (json(listed).unseen as Unseen[]).filter((row) => row.address === expected.address);
  assert.equal(unseen.length, 1, JSON.stringify(json(listed).unseen));
  const { lastActivity, ...row } = unseen[0]!;
  assert.deepEqual(row, expected);
  assert.ok(Date.now() - Date.parse(lastActivity) < 10 * 60_000, lastActivity);

  const sent = await cli(env, "send", "--to", expected.address, "--anticipation", "reply", "--json", "hello from a person");
  assert.equal(sent.code, 0, sent.stderr + sent.stdout);
  assert.deepEqual((json(sent).warnings as Array<{ code: string }>).map((warning) => warning.code), ["recipient_not_running"]);
  const after = json(await cli(env, "agents", "--all", "--json"));
  assert.ok(!(after.unseen as Unseen[]).some((entry) => entry.address === expected.address), "registered: no longer unseen");
  const registered = (after.sessions as Array<{ address: string; source: string; cwd?: string }>).find((entry) => entry.address === expected.address)!;
  assert.equal(registered.source, "discovered");
  assert.equal(registered.cwd, expected.cwd);

  const session = await connect(t, { ...env, PEERPOST_ADDRESS: expected.address });
  const read = await session.call("read");
  assert.equal(read.count, 1, JSON.stringify(read));
  assert.match((read.messages as Array<{ envelope: string }>)[0]!.envelope, /from="user:pat"[\s\S]*hello from a person/);
}

/** One `claude -p` run in a project dir of its own, offline, with `input` on its stdin: its env, dir and session id. */
async function claudePrinted(t: TestContext, prompt: string, input?: string) {
  const base = tempDir(t);
  const cwd = join(base, "project");
  mkdirSync(cwd);
  const fake = await startFakeAnthropic(() => ({ text: "DONE" }));
  onCleanup(t, () => fake.close());
  const env = isolatedClaudeEnv(base, fake.url);
  const run = await runClaude(["-p", prompt, "--output-format", "json"], { env, cwd, timeoutMs: 120_000, ...(input !== undefined ? { input } : {}) });
  assert.equal(run.code, 0, run.stderr);
  return { env, cwd, sessionId: parsePrintResult(run.stdout).session_id };
}

test("Claude Code: a transcript under CLAUDE_CONFIG_DIR/projects is listed once, messaged and read; symlinks are not followed", { skip: claudeSkipReason() }, async (t) => {
  const { env, cwd, sessionId } = await claudePrinted(t, "tidy the readme");
  const configDir = env.CLAUDE_CONFIG_DIR!;
  // A link to the transcript and a linked project folder must not add rows or be read.
  const projects = join(configDir, "projects");
  const [project] = readdirSync(projects);
  symlinkSync(join(projects, project!, `${sessionId}.jsonl`), join(projects, project!, "00000000-0000-4000-8000-000000000000.jsonl"));
  symlinkSync(join(projects, project!), join(projects, "linked-project"));
  await listMessageRead(t, { CLAUDE_CONFIG_DIR: configDir }, { address: `claude:${sessionId}`, host: "claude-code", sessionId, cwd, title: "tidy the readme" });
});

test("Claude Code: a session started with a long piped prompt (its first lines past the head discovery reads) is discovered, with its working dir, and can be messaged", { skip: claudeSkipReason() }, async (t) => {
  // About 100 KB on stdin, as a diff piped into `claude -p` is.
  const diff = Array.from({ length: 1500 }, (_, i) => `+ line ${i} ${"-".repeat(60)}`).join("\n");
  const { env, cwd, sessionId } = await claudePrinted(t, "review this diff", diff);

  const home = tempDir(t);
  const peerEnv = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "pat", CLAUDE_CONFIG_DIR: env.CLAUDE_CONFIG_DIR!, CODEX_HOME: join(home, "none"), COPILOT_HOME: join(home, "none"), GROK_HOME: join(home, "none") };
  const listed = await cli(peerEnv, "agents", "--all", "--json");
  assert.equal(listed.code, 0, listed.stderr);
  const unseen = json(listed).unseen as Array<{ address: string; cwd?: string }>;
  assert.deepEqual(unseen.map((row) => [row.address, row.cwd]), [[`claude:${sessionId}`, cwd]], "the session is listed once, with its working dir");
  const sent = await cli(peerEnv, "send", "--to", `claude:${sessionId}`, "--json", "hello");
  assert.equal(sent.code, 0, sent.stdout + sent.stderr);
});

test("Codex: a rollout under CODEX_HOME/sessions is listed once, messaged and read", { skip: codexAvailable().ok ? false : "codex CLI unavailable" }, async (t) => {
  const scratch = makeScratchDir();
  onCleanup(t, () => rmSync(scratch, { recursive: true, force: true }));
  const cwd = join(scratch, "project");
  mkdirSync(cwd);
  const fake = await startFakeResponses(alwaysText("DONE"));
  onCleanup(t, () => fake.close());
  const codex = isolatedCodexEnv(scratch, fake.baseUrl);
  const run = await runCodex(["exec", "--json", "--skip-git-repo-check", "tidy the readme"], { env: codex.env, cwd, timeoutMs: 90_000 });
  assert.equal(run.code, 0, run.stderr);
  const sessionId = jsonLines(run.stdout).find((event) => event.type === "thread.started")!.thread_id as string;
  await listMessageRead(t, { CODEX_HOME: codex.codexHome }, { address: `codex:${sessionId}`, host: "codex", sessionId, cwd });
});

test("Copilot CLI: a session under COPILOT_HOME/session-state is listed once with its name, messaged and read", { skip: copilotUnavailable() ?? false }, async (t) => {
  const fake = await startFakeOpenAIChat({ script: () => ({ text: "DONE" }) });
  onCleanup(t, () => fake.close());
  const home = makeCopilotHome();
  onCleanup(t, () => home.cleanup());
  const sessionId = "5b1e2c3d-4f50-4a6b-8c7d-9e0f1a2b3c4d";
  const run = await copilotPrompt("tidy the readme", { home, provider: { baseUrl: fake.baseUrl }, sessionId });
  assert.equal(run.code, 0, run.stderr);
  await listMessageRead(t, { COPILOT_HOME: home.copilotHome }, { address: `copilot:${sessionId}`, host: "copilot", sessionId, cwd: home.workDir, title: "tidy the readme" });
});

test("Grok: a session under GROK_HOME/sessions is listed once with its title, messaged and read", { skip: grokUnavailable() ?? false }, async (t) => {
  const fake = await startFakeOpenAIChat({ script: () => ({ text: "DONE" }) });
  onCleanup(t, () => fake.close());
  const home = makeGrokHome({ apiBaseUrl: fake.baseUrl });
  onCleanup(t, () => home.cleanup());
  const run = await grokSingle("tidy the readme", { home });
  assert.equal(run.code, 0, run.stderr);
  const sessionId = grokSessionId(run.stdout)!;
  await listMessageRead(t, { GROK_HOME: home.grokHome }, { address: `grok:${sessionId}`, host: "grok", sessionId, cwd: home.workDir, title: "tidy the readme" });
});

test("a store with hostile entries: a symlinked session dir, a non-id file name and a title with control characters", async (t) => {
  const home = tempDir(t);
  const copilotHome = join(home, "copilot");
  const outside = join(home, "outside");
  mkdirSync(outside);
  writeFileSync(join(outside, "workspace.yaml"), "id: linked\ncwd: /secret\n");
  writeFileSync(join(outside, "events.jsonl"), "{}\n");
  mkdirSync(join(copilotHome, "session-state"), { recursive: true });
  symlinkSync(outside, join(copilotHome, "session-state", "linked"));
  const good = join(copilotHome, "session-state", "good-1");
  mkdirSync(good);
  writeFileSync(join(good, "workspace.yaml"), 'id: good-1\ncwd: /work/x\nname: "evil\\u0007 title\\u202e"\n');
  writeFileSync(join(good, "events.jsonl"), "{}\n");
  const bad = join(copilotHome, "session-state", "bad id");
  mkdirSync(bad);
  writeFileSync(join(bad, "workspace.yaml"), "id: bad id\ncwd: /work/y\n");
  writeFileSync(join(bad, "events.jsonl"), "{}\n");
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), COPILOT_HOME: copilotHome, CLAUDE_CONFIG_DIR: join(home, "none"), CODEX_HOME: join(home, "none"), GROK_HOME: join(home, "none") };
  const unseen = json(await cli(env, "agents", "--all", "--json")).unseen as Unseen[];
  assert.deepEqual(unseen.map((row) => row.address), ["copilot:good-1"]);
  const human = await cli(env, "agents", "--all");
  assert.ok(!/[\u0007\u202e]/.test(human.stdout), "titles reach a terminal escaped");
  const found = json(await cli(env, "resolve", "evil", "--json")).candidates as Array<{ address: string; seen: boolean; reasons: string[] }>;
  assert.deepEqual(found.map(({ address, seen }) => ({ address, seen })), [{ address: "copilot:good-1", seen: false }]);
  assert.ok(found[0]!.reasons.includes('title starts with "evil"'), JSON.stringify(found[0]));
  const server = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:me" });
  const tool = await server.call("agents", { includeUnseen: true });
  assert.deepEqual((tool.unseen as Unseen[]).map((row) => row.address), ["copilot:good-1"]);
  const refused = await server.call("message", { to: "copilot:linked", message: "hi" });
  assert.equal((refused.error as { code: string }).code, "not_found", "a linked session is not discovered, so it cannot be messaged");
  // A session its host's files show can take a role; that registers it.
  assert.equal((await cli(env, "role", "set", "reviewer", "copilot:good-1")).code, 0);
  const holder = (json(await cli(env, "agents", "--all", "--json")).sessions as Array<{ address: string; source: string; roles: string[] }>)[0]!;
  assert.deepEqual([holder.address, holder.source, holder.roles], ["copilot:good-1", "discovered", ["reviewer"]]);
  // Once its hooks register it, a session keeps showing its host's title.
  await openPeerpost({ env, home }).sessions.register({ host: "copilot", address: "copilot:good-1", sessionId: "good-1", source: "startup" });
  const known = json(await cli(env, "agents", "--all", "--json"));
  assert.deepEqual(known.unseen, []);
  assert.equal((known.sessions as Array<{ source: string }>)[0]!.source, "startup");
  assert.equal((known.sessions as Array<{ title?: string }>)[0]!.title, "evil\u0007 title\u202e");
  assert.ok((await cli(env, "agents", "--all")).stdout.includes("evil⟨U+0007⟩ title⟨U+202E⟩"));
});
