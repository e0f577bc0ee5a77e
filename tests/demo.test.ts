// npm run demo, as a newcomer runs it before any host is set up: the conversation stays in a named demo
// state dir, the last line is the command that opens the web view on it, and --ui opens it at once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { collect, waitForOutput } from "./helpers/children.js";
import { cli, json } from "./helpers/cli.js";
import { REPO_ROOT } from "./helpers/mcp.js";

const DEMO = join(REPO_ROOT, "scripts/demo.mjs");

function demo(env: Record<string, string>, ...args: string[]) {
  return spawn(process.execPath, [DEMO, ...args], { env: { PATH: "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"] });
}

test("npm run demo keeps its conversation in the demo state dir and prints the command that opens the web view on it", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_DEMO_HOME: join(home, "demo"), PEERPOST_USER: "ana" };
  for (const run of [1, 2]) {
    const done = await collect(demo(env));
    assert.equal(done.code, 0, done.stderr);
    const lines = done.stdout.trimEnd().split("\n");
    assert.equal(lines.at(-1), `  PEERPOST_HOME=${env.PEERPOST_DEMO_HOME} node ${join(REPO_ROOT, "dist/cli.cjs")} ui`, `run ${run}`);
    // A second run starts the demo state dir over: the same conversation, not two.
    const status = json(await cli({ HOME: home, PEERPOST_HOME: env.PEERPOST_DEMO_HOME, PEERPOST_USER: "ana" }, "status", "--json")) as { sessions: Array<{ address: string }>; people: Array<{ address: string; unread: number }> };
    assert.deepEqual(status.sessions.map((session) => session.address).sort(), ["claude:demo-a", "codex:demo-b"]);
    assert.deepEqual(status.people, [{ address: "user:ana", unread: 1, open: 0 }]);
  }
  const inbox = await cli({ HOME: home, PEERPOST_HOME: env.PEERPOST_DEMO_HOME, PEERPOST_USER: "ana" }, "inbox");
  assert.match(inbox.stdout, /From codex:demo-b [^]*?\n\n {4}Told claude:demo-a the dev server's port \(5173\)\./);
});

test("the demo never empties a dir it did not make", async (t) => {
  const home = tempDir(t);
  mkdirSync(join(home, "mine"));
  const refused = await collect(demo({ HOME: home, PEERPOST_DEMO_HOME: join(home, "mine") }));
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /is not a peerpost demo state dir/);
});

test("npm run demo -- --ui opens the web view on the demo's conversation", async (t) => {
  const home = tempDir(t);
  const child = demo({ HOME: home, PEERPOST_DEMO_HOME: join(home, "demo"), PEERPOST_USER: "ana" }, "--ui", "--no-open");
  const exited = collect(child);
  onCleanup(t, async () => {
    child.kill("SIGTERM");
    await exited;
  });
  await waitForOutput(child, "http://127.0.0.1:");
});
