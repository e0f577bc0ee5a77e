// `npm run demo` empties its state dir first, and only a dir an earlier demo made (its own mark, a file of
// its own text): a PEERPOST_DEMO_HOME naming a dir of the person's own (a project) that merely holds
// something called `demo` (a folder of examples, as many projects have) is refused, not deleted.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { REPO_ROOT } from "./helpers/mcp.js";

test("the demo refuses, and does not delete, a project dir that has a demo/ folder", async (t) => {
  const home = tempDir(t);
  const project = join(home, "project");
  mkdirSync(join(project, "demo"), { recursive: true });
  writeFileSync(join(project, "demo", "index.html"), "<h1>my demo</h1>\n");
  writeFileSync(join(project, "main.c"), "int main(void) { return 0; }\n");
  const ran = await collect(spawn(process.execPath, [join(REPO_ROOT, "scripts/demo.mjs")], { cwd: home, env: { PATH: "/usr/bin:/bin", HOME: home, PEERPOST_DEMO_HOME: project, PEERPOST_USER: "ana" }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.ok(existsSync(join(project, "main.c")), `the demo deleted the project (exit ${ran.code}):\n${ran.stdout.slice(0, 300)}`);
  assert.ok(existsSync(join(project, "demo", "index.html")), "the demo deleted the project's demo folder");
  assert.notEqual(ran.code, 0, "the demo ran in a dir it did not make");
});

test("the demo still starts over in a dir an earlier demo made", async (t) => {
  const home = tempDir(t);
  const env = { PATH: "/usr/bin:/bin", HOME: home, PEERPOST_DEMO_HOME: join(home, "demo-state"), PEERPOST_USER: "ana" };
  for (let run = 0; run < 2; run++) {
    const ran = await collect(spawn(process.execPath, [join(REPO_ROOT, "scripts/demo.mjs")], { cwd: home, env, stdio: ["ignore", "pipe", "pipe"] }));
    assert.equal(ran.code, 0, `run ${run + 1}: ${ran.stderr}`);
  }
});
