// A PEERPOST_ADDRESS the server cannot use (a role, or not an address) is the user's setting, not the call's
// arguments: tools that need no identity still answer (health says what is wrong), and the others are
// refused as no_current_session, whose hint says no argument fixes it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";

for (const address of ["role:lead", "not an address"])
  test(`with PEERPOST_ADDRESS=${JSON.stringify(address)}, health still reports, and a send is not blamed on its arguments`, async (t) => {
    const home = tempDir(t);
    const session = await connect(t, { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_ADDRESS: address });
    const health = await session.call("health");
    assert.equal(health.ok, true, `health, which takes no arguments, fails: ${JSON.stringify(health.error)}`);
    const agents = await session.call("agents");
    assert.equal(agents.ok, true, `agents, which needs no identity, fails: ${JSON.stringify(agents.error)}`);
    const sent = await session.call("message", { to: "codex:bob", message: "hi" });
    assert.equal(sent.ok, false);
    assert.notEqual((sent.error as { code: string }).code, "invalid_arguments", `a well-formed send is refused as invalid_arguments: ${JSON.stringify(sent.error)}`);
  });
