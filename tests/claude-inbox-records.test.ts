// The Claude inbox lookup reads Claude's session records and key files as discovery reads host files:
// bounded, never through a link, never blocking on a FIFO. A FIFO at `<config>/sessions/<pid>.json` or a
// link to /dev/zero does not hang the session's server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { tempDir } from "./helpers/temp.js";
import { mkfifoSync } from "./helpers/fifo.js";
import { REPO_ROOT } from "./helpers/mcp.js";

const MODULE = pathToFileURL(join(REPO_ROOT, ".build", "plugins", "claude-code", "inbox", "session-record.js")).href;

function lookupInChild(configDir: string, hostPid: number | undefined): { status: number | null; stdout: string; timedOut: boolean } {
  const script = `import(${JSON.stringify(MODULE)}).then((m) => console.log(JSON.stringify(m.findInboxSession(${JSON.stringify(configDir)}, "abc", ${hostPid ?? "undefined"}))))`;
  const run = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 5000 });
  return { status: run.status, stdout: run.stdout, timedOut: run.error !== undefined || run.signal !== null };
}

test("a FIFO or a link to /dev/zero among Claude's session records does not hang the inbox lookup", async (t) => {
  const configDir = join(tempDir(t), "claude");
  const sessions = join(configDir, "sessions");
  mkdirSync(sessions, { recursive: true });
  mkfifoSync(join(sessions, "4242.json"));
  symlinkSync("/dev/zero", join(sessions, "4343.json"));
  writeFileSync(join(sessions, "4444.json"), "{}");
  for (const hostPid of [undefined, 4242, 4343]) {
    const run = lookupInChild(configDir, hostPid);
    assert.equal(run.timedOut, false, `findInboxSession(…, ${hostPid}) hung on a FIFO or /dev/zero`);
    assert.equal(run.status, 0);
    assert.equal(JSON.parse(run.stdout).ok, false);
  }
});
