// The set-up command `peerpost doctor` and an empty `peerpost agents` print names this clone's path. Cloned
// under a path with a space, the command, pasted into a shell as printed, hands the host CLI that path as
// one argument.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { REPO_ROOT } from "./helpers/mcp.js";

test("doctor's and agents' set-up command for a clone under a path with a space runs as printed", async (t) => {
  const home = tempDir(t);
  // A clone in "my clones/peerpost": the CLI is dist/ (self-contained), the marketplace is .claude-plugin/.
  const clone = join(home, "my clones", "peerpost");
  mkdirSync(clone, { recursive: true });
  for (const entry of ["dist", ".claude-plugin", "package.json"]) cpSync(join(REPO_ROOT, entry), join(clone, entry), { recursive: true });
  // A stand-in `claude` that records the arguments of a `plugin …` call, one per line.
  const bin = join(home, "bin");
  mkdirSync(bin);
  const recorded = join(home, "claude-args");
  writeFileSync(join(bin, "claude"), `#!/bin/sh\nif [ "$1" = plugin ]; then printf '%s\\n' "$@" >> '${recorded}'; fi\nexit 0\n`);
  chmodSync(join(bin, "claude"), 0o755);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "ana", PATH: `${bin}:/usr/bin:/bin`, CLAUDE_CONFIG_DIR: join(home, ".claude") };
  const cli = join(clone, "dist", "cli.cjs");
  for (const args of [["doctor"], ["agents"]]) {
    const ran = await collect(spawn(process.execPath, [cli, ...args], { env, stdio: ["ignore", "pipe", "pipe"] }));
    const line = ran.stdout.split("\n").find((text) => text.includes("claude plugin marketplace add"));
    assert.ok(line, ran.stdout);
    const command = line.replace(/^.*?(claude plugin marketplace add)/, "$1").trim();
    writeFileSync(recorded, "");
    // Pasted into a shell as printed.
    const pasted = await collect(spawn("sh", ["-c", command], { env, stdio: ["ignore", "pipe", "pipe"] }));
    assert.equal(pasted.code, 0, pasted.stderr);
    assert.ok(existsSync(recorded));
    const calls = readFileSync(recorded, "utf8");
    assert.ok(calls.startsWith(`plugin\nmarketplace\nadd\n${clone}\n`), `${args[0]} printed: ${command}\nclaude got:\n${calls}`);
  }
});
