// `peerpost shim grok agent stdio` and `peerpost shim copilot --acp` between a test ACP editor and the
// real, pinned CLIs, offline: a request to an idle session arrives as a turn (the model reads and
// replies, the sender's wait returns the answer, the host's permission requests reach the editor), also
// when it arrives while peerpost's own server for the session is still starting; a
// busy session gets it only after the editor's prompt is answered (Copilot would cancel it); the editor
// never sees an answer to an id it did not send; with a broken state dir the host still runs.
import { describe, test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { openPeerpost } from "../core/peerpost.js";
import { connect, REPO_ROOT, type Session } from "./helpers/mcp.js";
import { chatAnswerMail } from "./helpers/answer-mail.js";
import { allowOnce, startEditor, type Editor, type RpcLine } from "./helpers/editor-client.js";
import { startFakeOpenAIChat, type ChatScript, type FakeOpenAIChat, type Turn } from "./helpers/fake-openai-chat.js";
import { grokBinary, grokUnavailable, makeGrokHome } from "./helpers/grok-cli.js";
import { copilotBinary, copilotEnv, copilotUnavailable, makeCopilotHome } from "./helpers/copilot-cli.js";
import { onCleanup } from "./helpers/temp.js";
import { isHousekeepingCall } from "./helpers/chat-hosts.js";
import { until } from "./helpers/poll.js";

interface AcpHost {
  /** The shim's arguments: the host, then its own. */
  args: string[];
  env: Record<string, string>;
  home: string;
  workDir: string;
  stateDir: string;
  /** How this host's model calls a peerpost tool. */
  call(tool: string, args: unknown): Turn;
}

interface HostCase {
  name: string;
  unavailable: string | undefined;
  /** `serverDelaySeconds`: peerpost's MCP server starts that late (a slow machine), as the host's own process starts it. */
  setUp(t: TestContext, fake: FakeOpenAIChat, serverDelaySeconds?: number): AcpHost;
}

const server = (host: string) => join(REPO_ROOT, "dist", host, "server.mjs");
/** The command and arguments that start peerpost's server for `host`, `delaySeconds` late. */
const serverCommand = (host: string, delaySeconds = 0): { command: string; args: string[] } =>
  delaySeconds === 0 ? { command: process.execPath, args: [server(host)] } : { command: "/bin/sh", args: ["-c", `sleep ${delaySeconds}; exec '${process.execPath}' '${server(host)}'`] };

const HOSTS: HostCase[] = [
  {
    name: "grok",
    unavailable: grokUnavailable(),
    setUp(t, fake, serverDelaySeconds) {
      const grok = makeGrokHome({ apiBaseUrl: fake.baseUrl });
      onCleanup(t, () => grok.cleanup());
      const stateDir = join(grok.root, "peerpost");
      const config = join(grok.grokHome, "config.toml");
      const { command, args } = serverCommand("grok", serverDelaySeconds);
      writeFileSync(config, `\n[mcp_servers.peerpost]\ncommand = ${JSON.stringify(command)}\nargs = ${JSON.stringify(args)}\n`, { flag: "a" });
      return {
        args: ["grok", "agent", "stdio"],
        env: { ...grok.env, PEERPOST_HOME: stateDir, PATH: `${dirname(grokBinary())}:${grok.env.PATH ?? ""}` },
        home: grok.home,
        workDir: grok.workDir,
        stateDir,
        call: (tool, input) => ({ toolCall: { name: "use_tool", arguments: { tool_name: `peerpost__${tool}`, tool_input: input } } }),
      };
    },
  },
  {
    name: "copilot",
    unavailable: copilotUnavailable(),
    setUp(t, fake, serverDelaySeconds) {
      const copilot = makeCopilotHome();
      onCleanup(t, () => copilot.cleanup());
      const stateDir = join(copilot.root, "peerpost");
      writeFileSync(join(copilot.copilotHome, "mcp-config.json"), JSON.stringify({ mcpServers: { peerpost: { type: "local", ...serverCommand("copilot", serverDelaySeconds), tools: ["*"] } } }));
      return {
        args: ["copilot", "--acp", "--disable-client-telemetry", "--no-auto-update"],
        env: { ...copilotEnv(copilot, { baseUrl: fake.baseUrl }), PEERPOST_HOME: stateDir, PATH: `${dirname(copilotBinary())}:${copilot.env.PATH ?? ""}` },
        home: copilot.home,
        workDir: copilot.workDir,
        stateDir,
        call: (tool, args) => ({ toolCall: { name: `peerpost-${tool}`, arguments: args } }),
      };
    },
  },
];

/** Grok's own side requests (titles, dashboard lines) are not turns of the session. */

async function startFake(t: TestContext): Promise<{ fake: FakeOpenAIChat; setScript(script: ChatScript): void }> {
  let script: ChatScript = () => ({ text: "ok" });
  const fake = await startFakeOpenAIChat({ script: (call) => (isHousekeepingCall(call) ? { text: "housekeeping" } : script(call)) });
  onCleanup(t, () => fake.close());
  return { fake, setScript: (next) => (script = next) };
}

async function openSession(t: TestContext, host: AcpHost, env = host.env): Promise<{ editor: Editor; sessionId: string }> {
  const editor = startEditor(t, host.args, env, host.workDir, allowOnce);
  const init = await editor.request("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false }, clientInfo: { name: "test-editor", version: "0.0.1" } });
  assert.ok(init.result, JSON.stringify(init));
  const created = await editor.request("session/new", { cwd: host.workDir, mcpServers: [] });
  const sessionId = created.result?.["sessionId"];
  assert.equal(typeof sessionId, "string", JSON.stringify(created));
  return { editor, sessionId: sessionId as string };
}

const chunksOf = (messages: RpcLine[]) =>
  messages
    .filter((message) => message.method === "session/update" && (message.params?.["update"] as { sessionUpdate?: string }).sessionUpdate === "agent_message_chunk")
    .map((message) => String(((message.params?.["update"] as { content?: { text?: string } }).content ?? {}).text ?? ""))
    .join("");

const peer = (t: TestContext, host: AcpHost): Promise<Session> => connect(t, { HOME: host.home, PEERPOST_HOME: host.stateDir, PEERPOST_ADDRESS: "claude:peer" });

/**
 * A request to a session idle in the editor becomes a turn there: the model reads and replies, the
 * sender's wait returns the answer, and the host asks the editor before peerpost's reply runs.
 */
async function idleSessionAnswers(t: TestContext, hostCase: HostCase, serverDelaySeconds = 0): Promise<void> {
  const { fake, setScript } = await startFake(t);
  const host = hostCase.setUp(t, fake, serverDelaySeconds);
  const { editor, sessionId } = await openSession(t, host);
  const address = `${hostCase.name}:${sessionId}`;
  setScript(chatAnswerMail(host.call, `${hostCase.name} answers`));
  const sender = await peer(t, host);
  const asked = await sender.call("message", { to: address, message: "Which branch are you on?", anticipation: "reply" });
  const waited = await sender.call("wait", { messageId: asked.messageId, timeoutMs: 90_000 });
  assert.equal(waited.outcome, "reply", JSON.stringify({ waited, stderr: editor.stderr().slice(-2000) }));
  assert.match(String((waited.reply as { envelope: string }).envelope), new RegExp(`from="${address}" fromVerified="true"[\\s\\S]*${hostCase.name} answers ${String(asked.messageId)}`));
  await until(() => chunksOf(editor.received).includes("ANSWERED"), 30_000, "the editor to show the pushed turn's answer");
  const store = openPeerpost({ env: { PEERPOST_HOME: host.stateDir }, home: host.home });
  const receipts = store.receipts.query({ kind: "push" }).receipts.filter((receipt) => receipt.messageId === asked.messageId);
  assert.deepEqual(receipts.map((receipt) => [receipt.via, receipt.delivery]), [["shim", "delivered"]]);
  assert.deepEqual(editor.foreign, [], "no answer to an id the editor did not send");
  // The host asked the editor (its person) before peerpost's reply ran in the pushed turn, under the host's own ids.
  const permissions = editor.serverRequests.filter((request) => request.method === "session/request_permission" && request.params?.["sessionId"] === sessionId);
  assert.ok(permissions.some((request) => JSON.stringify(request.params).includes(String(asked.messageId))), JSON.stringify(editor.serverRequests));
  for (const request of editor.serverRequests) assert.doesNotMatch(String(request.id), /^peerpost-/);
}

for (const hostCase of HOSTS) {
  describe(`peerpost shim ${hostCase.name} (real CLI over ACP, loopback model)`, { skip: hostCase.unavailable ? `${hostCase.name} CLI unavailable: ${hostCase.unavailable}` : false, timeout: 300_000 }, () => {
    test("an idle session gets the request as a turn; the model reads and replies; wait returns it", (t) => idleSessionAnswers(t, hostCase));

    // Grok answers session/new before the session's MCP servers are connected: a turn started then
    // would run without peerpost's tools, and the model could not read the request it was told of
    // (Copilot holds a prompt until its servers are up).
    test("a request sent as the session opens, while peerpost's server is still starting, is read and answered", (t) => idleSessionAnswers(t, hostCase, 8));

    test("a busy session gets the request only after the editor's prompt, which is answered as usual", async (t) => {
      const { fake, setScript } = await startFake(t);
      const host = hostCase.setUp(t, fake);
      const { editor, sessionId } = await openSession(t, host);
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const answering = chatAnswerMail(host.call, `${hostCase.name} answers later`);
      let editorCall = -1;
      setScript(async (call) => {
        // The first model call of the editor's prompt is held until the test lets it answer.
        if (editorCall < 0 && JSON.stringify(call.body.messages).includes("EDITOR_SLOW")) {
          editorCall = call.index;
          await held;
          return { text: "editor prompt answered" };
        }
        return answering(call);
      });
      const own = editor.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "EDITOR_SLOW what is in this dir?" }] });
      await until(() => editorCall >= 0, 60_000, "the editor's prompt to reach the model");
      const sender = await peer(t, host);
      const asked = await sender.call("message", { to: `${hostCase.name}:${sessionId}`, message: "Is the build green?", anticipation: "reply" });
      // The shim watches the mailbox; give it time in which it must not start a turn.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(fake.findShown(String(asked.messageId)).length, 0, "nothing reached the busy session");
      release();
      const answered = await own;
      assert.equal((answered.result as { stopReason?: string }).stopReason, "end_turn", JSON.stringify(answered));
      assert.match(chunksOf(editor.received.slice(0, editor.received.indexOf(answered))), /editor prompt answered/);
      const waited = await sender.call("wait", { messageId: asked.messageId, timeoutMs: 90_000 });
      assert.equal(waited.outcome, "reply", JSON.stringify({ waited, stderr: editor.stderr().slice(-2000) }));
      const firstShown = Math.min(...fake.findShown(String(asked.messageId)).map((hit) => hit.call));
      assert.ok(firstShown > editorCall, "the pushed turn reached the model after the editor's prompt");
      assert.deepEqual(editor.foreign, [], "no answer to an id the editor did not send");
    });

    test("with a broken state dir the host still runs through the shim", async (t) => {
      const { fake, setScript } = await startFake(t);
      const host = hostCase.setUp(t, fake);
      const broken = join(host.workDir, "not-a-dir");
      writeFileSync(broken, "a file where the state dir should be");
      const { editor, sessionId } = await openSession(t, host, { ...host.env, PEERPOST_HOME: broken });
      setScript(() => ({ text: "answered without peerpost" }));
      const answered = await editor.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] });
      assert.equal((answered.result as { stopReason?: string }).stopReason, "end_turn", JSON.stringify(answered));
      assert.match(chunksOf(editor.received), /answered without peerpost/);
      assert.match(editor.stderr(), /peerpost shim: live delivery failed/);
    });
  });
}
