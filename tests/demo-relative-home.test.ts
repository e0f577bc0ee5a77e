// PEERPOST_DEMO_HOME given as a relative path (`PEERPOST_DEMO_HOME=demo npm run demo`) is resolved against
// the dir npm was run from, as a shell would: the servers take only an absolute PEERPOST_HOME, and the
// printed command works from any directory.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { REPO_ROOT } from "./helpers/mcp.js";

test("npm run demo with a relative PEERPOST_DEMO_HOME works and prints an absolute state dir", async (t) => {
  const home = tempDir(t);
  const ran = await collect(spawn(process.execPath, [join(REPO_ROOT, "scripts/demo.mjs")], { cwd: home, env: { PATH: "/usr/bin:/bin", HOME: home, PEERPOST_DEMO_HOME: "demo", PEERPOST_USER: "ana" }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(ran.stdout.trimEnd().split("\n").at(-1), `  PEERPOST_HOME=${join(home, "demo")} node ${join(REPO_ROOT, "dist/cli.cjs")} ui`);
});
