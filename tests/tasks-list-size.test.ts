// `task list` shows the first 2000 characters of each note (a result may be 64 KiB): a board of some dozens
// of finished tasks with long results made one answer past the MCP client's 10 MiB line, and the client
// closed the connection (every peerpost tool gone for the session).
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";

test("task list over 60 finished tasks with 60 KB results keeps the connection", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const alice = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" });
  // A result as an agent writes one: JSON with paths and quotes.
  const line = '{"file": "C:\\\\src\\\\app.ts", "change": "replace \\"x\\" with \\"y\\""}\n';
  const note = line.repeat(Math.floor(60_000 / line.length));
  for (let i = 0; i < 60; i++) {
    const { id } = (await alice.call("task", { action: "create", title: `task ${i}` })).task as { id: string };
    assert.equal((await alice.call("task", { action: "claim", id })).ok, true);
    assert.equal((await alice.call("task", { action: "update", id, status: "done", note })).ok, true);
  }
  const listed = await alice.client.callTool({ name: "task", arguments: { action: "list" } }, undefined, { timeout: 60_000 }).catch((error: Error) => ({ failed: error.message }));
  assert.ok(!("failed" in listed), `task list: ${"failed" in listed ? listed.failed : ""}`);
  assert.equal((await alice.call("health")).ok, true, "the connection survives");
});
