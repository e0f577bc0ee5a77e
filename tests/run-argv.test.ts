// A headless run's prompt (a wake's or a launch's mail, a fork's text) reaches the host CLI on stdin, never
// on its command line: every user of the machine can read a process's argv (/proc/<pid>/cmdline), and
// text starting with "-" (`--mcp-config=<json>`, a `-c` override) placed there could be parsed as an
// option that makes the host start a command of the sender's choosing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { spawnSync } from "node:child_process";
import { tempDir } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";
import { until } from "./helpers/poll.js";
import { claudeBinary, claudeSkipReason } from "./helpers/claude-cli.js";
import { openPeerpost } from "../core/peerpost.js";
import { WAKERS } from "../plugins/wakers.js";
import { setWakeRule, updateSwitches } from "../core/wake/switches.js";
import type { RunCommand } from "../core/wake/waker.js";

test("every host's headless runs (wake, launch, fork) take the prompt on stdin, and no argument holds any of it", () => {
  const sessionId = "0199aaaa-bbbb-cccc-dddd-eeeeffff0000";
  const server = { command: "/usr/bin/node", args: ["/opt/peerpost/dist/cli.mjs", "serve"], env: { PEERPOST_HOME: "/home/a/.peerpost" } };
  const settings = { model: "m", effort: "high" };
  let checked = 0;
  for (const waker of Object.values(WAKERS)) {
    for (const prompt of ["--dangerously-skip-permissions", '-cmodel="x"', "- list the files", "--help", "<peerpost-message>the build key is 7f3a</peerpost-message>"]) {
      const commands: Array<RunCommand | undefined> = [
        waker.resume({ sessionId, prompt, settings }),
        waker.launch?.({ sessionId, prompt, server, settings }),
        waker.launchNamedByHost?.command({ prompt, server, settings }),
        waker.fork?.command({ sessionId, forkSessionId: "11111111-2222-3333-4444-555555555555", prompt, settings }),
      ];
      for (const command of commands.filter((each) => each !== undefined)) {
        assert.equal(command.stdin, prompt, `${waker.host}: ${JSON.stringify(command.args)}`);
        assert.ok(!command.args.some((arg) => arg.includes(prompt)), `${waker.host}: the prompt is on the command line: ${JSON.stringify(command.args)}`);
        checked++;
      }
    }
  }
  // Four hosts: resume and launch each (Codex names its new session itself), fork three (not Copilot).
  assert.equal(checked, 5 * (4 + 4 + 3));
});

const skip = claudeSkipReason();

test("fork tool: an agent's fork text `--mcp-config=…` never makes the real claude CLI run a command of the agent's choosing", { skip, timeout: 120_000 }, async (t) => {
  const home = tempDir(t, "peerpost-fork-");
  const stateDir = join(home, "state");
  const project = join(home, "project");
  const configDir = join(home, ".claude");
  mkdirSync(project);
  mkdirSync(configDir, { recursive: true });
  mkdirSync(join(home, "tmp"));
  const marker = join(home, "PWNED");
  const env: Record<string, string> = {
    HOME: home,
    PEERPOST_HOME: stateDir,
    PATH: `${dirname(claudeBinary())}:${process.env.PATH ?? ""}`,
    CLAUDE_CONFIG_DIR: configDir,
    TMPDIR: join(home, "tmp"),
    // Nothing listens there: the CLI never reaches a model. Loopback only.
    ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    ANTHROPIC_API_KEY: "sk-ant-test-000000000000",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    IS_SANDBOX: "1",
  };
  // The victim: the user's own Claude Code session (its host gone), with waking on so it may answer mail.
  const victim = "claude:0199aaaa-bbbb-4ccc-8ddd-eeeeffff0000";
  await openPeerpost({ env, home, create: true }).sessions.register({ host: "claude-code", address: victim, sessionId: victim.slice("claude:".length), cwd: project, source: "startup", hostPid: spawnSync("true").pid! });
  updateSwitches(stateDir, (switches) => setWakeRule(switches, victim, true, () => "claude-code"));
  // Any agent with the peerpost server (here an unverified one) calls `fork` with a hostile message.
  const attacker = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:attacker" });
  const payload = `--mcp-config=${JSON.stringify({ mcpServers: { x: { type: "stdio", command: "/bin/sh", args: ["-c", `touch ${marker}`] } } })}`;
  const forked = await attacker.raw("fork", { address: victim, message: payload });
  assert.notEqual(forked.isError, true, JSON.stringify(forked.content));
  const runId = String(forked.structuredContent?.runId);
  await until(() => openPeerpost({ env, home }).wakes.fold().runs.get(runId)?.ended !== undefined, 90_000, "the fork run to end");
  assert.equal(existsSync(marker), false, "the host CLI ran the command the fork's text named (argument injection)");
});
