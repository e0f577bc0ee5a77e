// The same override-policy sender list is taken or refused alike by the CLI and the MCP tool.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli, json } from "./helpers/cli.js";
import { connect } from "./helpers/mcp.js";
import { tempDir } from "./helpers/temp.js";

test("a sender that is no address (bogus:x) is refused by both the CLI and set_agent_override_policy", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const byCli = await cli(env, "override-policy", "codex:s1", "--model", "bogus:x", "--json");
  assert.equal((json(byCli) as { error: { code: string } }).error.code, "invalid_arguments", "the CLI refuses it");
  const agent = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:s1" });
  const byTool = await agent.raw("set_agent_override_policy", { target: "codex:s1", model: ["bogus:x"] });
  assert.ok(byTool.isError, `the tool stored it: ${JSON.stringify(byTool.structuredContent)}`);
});
