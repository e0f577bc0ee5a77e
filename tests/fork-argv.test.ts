// A fork's text goes to the host CLI where it can never be parsed as an option (after `--`, or as
// `--single=<text>`): text starting with "-" (`--mcp-config=<json>`, a `-c` override) would otherwise make
// the host start a command of the sender's choosing.
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

/** True when `prompt` reaches the host where no option parser can take it for an option. */
function promptIsOperand(args: string[], prompt: string): boolean {
  const at = args.indexOf(prompt);
  if (at === -1) return args.some((arg) => /^--[a-z-]+=/.test(arg) && arg.endsWith(`=${prompt}`));
  return args.slice(0, at).includes("--");
}

test("fork: a message starting with '-' is never placed where the host CLI parses it as an option (claude, codex, grok)", () => {
  for (const host of ["claude-code", "codex", "grok"] as const) {
    const fork = WAKERS[host]!.fork!;
    for (const prompt of ["--dangerously-skip-permissions", "-cmodel=\"x\"", "- list the files", "--help"]) {
      const { args } = fork.command({ sessionId: "0199aaaa-bbbb-cccc-dddd-eeeeffff0000", forkSessionId: "11111111-2222-3333-4444-555555555555", prompt, settings: {} });
      assert.ok(promptIsOperand(args, prompt), `${host}: ${JSON.stringify(prompt)} is parsed as an option in ${JSON.stringify(args)}`);
    }
  }
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
