// Typing a request into a real Claude Code TUI, offline (the Messages API on a loopback fake), with its
// own cross-session inbox off (CLAUDE_CODE_HARBOR_KITE=0), so the terminal is its live transport: in a
// tmux pane directly, and under `peerpost run claude` in one. After the person's first turn it is idle; a
// typed request is read and answered; text in the input line holds the typing; a stale request is never typed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { until } from "./helpers/poll.js";
import { startFakeAnthropic, type Script } from "./helpers/fake-anthropic.js";
import { acceptTuiDialogs, claudeBinary, claudeSkipReason, installFromDirectoryMarketplace, isolatedClaudeEnv, repoRoot } from "./helpers/claude-cli.js";
import { NO_TMUX, startTmux } from "./helpers/tmux.js";
import { checkTypedDelivery, messagesTypedTurns, sessionIdle, startTui } from "./helpers/live-typing.js";
import { claudeInputLine } from "../plugins/claude-code/terminal.js";
import { openPeerpost } from "../core/peerpost.js";

const skip = NO_TMUX || claudeSkipReason();
const tool = (name: string) => `mcp__plugin_peerpost_peerpost__${name}`;

for (const via of ["tmux", "pty"] as const) {
  const how = via === "tmux" ? "in tmux" : "under peerpost run in tmux";
  test(`claude ${how}: an idle TUI gets a request typed, reads and replies; text in the input line holds the typing; a stale request is never typed`, { skip, timeout: 300_000 }, async (t) => {
    const base = tempDir(t, `peerpost-live-${via}-claude-`);
    const stateDir = join(base, "peerpost");
    const cwd = join(base, "project");
    mkdirSync(cwd);
    let script: Script = () => ({ text: "hi" });
    const fake = await startFakeAnthropic((request) => script(request));
    onCleanup(t, () => fake.close());
    const env = isolatedClaudeEnv(base, fake.url, { PEERPOST_HOME: stateDir, CLAUDE_CODE_HARBOR_KITE: "0", TERM: "xterm-256color", PATH: `${dirname(claudeBinary())}:${process.env.PATH ?? ""}` }) as Record<string, string>;
    await installFromDirectoryMarketplace(repoRoot(), "peerpost@peerpost", { env, cwd, timeoutMs: 90_000 });
    acceptTuiDialogs(env, cwd);
    const cli = (args: string[]) => collect(spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] }));
    assert.equal((await cli(["allow", "claude-code"])).code, 0, "peerpost's tools run without asking");
    script = messagesTypedTurns(tool, "claude answers");

    const tmux = startTmux(t, base);
    startTui(tmux, via, { name: "claude", binary: claudeBinary(), args: [] }, env, cwd);
    await tmux.inputShows(claudeInputLine, "", 120_000);
    tmux.type("hello");
    await tmux.inputShows(claudeInputLine, "hello");
    tmux.sendKeys("Enter");
    const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: env["HOME"]! });
    await until(() => store().sessions.list({ host: "claude-code" }).some((session) => session.alive), 60_000, `the claude session to register\n${tmux.capture()}`);
    const address = store().sessions.list({ host: "claude-code" }).find((session) => session.alive)!.address;
    await until(() => fake.modelRequests.length > 0 && sessionIdle(stateDir, address), 60_000, `the person's first turn to end\n${tmux.capture()}`);

    if (via === "tmux") assert.equal((await cli(["push", "on", "tmux", "claude-code"])).code, 0);
    await checkTypedDelivery(t, { tmux, inputLine: claudeInputLine, stateDir, home: env["HOME"]!, address, via, modelRequests: () => fake.modelRequests.length, modelSaw: (needle) => fake.sawText(needle) }, "claude answers");
  });
}
