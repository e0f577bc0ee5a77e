// Grok 1.0.41 under `peerpost run grok` (offline), without `peerpost allow grok`: a typed request's turn
// asks the person to approve its first tool call (peerpost's read). Grok asks for bracketed paste, so the
// request's Enter is a key of its own, and no second Enter follows: one would answer that dialog with its
// first option, "Yes, and don't ask again for anything (always-approve mode)".
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { CLI, connect } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import type { Turn } from "./helpers/fake-openai-chat.js";
import { toolResults } from "./helpers/fake-openai-chat.js";
import { grokUnavailable } from "./helpers/grok-cli.js";
import { grokWithPeerpost, isHousekeepingCall } from "./helpers/chat-hosts.js";
import { NO_TMUX, startTmux } from "./helpers/tmux.js";
import { chatTypedTurns, sessionIdle, startTui } from "./helpers/live-typing.js";
import { grokInputLine } from "../plugins/grok/terminal.js";
import { openPeerpost } from "../core/peerpost.js";
import { readTurn } from "../core/live/turns.js";
import { grokBinary } from "./helpers/grok-cli.js";

const unavailable = grokUnavailable();
const skip = NO_TMUX || (unavailable ? `grok CLI unavailable: ${unavailable}` : false);
const useTool = (tool: string, input: unknown): Turn => ({ toolCall: { name: "use_tool", arguments: { tool_name: `peerpost__${tool}`, tool_input: input } } });

test("grok under peerpost run: the Enter pressed again after a typed request never answers the turn's permission dialog", { skip, timeout: 300_000 }, async (t) => {
  const { fake, home: grok, stateDir, answer } = await grokWithPeerpost(t);
  const cli = (args: string[]) => collect(spawn(process.execPath, [CLI, ...args], { env: grok.env, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal((await cli(["hooks", "install", "grok"])).code, 0);
  answer(chatTypedTurns(useTool, "grok answers"));
  const env = { ...grok.env, TERM: "xterm-256color" };
  delete (env as Record<string, string | undefined>).NO_COLOR;
  const tmux = startTmux(t, grok.root);
  // No `peerpost allow grok`: Grok asks the person before each peerpost tool runs.
  startTui(tmux, "pty", { name: "grok", binary: grokBinary(), args: [] }, env, grok.workDir);
  await tmux.inputShows(grokInputLine, "", 120_000);
  tmux.type("hello");
  await tmux.inputShows(grokInputLine, "hello");
  tmux.sendKeys("Enter");
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: grok.home });
  await until(() => store().sessions.list({ host: "grok" }).some((session) => session.alive), 60_000, "the grok session to register");
  const address = store().sessions.list({ host: "grok" }).find((session) => session.alive)!.address;
  await until(() => readTurn(stateDir, address).stop !== undefined && sessionIdle(stateDir, address), 60_000, "the person's first turn to end");

  const peer = await connect(t, { HOME: grok.home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "claude:peer" });
  const asked = await peer.call("message", { to: address, message: "Which branch are you on?", anticipation: "reply" });
  const id = String(asked.messageId);
  await until(() => fake.findShown(`(message ${id})`).length > 0, 60_000, `the typed request to reach the model\n${tmux.capture()}`);
  let dialog = "";
  await new Promise((resolve) => setTimeout(resolve, 800));
  dialog = tmux.capture().replace(/\u001b\[[0-9;:]*m/g, "");
  // Well past the 2 s after which peerpost presses Enter again; nobody touched the keyboard.
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const now = tmux.capture().replace(/\u001b\[[0-9;:]*m/g, "");
  assert.ok(!/always-approve\s*─/.test(now), `peerpost's second Enter picked "Yes, and don't ask again for anything (always-approve mode)" in Grok's permission dialog: the session now runs every tool without asking:\n--- 0.8 s after the model got the line ---\n${dialog}\n--- now ---\n${now}`);
  const ran = fake.chatCalls().filter((call) => !isHousekeepingCall(call)).some((call) => toolResults(call.body).some((text) => text.includes('"messages"')));
  assert.equal(ran, false, `peerpost's read ran in the typed turn, approved by no one but peerpost's second Enter:\n--- 0.8 s after the model got the line ---\n${dialog}\n--- now ---\n${tmux.capture()}`);
});
