// `peerpost allow grok` against the real, pinned Grok, offline (its xAI endpoints on a loopback fake):
// an editor talks ACP to `grok agent stdio` (through the shim, as an editor would run it) and the model
// calls peerpost's read. Without the rule Grok asks the editor first; with the rule `peerpost allow grok`
// wrote into $GROK_HOME/config.toml it runs read without asking; after `--undo` it asks again.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { allowOnce, startEditor } from "./helpers/editor-client.js";
import { toolResults } from "./helpers/fake-openai-chat.js";
import { grokUnavailable } from "./helpers/grok-cli.js";
import { grokWithPeerpost } from "./helpers/chat-hosts.js";
import { GROK_ALLOW_RULE } from "../plugins/grok/allow.js";

const unavailable = grokUnavailable();

test("allow grok: with MCPTool(peerpost__*) in config.toml the real Grok runs peerpost's read without asking; without it, it asks", { skip: unavailable ? `grok CLI unavailable: ${unavailable}` : false, timeout: 300_000 }, async (t) => {
  const { fake, home: grok, answer } = await grokWithPeerpost(t);
  // The model calls read once per prompt, then ends the turn with the result it was shown.
  answer(({ body }) => (body.messages.at(-1)?.role === "tool" ? { text: `READ ${toolResults(body).at(-1)?.slice(0, 40) ?? ""}` } : { toolCall: { name: "use_tool", arguments: { tool_name: "peerpost__read", tool_input: {} } } }));
  const cli = async (args: string[]) => {
    const run = await collect(spawn(process.execPath, [CLI, ...args], { env: grok.env, stdio: ["ignore", "pipe", "pipe"] }));
    assert.equal(run.code, 0, run.stderr);
  };

  /** One editor session (Grok reads its rules when a session starts) with one prompt; the permission requests Grok sent. */
  async function promptOnce(t: TestContext): Promise<string[]> {
    const editor = startEditor(t, ["grok", "agent", "stdio"], grok.env, grok.workDir, allowOnce);
    assert.ok((await editor.request("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } })).result);
    const created = await editor.request("session/new", { cwd: grok.workDir, mcpServers: [] });
    const sessionId = String(created.result?.["sessionId"]);
    // Grok answers session/new before the session's MCP servers are connected; an editor's prompt waits for them.
    await editor.waitFor((message) => message.method === "_x.ai/mcp_initialized" && message.params?.["sessionId"] === sessionId, 0, 60_000);
    const before = fake.chatCalls().length;
    const answered = await editor.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] });
    assert.equal((answered.result as { stopReason?: string }).stopReason, "end_turn", JSON.stringify(answered));
    const shown = fake.chatCalls().slice(before).flatMap((call) => toolResults(call.body));
    assert.ok(shown.some((text) => text.includes('"messages"')), `read ran and its result reached the model: ${JSON.stringify(shown)}`);
    await editor.close();
    return editor.serverRequests.filter((request) => request.method === "session/request_permission").map((request) => JSON.stringify(request.params));
  }

  const asked = await promptOnce(t);
  assert.ok(asked.some((params) => params.includes("peerpost__read")), `without the rule Grok asks before read: ${JSON.stringify(asked)}`);

  await cli(["allow", "grok"]);
  assert.match(readFileSync(join(grok.grokHome, "config.toml"), "utf8"), new RegExp(`\\[permission\\]\\nallow = \\["${GROK_ALLOW_RULE.replace(/[()*]/g, "\\$&")}"\\]`));
  assert.deepEqual(await promptOnce(t), [], "with the rule Grok runs read without asking");

  await cli(["allow", "--undo", "grok"]);
  assert.ok((await promptOnce(t)).some((params) => params.includes("peerpost__read")), "after --undo Grok asks again");
});
