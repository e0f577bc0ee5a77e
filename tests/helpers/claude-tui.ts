// A real Claude Code TUI, offline (the Messages API on a loopback fake), with peerpost installed and
// allowed, in a pane of the test's own tmux server (directly, or under `peerpost run claude`), after the
// person's first turn: registered and idle. Its own cross-session inbox is off unless the test turns it on.
import type { TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { CLI } from "./mcp.js";
import { collect } from "./children.js";
import { tempDir, onCleanup } from "./temp.js";
import { until } from "./poll.js";
import { startFakeAnthropic, type Script } from "./fake-anthropic.js";
import { acceptTuiDialogs, claudeBinary, installFromDirectoryMarketplace, isolatedClaudeEnv, repoRoot } from "./claude-cli.js";
import { startTmux } from "./tmux.js";
import { messagesTypedTurns, sessionIdle, startTui } from "./live-typing.js";
import { claudeInputLine } from "../../plugins/claude-code/terminal.js";
import { openPeerpost } from "../../core/peerpost.js";

const tool = (name: string) => `mcp__plugin_peerpost_peerpost__${name}`;

/** A real Claude Code TUI in a pane of the test's own tmux server, after the person's first turn: registered and idle. */
export async function idleClaudeTui(t: TestContext, via: "tmux" | "pty", extraEnv: Record<string, string> = {}, override?: (request: Parameters<Script>[0]) => ReturnType<Script> | undefined) {
  const base = tempDir(t, `peerpost-live-${via}-claude-`);
  const stateDir = join(base, "peerpost");
  const cwd = join(base, "project");
  mkdirSync(cwd);
  let script: Script = () => ({ text: "hi" });
  const fake = await startFakeAnthropic((request) => override?.(request) ?? script(request));
  onCleanup(t, () => fake.close());
  const env = isolatedClaudeEnv(base, fake.url, { PEERPOST_HOME: stateDir, CLAUDE_CODE_HARBOR_KITE: "0", TERM: "xterm-256color", PATH: `${dirname(claudeBinary())}:${process.env.PATH ?? ""}`, ...extraEnv }) as Record<string, string>;
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
  else {
    // A terminal answers a TUI's query when it comes, here after the person's Enter (as under load at
    // start-up): the answer reaches `peerpost run` on the person's input, and is no typing.
    tmux.type("\u001b[?1;2c");
    await tmux.inputShows(claudeInputLine, "");
  }
  return { fake, env, stateDir, tmux, address, store };
}
