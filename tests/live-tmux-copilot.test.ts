// Typing a request into a real Copilot CLI TUI in a tmux pane, offline (BYOK provider on a loopback
// fake): after the person's first turn it is idle; a typed request is read and answered; text in the
// input line holds the typing; a stale request is never typed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { randomUUID } from "node:crypto";
import { spawn } from "node:child_process";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { onCleanup } from "./helpers/temp.js";
import { until } from "./helpers/poll.js";
import { startFakeOpenAIChat, type ChatScript, type Turn } from "./helpers/fake-openai-chat.js";
import { copilotBinary, copilotEnv, copilotUnavailable, installCopilotPlugin, makeCopilotHome, repoRoot } from "./helpers/copilot-cli.js";
import { NO_TMUX, startTmux } from "./helpers/tmux.js";
import { chatTypedTurns, checkTypedDelivery, sessionIdle } from "./helpers/live-typing.js";
import { copilotInputLine } from "../plugins/copilot/terminal.js";

const unavailable = copilotUnavailable();
const skip = NO_TMUX || (unavailable ? `copilot CLI unavailable: ${unavailable}` : false);
const call = (tool: string, args: unknown): Turn => ({ toolCall: { name: `peerpost-${tool}`, arguments: args } });

test("copilot in tmux: an idle TUI gets a request typed, reads and replies; text in the input line holds the typing; a stale request is never typed", { skip, timeout: 300_000 }, async (t) => {
  let script: ChatScript = () => ({ text: "hi" });
  const fake = await startFakeOpenAIChat({ script: (request) => script(request) });
  onCleanup(t, () => fake.close());
  const copilot = makeCopilotHome();
  onCleanup(t, () => copilot.cleanup());
  const stateDir = join(copilot.root, "peerpost");
  Object.assign(copilot.env, { PEERPOST_HOME: stateDir, PATH: `${dirname(copilotBinary())}:${copilot.env.PATH ?? process.env.PATH ?? ""}` });
  await installCopilotPlugin(copilot, repoRoot(), "peerpost@peerpost");
  // Copilot asks once per folder whether to trust it; a trusted folder starts at the input line.
  writeFileSync(join(copilot.copilotHome, "config.json"), JSON.stringify({ trustedFolders: [copilot.workDir] }));
  script = chatTypedTurns(call, "copilot answers");
  const sessionId = randomUUID();
  const address = `copilot:${sessionId}`;
  const env = { ...copilotEnv(copilot, { baseUrl: fake.baseUrl }), TERM: "xterm-256color" };
  delete (env as Record<string, string | undefined>).NO_COLOR;

  const tmux = startTmux(t, copilot.root);
  tmux.start(copilotBinary(), ["--allow-tool=peerpost", "--disable-client-telemetry", "--no-auto-update", `--session-id=${sessionId}`], env, copilot.workDir);
  await tmux.inputShows(copilotInputLine, "", 120_000);
  tmux.type("hello");
  await tmux.inputShows(copilotInputLine, "hello");
  tmux.sendKeys("Enter");
  await until(() => fake.chatCalls().length > 0 && sessionIdle(stateDir, address), 60_000, "the person's first turn to end");

  const on = await collect(spawn(process.execPath, [CLI, "push", "on", "tmux", "copilot"], { env: { PATH: process.env.PATH ?? "", HOME: copilot.home, PEERPOST_HOME: stateDir }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(on.code, 0, on.stderr);
  await checkTypedDelivery(t, { tmux, inputLine: copilotInputLine, stateDir, home: copilot.home, address, via: "tmux", modelRequests: () => fake.chatCalls().length, modelSaw: (needle) => fake.findShown(needle).length > 0 }, "copilot answers");
});
