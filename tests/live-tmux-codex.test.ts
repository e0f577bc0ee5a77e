// Typing a request into a real Codex TUI in a tmux pane, offline: the TUI runs in a pane of the test's
// own tmux server against a loopback fake model, and after one turn it is idle. A request is typed as
// one line; the fake model calls read and reply; the sender's wait gets the answer. Text in the input
// line holds the typing until it is cleared, and a request that went stale meanwhile is never typed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { spawn } from "node:child_process";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { onCleanup } from "./helpers/temp.js";
import { until } from "./helpers/poll.js";
import { startFakeResponses, type Script } from "./helpers/fake-openai-responses.js";
import { codexAvailable, codexBinary, isolatedCodexEnv, makeScratchDir, repoRoot, runCodex } from "./helpers/codex-cli.js";
import { NO_TMUX, startTmux } from "./helpers/tmux.js";
import { codexInputLine } from "../plugins/codex/terminal.js";
import { openPeerpost } from "../core/peerpost.js";
import { checkTypedDelivery, responsesTypedTurns, sessionIdle } from "./helpers/live-typing.js";

const availability = codexAvailable();
const skip = NO_TMUX || (availability.ok ? false : `codex CLI unavailable: ${availability.reason}`);
const PLUGIN = "peerpost@peerpost";

test("codex in tmux: an idle TUI gets a request typed, reads and replies; text in the input line holds the typing; a stale request is never typed", { skip, timeout: 300_000 }, async (t) => {
  let script: Script = () => ({ text: "hi" });
  const fake = await startFakeResponses((request, index) => script(request, index));
  onCleanup(t, () => fake.close());
  const scratch = makeScratchDir("peerpost-tmux-codex-");
  onCleanup(t, () => rmSync(scratch, { recursive: true, force: true }));
  const stateDir = join(scratch, "peerpost");
  const codex = isolatedCodexEnv(scratch, fake.baseUrl, { env: { PEERPOST_HOME: stateDir, PATH: `${dirname(codexBinary()!)}:${process.env.PATH ?? ""}`, TERM: "xterm-256color" } });
  delete codex.env.NO_COLOR;
  for (const args of [["plugin", "marketplace", "add", repoRoot()!, "--json"], ["plugin", "add", PLUGIN, "--json"]]) {
    const run = await runCodex(args, { env: codex.env });
    assert.equal(run.code, 0, run.stderr);
  }
  appendFileSync(codex.configPath, `\n[plugins."${PLUGIN}".mcp_servers.peerpost]\ndefault_tools_approval_mode = "approve"\n`);
  script = responsesTypedTurns(() => fake, "codex answers");

  const tmux = startTmux(t, scratch);
  tmux.start(codexBinary()!, ["--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust"], codex.env, codex.home);
  await tmux.inputShows(codexInputLine, "");
  // The person's first turn: the session registers, and its stop hook marks it idle.
  tmux.type("hello");
  tmux.sendKeys("Enter");
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: codex.home });
  await until(() => store().sessions.list({ host: "codex" }).some((session) => session.alive), 60_000, "the codex session to register");
  const address = store().sessions.list({ host: "codex" }).find((session) => session.alive)!.address;
  await until(() => sessionIdle(stateDir, address) && fake.requests().some((request) => fake.shown(request).some((item) => item.source === "tool_output")), 60_000, "the first turn's health call");

  const peerEnv = { HOME: codex.home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "claude:peer" };
  const on = await collect(spawn(process.execPath, [CLI, "push", "on", "tmux", "codex"], { env: { PATH: process.env.PATH ?? "", ...peerEnv }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(on.code, 0, on.stderr);
  await checkTypedDelivery(t, { tmux, inputLine: codexInputLine, stateDir, home: codex.home, address, via: "tmux", modelRequests: () => fake.requests().length, modelSaw: (needle) => fake.modelSaw(needle) }, "codex answers");
});
