// Run from a clone (`node dist/cli.cjs …`, as the README says for a peerpost not on PATH), the Grok set-up
// command that `doctor` and an empty `agents` print calls peerpost the same way: pasted as printed it
// finishes the set-up, rather than stopping at "peerpost: not found" with the plugin half installed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { CLI } from "./helpers/mcp.js";

test("the Grok set-up command printed by doctor and agents runs as printed when peerpost is not on PATH", async (t) => {
  const home = tempDir(t);
  // A stand-in official `grok` (its --version is what peerpost checks) that accepts `plugin …`.
  const bin = join(home, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "grok"), `#!/bin/sh\nif [ "$1" = --version ]; then echo 'grok 1.0.41 (4220f3b224a6)'; fi\nexit 0\n`, { mode: 0o755 });
  // PATH has grok, node's own dir is not needed (the printed command is run by sh), and no peerpost.
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "ana", PATH: `${bin}:/usr/bin:/bin` };
  assert.notEqual((await collect(spawn("sh", ["-c", "command -v peerpost"], { env }))).code, 0, "this test runs with no peerpost on PATH");
  for (const args of [["doctor"], ["agents"]]) {
    const ran = await collect(spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] }));
    const line = ran.stdout.split("\n").find((text) => text.includes("grok plugin marketplace add"));
    assert.ok(line, ran.stdout);
    const command = line.replace(/^.*?(grok plugin marketplace add)/, "$1").trim();
    // node is where a newcomer's node is; the stand-in's PATH keeps it reachable for `node …` commands.
    const pasted = await collect(spawn("sh", ["-c", command], { env: { ...env, PATH: `${env.PATH}:${join(process.execPath, "..")}` }, stdio: ["ignore", "pipe", "pipe"] }));
    assert.equal(pasted.code, 0, `${args[0]} printed: ${command}\nsh said: ${pasted.stderr}`);
    assert.ok(existsSync(join(home, ".grok", "hooks", "peerpost.json")), `${args[0]}: the pasted command wrote no Grok user hooks`);
  }
});
