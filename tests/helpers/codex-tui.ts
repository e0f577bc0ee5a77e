// A real Codex TUI, offline, in a pane of the test's own tmux server (started directly, through a wrapper
// such as `peerpost run`, or typed into a shell there), with the peerpost plugin installed and its tools approved: it runs
// the person's first turn ("hello"), so its session is registered and idle when this returns.
import assert from "node:assert/strict";
import { appendFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { TestContext } from "node:test";
import { onCleanup } from "./temp.js";
import { until } from "./poll.js";
import { startFakeResponses, type FakeResponses, type Script } from "./fake-openai-responses.js";
import { codexBinary, isolatedCodexEnv, makeScratchDir, repoRoot, runCodex, type CodexEnv } from "./codex-cli.js";
import { startTmux, type TmuxServer } from "./tmux.js";
import { isHealthResult, responsesTypedTurns, sessionIdle } from "./live-typing.js";
import { codexInputLine } from "../../plugins/codex/terminal.js";
import { openPeerpost } from "../../core/peerpost.js";

const PLUGIN = "peerpost@peerpost";

export interface IdleCodexTui {
  fake: FakeResponses;
  codex: CodexEnv;
  stateDir: string;
  tmux: TmuxServer;
  address: string;
}

/**
 * How the TUI starts in the pane: as the pane's program, `command` with the TUI's arguments after
 * `prefixArgs` (e.g. the CLI and `run codex`), or typed into the person's shell there ("shell").
 */
export type CodexStart = { command: string; prefixArgs: string[] } | "shell";

export async function idleCodexTui(t: TestContext, answer: string, start: CodexStart | undefined = undefined, override?: (request: Parameters<Script>[0], index: number) => ReturnType<Script> | undefined): Promise<IdleCodexTui> {
  let script: Script = () => ({ text: "hi" });
  const fake = await startFakeResponses((request, index) => override?.(request, index) ?? script(request, index));
  onCleanup(t, () => fake.close());
  const scratch = makeScratchDir("peerpost-codex-tui-");
  onCleanup(t, () => rmSync(scratch, { recursive: true, force: true }));
  const stateDir = join(scratch, "peerpost");
  const codex = isolatedCodexEnv(scratch, fake.baseUrl, { env: { PEERPOST_HOME: stateDir, PATH: `${dirname(codexBinary()!)}:${process.env.PATH ?? ""}`, TERM: "xterm-256color" } });
  delete codex.env.NO_COLOR;
  for (const args of [["plugin", "marketplace", "add", repoRoot()!, "--json"], ["plugin", "add", PLUGIN, "--json"]]) {
    const run = await runCodex(args, { env: codex.env });
    assert.equal(run.code, 0, run.stderr);
  }
  appendFileSync(codex.configPath, `\n[plugins."${PLUGIN}".mcp_servers.peerpost]\ndefault_tools_approval_mode = "approve"\n`);
  script = responsesTypedTurns(() => fake, answer);

  const tmux = startTmux(t, scratch);
  const tuiArgs = ["--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust"];
  if (start === "shell") {
    tmux.start("/bin/bash", ["--norc", "--noprofile", "-i"], { ...(codex.env as Record<string, string>), PS1: "$ ", HISTFILE: join(scratch, "history") }, codex.home);
    await until(() => /^\$/m.test(tmux.capture()), 30_000, "the shell prompt");
    tmux.type([codexBinary()!, ...tuiArgs].join(" "));
    tmux.sendKeys("Enter");
  } else if (start) tmux.start(start.command, [...start.prefixArgs, ...tuiArgs], codex.env, codex.home);
  else tmux.start(codexBinary()!, tuiArgs, codex.env, codex.home);
  await tmux.inputShows(codexInputLine, "");
  // The person's first turn: the session registers, and its stop hook marks it idle.
  tmux.type("hello");
  await tmux.inputShows(codexInputLine, "hello");
  tmux.sendKeys("Enter");
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: codex.home });
  await until(() => store().sessions.list({ host: "codex" }).some((session) => session.alive), 60_000, "the codex session to register");
  const address = store().sessions.list({ host: "codex" }).find((session) => session.alive)!.address;
  await until(() => sessionIdle(stateDir, address) && fake.requests().some((request) => fake.shown(request).some((item) => item.source === "tool_output" && isHealthResult(item))), 60_000, "the first turn's health call and its end");
  return { fake, codex, stateDir, tmux, address };
}
