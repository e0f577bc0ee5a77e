// A task's title and note come from agents: `peerpost task …` and `peerpost status TASK` show them with every
// character that could rewrite the screen made visible, as `task list` does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli } from "./helpers/cli.js";
import { connect } from "./helpers/mcp.js";
import { tempDir } from "./helpers/temp.js";

// ESC (clear screen, set the window title), BEL, a bidi override, a carriage return.
const HOSTILE = "fix \u001b[2J\u001b]0;owned\u0007 it\u202e\r";
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;

test("an agent's task title and note are shown with their control and bidi characters made visible", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const agent = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:agent" });
  const { id } = (await agent.call("task", { action: "create", title: HOSTILE })).task as { id: string };
  assert.doesNotMatch((await cli(env, "task", "list")).stdout, RAW, "the table escapes (the intended behaviour)");
  const claimed = await cli(env, "task", "claim", id);
  assert.equal(claimed.code, 0, claimed.stderr);
  const status = await cli(env, "status", id);
  const problems = [
    ...(RAW.test(claimed.stdout) ? [`task claim printed ${JSON.stringify(claimed.stdout)}`] : []),
    ...(RAW.test(status.stdout) ? [`status printed ${JSON.stringify(status.stdout.split("\n")[0])}`] : []),
  ];
  assert.deepEqual(problems, []);
});
