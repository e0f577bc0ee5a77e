// A usage mistake exits 2 with a hint in command-line terms (docs/cli.md): a flag given to an action that
// does not read it (`peerpost launch on --model opus` would turn launching on and drop the model without a
// word), and a missing path for claim or release (whose hint was the MCP tool's "all: true").
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { cliIn, json } from "./helpers/cli.js";
import { tempRepo } from "./helpers/repo.js";
import { tempDir } from "./helpers/temp.js";

function setUp(t: Parameters<typeof tempDir>[0]) {
  const home = tempDir(t);
  return { repo: tempRepo(t), env: { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "ann" } };
}

test("a flag given to an action that does not read it is a usage mistake (exit 2), not ignored", async (t) => {
  const { repo, env } = setUp(t);
  // task already does this right: the reference behaviour.
  const task = await cliIn(repo, env, "task", "list", "--body", "x");
  assert.equal(task.code, 2, task.stderr);
  for (const argv of [
    ["launch", "on", "--model", "opus"],
    ["launch", "off", "--cwd", "/tmp"],
    ["sessions", "show", "codex:0199a2f3", "--host", "codex"],
    ["role", "clear", "reviewer", "--procedure", "review.md"],
  ]) {
    const result = await cliIn(repo, env, ...argv);
    assert.equal(result.code, 2, `peerpost ${argv.join(" ")}: exit ${result.code}\nstdout: ${result.stdout}stderr: ${result.stderr}`);
  }
});

test("a missing path for claim or release is a usage mistake (exit 2) with a hint in command-line terms", async (t) => {
  const { repo, env } = setUp(t);
  for (const command of ["claim", "release"]) {
    const result = await cliIn(repo, env, command);
    assert.equal(result.code, 2, `peerpost ${command}: exit ${result.code}, stderr: ${result.stderr}`);
    assert.doesNotMatch(result.stderr, /all: true|the claims tool/, `peerpost ${command}: the hint names the MCP tool's arguments`);
  }
});

test("--json is every command's flag: launch on|off --json sets the switch and prints JSON", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "ann" };
  for (const action of ["on", "off"]) {
    const result = await cliIn(home, env, "launch", action, "--json");
    assert.equal(result.code, 0, `peerpost launch ${action} --json: exit ${result.code}\nstdout: ${result.stdout}stderr: ${result.stderr}`);
    assert.equal(json(result)["launch"], action === "on");
  }
});
