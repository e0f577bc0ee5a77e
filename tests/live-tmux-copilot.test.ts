// Typing a request into a real Copilot CLI TUI, offline (BYOK provider on a loopback fake): in a tmux
// pane directly, and under `peerpost run copilot` in one. After the person's first turn it is idle; a
// typed request is read and answered; text in the input line holds the typing; a stale request is never typed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { spawn } from "node:child_process";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import type { Turn } from "./helpers/fake-openai-chat.js";
import { copilotBinary, copilotEnv, copilotUnavailable } from "./helpers/copilot-cli.js";
import { copilotWithPeerpost } from "./helpers/chat-hosts.js";
import { NO_TMUX, startTmux } from "./helpers/tmux.js";
import { chatTypedTurns, checkTypedDelivery, sessionIdle, startTui } from "./helpers/live-typing.js";
import { copilotInputLine } from "../plugins/copilot/terminal.js";

const unavailable = copilotUnavailable();
const skip = NO_TMUX || (unavailable ? `copilot CLI unavailable: ${unavailable}` : false);
const call = (tool: string, args: unknown): Turn => ({ toolCall: { name: `peerpost-${tool}`, arguments: args } });

for (const via of ["tmux", "pty"] as const) {
  test(`copilot ${via === "tmux" ? "in tmux" : "under peerpost run in tmux"}: an idle TUI gets a request typed, reads and replies; text in the input line holds the typing; a stale request is never typed`, { skip, timeout: 300_000 }, async (t) => {
    const { fake, home: copilot, stateDir, answer } = await copilotWithPeerpost(t);
    // Copilot asks once per folder whether to trust it; a trusted folder starts at the input line.
    writeFileSync(join(copilot.copilotHome, "config.json"), JSON.stringify({ trustedFolders: [copilot.workDir] }));
    answer(chatTypedTurns(call, "copilot answers"));
    const sessionId = randomUUID();
    const address = `copilot:${sessionId}`;
    const env = { ...copilotEnv(copilot, { baseUrl: fake.baseUrl }), TERM: "xterm-256color" };
    delete (env as Record<string, string | undefined>).NO_COLOR;

    const tmux = startTmux(t, copilot.root);
    startTui(tmux, via, { name: "copilot", binary: copilotBinary(), args: ["--allow-tool=peerpost", "--disable-client-telemetry", "--no-auto-update", `--session-id=${sessionId}`] }, env, copilot.workDir);
    await tmux.inputShows(copilotInputLine, "", 120_000);
    tmux.type("hello");
    await tmux.inputShows(copilotInputLine, "hello");
    tmux.sendKeys("Enter");
    await until(() => fake.chatCalls().length > 0 && sessionIdle(stateDir, address), 60_000, "the person's first turn to end");

    if (via === "tmux") {
      const on = await collect(spawn(process.execPath, [CLI, "push", "on", "tmux", "copilot"], { env: { PATH: process.env.PATH ?? "", HOME: copilot.home, PEERPOST_HOME: stateDir }, stdio: ["ignore", "pipe", "pipe"] }));
      assert.equal(on.code, 0, on.stderr);
    }
    await checkTypedDelivery(t, { tmux, inputLine: copilotInputLine, stateDir, home: copilot.home, address, via, modelRequests: () => fake.chatCalls().length, modelSaw: (needle) => fake.findShown(needle).length > 0 }, "copilot answers");
  });
}
