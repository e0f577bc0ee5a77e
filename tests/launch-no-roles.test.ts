// A launch borrows the start-up environment of the newest session of that host (docs/waking.md). A helper an
// agent launches does not inherit that session's PEERPOST_ROLE_ADMIN=1 or PEERPOST_ROLES: its peerpost
// server offers no `role` tool ("no argument or message can turn it on", docs/tools.md) and takes no roles.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { standInClaude, claudeResult } from "./helpers/stand-in-claude.js";
import { CLI, connect } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { openPeerpost } from "../core/peerpost.js";
import { captureHostEnv } from "../core/wake/host-env.js";

test("a helper an agent launches does not inherit another session's role admin switch or roles", async (t) => {
  const { home, stateDir, project, path } = standInClaude(
    t,
    "peerpost-review-launch-env-",
    (home) => `const fs = require("node:fs");
fs.writeFileSync(${JSON.stringify(join(home, "env.json"))}, JSON.stringify({ admin: process.env.PEERPOST_ROLE_ADMIN ?? null, roles: process.env.PEERPOST_ROLES ?? null }));
const id = process.argv[process.argv.indexOf("--session-id") + 1];
${claudeResult("done", "x")}
`,
  );
  const env = { HOME: home, PEERPOST_HOME: stateDir, PATH: path };
  const peerpost = openPeerpost({ env, home });
  // The person's own Claude Code session, started as the role admin and the reviewer; its host has ended.
  await peerpost.sessions.register({ host: "claude-code", address: "claude:lead", sessionId: "lead", cwd: project, source: "startup", hostPid: spawnSync("true").pid!, roles: ["reviewer"] });
  captureHostEnv(stateDir, "claude:lead", undefined, { PATH: path, HOME: home, PEERPOST_ROLE_ADMIN: "1", PEERPOST_ROLES: "reviewer" });
  assert.equal((await collect(spawn(process.execPath, [CLI, "launch", "on"], { env, stdio: ["ignore", "pipe", "pipe"] }))).code, 0);

  const agent = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:stranger" });
  const launched = await agent.call("launch", { host: "claude-code", cwd: project, message: "Count the files here." });
  assert.equal(launched.ok, true, JSON.stringify(launched));
  await until(() => existsSync(join(home, "env.json")), 20_000, "the helper to start");
  const inherited = JSON.parse(readFileSync(join(home, "env.json"), "utf8")) as { admin: string | null; roles: string | null };
  assert.deepEqual(inherited, { admin: null, roles: null }, "the launched helper runs with the lead session's role admin switch and roles");
});
