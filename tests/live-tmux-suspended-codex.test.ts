// With real Codex 0.171.0 TUIs (offline): the person runs one from their shell in a tmux pane, suspends it
// with Ctrl-Z (Codex clears its screen, and its peerpost server, in a process group of its own, keeps
// running), and starts another Codex session in the same pane. A request to the suspended session is not
// typed into the other one.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { connect } from "./helpers/mcp.js";
import { onCleanup } from "./helpers/temp.js";
import { until } from "./helpers/poll.js";
import { startFakeResponses, type Script } from "./helpers/fake-openai-responses.js";
import { codexAvailable, codexBinary, isolatedCodexEnv, makeScratchDir, repoRoot, runCodex } from "./helpers/codex-cli.js";
import { NO_TMUX, startTmux } from "./helpers/tmux.js";
import { isHealthResult, responsesTypedTurns, sessionIdle } from "./helpers/live-typing.js";
import { codexInputLine } from "../plugins/codex/terminal.js";
import { openPeerpost } from "../core/peerpost.js";

const availability = codexAvailable();
const PLUGIN = "peerpost@peerpost";


test("codex in tmux suspended with Ctrl-Z, another codex started in the pane: a request to the suspended session is not typed into the other", { skip: NO_TMUX || (availability.ok ? false : availability.reason), timeout: 300_000 }, async (t: TestContext) => {
  let script: Script = () => ({ text: "hi" });
  const fake = await startFakeResponses((request, index) => script(request, index));
  onCleanup(t, () => fake.close());
  const scratch = makeScratchDir("peerpost-live-codex-suspend-");
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
  tmux.start("/bin/bash", ["--norc", "--noprofile", "-i"], { ...(codex.env as Record<string, string>), PS1: "$ ", HISTFILE: join(scratch, "history") }, codex.home);
  await until(() => /^\$/m.test(tmux.capture()), 30_000, "the shell prompt");
  tmux.type(`${codexBinary()} --dangerously-bypass-approvals-and-sandbox --dangerously-bypass-hook-trust`);
  tmux.sendKeys("Enter");
  await tmux.inputShows(codexInputLine, "");
  tmux.type("hello");
  await tmux.inputShows(codexInputLine, "hello");
  tmux.sendKeys("Enter");
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: codex.home });
  await until(() => store().sessions.list({ host: "codex" }).some((session) => session.alive), 60_000, "the codex session to register");
  const address = store().sessions.list({ host: "codex" }).find((session) => session.alive)!.address;
  await until(() => sessionIdle(stateDir, address) && fake.requests().some((request) => fake.shown(request).some((item) => item.source === "tool_output" && isHealthResult(item))), 60_000, "the first turn's health call and its end");
  const env = codex.env as Record<string, string>;
  const { spawnSync } = await import("node:child_process");
  const { CLI } = await import("./helpers/mcp.js");
  assert.equal(spawnSync(process.execPath, [CLI, "push", "on", "tmux", "codex"], { env }).status, 0);

  tmux.sendKeys("C-z");
  await until(() => /Stopped/.test(tmux.capture()), 30_000, `the shell to report the stopped job\n${tmux.capture()}`);
  // The person starts another Codex session in the same pane, and leaves it idle.
  tmux.type(`${codexBinary()} --dangerously-bypass-approvals-and-sandbox --dangerously-bypass-hook-trust`);
  tmux.sendKeys("Enter");
  await tmux.inputShows(codexInputLine, "");
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const requests = fake.requests().length;
  const peer = await connect(t, { HOME: codex.home, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "claude:peer", PEERPOST_PUSH_CONFIRM_MS: "8000" });
  const asked = await peer.call("message", { to: address, message: "Which branch are you on?", anticipation: "reply" });
  await new Promise((resolve) => setTimeout(resolve, 6000));
  const screen = tmux.capture();
  const typedInto = fake.requests().slice(requests).some((request) => fake.shown(request).some((item) => item.source === "user" && item.text.includes(String(asked.messageId))));
  assert.equal(typedInto, false, `the request to the suspended session ${address} was typed into the other Codex session in the pane, and its model got it (sender told ${JSON.stringify({ delivery: asked.delivery, deliveredVia: asked.deliveredVia })}):\n${screen}`);
  assert.notEqual(asked.delivery, "delivered", JSON.stringify(asked));
});
