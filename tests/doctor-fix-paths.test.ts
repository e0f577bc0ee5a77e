// doctor's fixes are commands to paste: with a state dir whose path holds a space (PEERPOST_HOME="~/My
// State/.peerpost", macOS's "Application Support"), each pasted command works and the problem goes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { CLI } from "./helpers/mcp.js";

interface Doctor {
  problems: Array<{ problem: string; fix: string }>;
}

test("doctor's fix commands work when pasted for a state dir whose path holds a space", async (t) => {
  const root = tempDir(t);
  const home = join(root, "home");
  const stateDir = join(root, "My State", ".peerpost");
  mkdirSync(home);
  mkdirSync(join(root, "My State"));
  const env = { PATH: "/usr/bin:/bin", HOME: home, PEERPOST_HOME: stateDir };
  const run = (args: string[]) => collect(spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] }));
  const sent = await run(["send", "--from", "user:me", "--to", "user:me", "--allow-self", "hello"]);
  assert.equal(sent.code, 0, sent.stderr);
  // A loose mode on the state dir, and a lock left by a holder that stopped an hour ago.
  chmodSync(stateDir, 0o755);
  const lock = join(stateDir, "mailbox.jsonl.lock");
  mkdirSync(lock);
  const old = (Date.now() - 3600_000) / 1000;
  utimesSync(lock, old, old);
  const before = JSON.parse((await run(["doctor", "--json"])).stdout) as Doctor;
  const commands = before.problems.map((item) => /(chmod 700 .*|rmdir .*)$/.exec(item.fix)?.[1]).filter((command): command is string => command !== undefined);
  assert.equal(commands.length, 2, JSON.stringify(before.problems));
  // Each fix pasted into a shell, as a person does.
  for (const command of commands) {
    const pasted = spawnSync("sh", ["-c", command], { encoding: "utf8" });
    assert.equal(pasted.status, 0, `${command}: ${pasted.stderr}`);
  }
  const after = JSON.parse((await run(["doctor", "--json"])).stdout) as Doctor;
  assert.deepEqual(after.problems, [], "every problem fixed by its pasted fix");
});
