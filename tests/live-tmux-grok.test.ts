// Typing a request into a real Grok TUI, offline (its xAI endpoints on a loopback fake), with peerpost's
// user-level hooks installed (Grok runs no plugin hooks): in a tmux pane directly, and under `peerpost run
// grok` in one. After the person's first turn it is idle; a typed request is read and answered; text in
// the input line holds the typing; a stale request is never typed. Under peerpost run, peerpost's tools
// run without asking by the rule `peerpost allow grok` writes, not by flags. Without that rule, a typed
// request's turn asks the person to approve its first tool call: Grok asks for bracketed paste, so the
// request's Enter is a key of its own, and no second Enter follows that would answer the dialog with its
// first option, "Yes, and don't ask again for anything (always-approve mode)".
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { CLI, connect } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { toolResults, type Turn } from "./helpers/fake-openai-chat.js";
import { grokBinary, grokUnavailable } from "./helpers/grok-cli.js";
import { grokWithPeerpost, isHousekeepingCall } from "./helpers/chat-hosts.js";
import { NO_TMUX, startTmux } from "./helpers/tmux.js";
import { chatTypedTurns, checkTypedDelivery, sessionIdle, startTui } from "./helpers/live-typing.js";
import { grokInputLine } from "../plugins/grok/terminal.js";
import { openPeerpost } from "../core/peerpost.js";
import { readTurn } from "../core/live/turns.js";

const unavailable = grokUnavailable();
const skip = NO_TMUX || (unavailable ? `grok CLI unavailable: ${unavailable}` : false);
const useTool = (tool: string, input: unknown): Turn => ({ toolCall: { name: "use_tool", arguments: { tool_name: `peerpost__${tool}`, tool_input: input } } });

/**
 * A real Grok TUI in a pane of the test's own tmux server, after the person's first turn: registered and
 * idle. `allowed`: peerpost's tools run without asking (by flags in tmux, by `peerpost allow grok`'s rule under peerpost run).
 */
async function idleGrokTui(t: TestContext, via: "tmux" | "pty", allowed: boolean) {
  const { fake, home: grok, stateDir, answer } = await grokWithPeerpost(t);
  const cli = (args: string[]) => collect(spawn(process.execPath, [CLI, ...args], { env: grok.env, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal((await cli(["hooks", "install", "grok"])).code, 0);
  answer(chatTypedTurns(useTool, "grok answers"));
  const env = { ...grok.env, TERM: "xterm-256color" };
  delete (env as Record<string, string | undefined>).NO_COLOR;

  const tmux = startTmux(t, grok.root);
  if (allowed && via === "pty") assert.equal((await cli(["allow", "grok"])).code, 0);
  startTui(tmux, via, { name: "grok", binary: grokBinary(), args: allowed && via === "tmux" ? ["--allow", "peerpost__read", "--allow", "peerpost__reply"] : [] }, env, grok.workDir);
  await tmux.inputShows(grokInputLine, "", 120_000);
  tmux.type("hello");
  await tmux.inputShows(grokInputLine, "hello");
  tmux.sendKeys("Enter");
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: grok.home });
  await until(() => store().sessions.list({ host: "grok" }).some((session) => session.alive), 60_000, "the grok session to register");
  const address = store().sessions.list({ host: "grok" }).find((session) => session.alive)!.address;
  // Grok has no prompt hook: the turn's end is its stop hook's record.
  await until(() => readTurn(stateDir, address).stop !== undefined && sessionIdle(stateDir, address), 60_000, "the person's first turn to end");
  return { fake, grok, stateDir, tmux, address, cli };
}

for (const via of ["tmux", "pty"] as const) {
  test(`grok ${via === "tmux" ? "in tmux" : "under peerpost run in tmux"}: an idle TUI gets a request typed, reads and replies; text in the input line holds the typing; a stale request is never typed`, { skip, timeout: 300_000 }, async (t) => {
    const { fake, grok, stateDir, tmux, address, cli } = await idleGrokTui(t, via, true);
    if (via === "tmux") assert.equal((await cli(["push", "on", "tmux", "grok"])).code, 0);
    const turns = () => fake.chatCalls().filter((call) => !isHousekeepingCall(call)).length;
    await checkTypedDelivery(t, { tmux, inputLine: grokInputLine, stateDir, home: grok.home, address, via, modelRequests: turns, modelSaw: (needle) => fake.findShown(needle).length > 0 }, "grok answers");
  });
}

test("grok under peerpost run: the Enter pressed again after a typed request never answers the turn's permission dialog", { skip, timeout: 300_000 }, async (t) => {
  // No `peerpost allow grok`: Grok asks the person before each peerpost tool runs.
  const { fake, grok, stateDir, tmux, address } = await idleGrokTui(t, "pty", false);

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
