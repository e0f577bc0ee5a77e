// The claude-inbox policy reads `--settings` as Claude Code 2.1.332 does. A process stands in for `claude`:
// the transport reads its argv and cwd from /proc, as it reads the real session's.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, tempPeerpost, onCleanup } from "./helpers/temp.js";
import { createInboxPush } from "../plugins/claude-code/inbox/transport.js";
import type { IdentityContext } from "../core/server/adapter.js";

/**
 * A long-lived process started with `args` in `cwd`, standing in for the session's `claude`. A script file,
 * not `-e`: node would take `--settings` after `-e` for an option of its own and exit at once ("bad option").
 */
function fakeClaude(t: TestContext, cwd: string, args: string[]): number {
  const script = join(tempDir(t), "hold.js");
  writeFileSync(script, "setInterval(() => {}, 1e6);\n");
  const child = spawn(process.execPath, [script, ...args], { cwd, stdio: "ignore" });
  onCleanup(t, () => child.kill());
  return child.pid!;
}

async function admitFor(t: TestContext, args: string[], files: Record<string, unknown>) {
  const { peerpost, home } = tempPeerpost(t);
  const configDir = join(home, ".claude");
  mkdirSync(configDir, { recursive: true });
  const project = join(tempDir(t), "project");
  mkdirSync(project, { recursive: true });
  for (const [path, contents] of Object.entries(files)) writeFileSync(path, JSON.stringify(contents));
  const pid = fakeClaude(t, project, args);
  // Until exec, /proc shows the parent's argv.
  for (let tries = 0; tries < 100 && !readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("hold.js"); tries++) await new Promise((resolve) => setTimeout(resolve, 20));
  const context = { env: { HOME: home, CLAUDE_CONFIG_DIR: configDir }, meta: undefined, hostProcess: { pid, ppid: process.pid, name: "claude", command: "claude" }, sessions: undefined } as unknown as IdentityContext;
  const push = createInboxPush(peerpost, context);
  onCleanup(t, () => push.close?.());
  return push.admit!({} as never);
}

test("an absolute --settings path that accepts cross-session messages is read from that path, not under the session's cwd", async (t) => {
  const settings = join(tempDir(t), "my-settings.json");
  const refusal = await admitFor(t, ["--settings", settings], { [settings]: { crossSessionInbound: "accept" } });
  assert.equal(refusal, undefined, `the session's --settings ${settings} says accept, yet the push is refused: ${JSON.stringify(refusal)}`);
});

test("an absolute --settings path that refuses cross-session messages refuses (push_refused), not 'cannot be read'", async (t) => {
  const settings = join(tempDir(t), "my-settings.json");
  const refusal = await admitFor(t, [`--settings=${settings}`], { [settings]: { crossSessionInbound: "refuse" } });
  assert.equal(refusal?.code, "push_refused", `got ${JSON.stringify(refusal)}`);
});

test("a session whose --settings sets permissions.defaultMode bypassPermissions is not pushed to (Claude holds a stranger's message)", async (t) => {
  const dir = tempDir(t);
  const inline = await admitFor(t, ["--settings", JSON.stringify({ permissions: { defaultMode: "bypassPermissions" } })], {});
  assert.equal(inline?.code, "push_held", `inline --settings puts the session in bypassPermissions, yet peerpost pushes: ${JSON.stringify(inline)}`);
  const settings = join(dir, "bypass.json");
  const fromFile = await admitFor(t, ["--settings", settings], { [settings]: { permissions: { defaultMode: "bypassPermissions" } } });
  assert.equal(fromFile?.code, "push_held", `--settings ${settings} puts the session in bypassPermissions, yet peerpost pushes: ${JSON.stringify(fromFile)}`);
});
