// `npm run demo` in a shell whose PEERPOST_USER is not a valid name (the one setting the demo passes on):
// its servers cannot start, and the demo ends with their error and hint, exit 1, and no stack trace of the
// MCP SDK's "Connection closed" after them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { REPO_ROOT } from "./helpers/mcp.js";

test("the demo with an invalid PEERPOST_USER ends with the error and its hint, no stack trace", async (t) => {
  const home = tempDir(t);
  const env = { PATH: "/usr/bin:/bin", HOME: home, PEERPOST_DEMO_HOME: join(home, "demo"), PEERPOST_USER: "ana smith" };
  const done = await collect(spawn(process.execPath, [join(REPO_ROOT, "scripts/demo.mjs")], { env, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(done.code, 1, done.stderr);
  assert.match(done.stderr, /PEERPOST_USER="ana smith" is not valid/);
  assert.match(done.stderr, /hint: /);
  assert.doesNotMatch(done.stderr, /McpError|\n\s+at |node_modules/, `the demo ends in a stack trace:\n${done.stderr}`);
});
