// Run from a clone (`node dist/cli.cjs …`) while another `peerpost` is on PATH (an older global install, a
// packed tarball), the set-up command that doctor and an empty `agents` print calls this peerpost: the
// one on PATH is another program, and pasting the printed command would run it instead.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { CLI } from "./helpers/mcp.js";

test("the Grok set-up command runs this peerpost, not another one on PATH", async (t) => {
  const home = tempDir(t);
  const bin = join(home, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "grok"), `#!/bin/sh\nif [ "$1" = --version ]; then echo 'grok 1.0.41 (4220f3b224a6)'; fi\nexit 0\n`, { mode: 0o755 });
  // Another peerpost on PATH: an older install that knows no `hooks` command.
  writeFileSync(join(bin, "peerpost"), `#!/bin/sh\necho "peerpost: unknown command $1" >&2\nexit 2\n`, { mode: 0o755 });
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "ana", PATH: `${bin}:/usr/bin:/bin:${join(process.execPath, "..")}` };
  for (const args of [["doctor"], ["agents"]]) {
    const ran = await collect(spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] }));
    const line = ran.stdout.split("\n").find((text) => text.includes("grok plugin marketplace add"));
    assert.ok(line, ran.stdout);
    const command = line.replace(/^.*?(grok plugin marketplace add)/, "$1").trim();
    const pasted = await collect(spawn("sh", ["-c", command], { env, stdio: ["ignore", "pipe", "pipe"] }));
    assert.equal(pasted.code, 0, `${args[0]} printed: ${command}\nsh said: ${pasted.stderr}`);
    assert.ok(existsSync(join(home, ".grok", "hooks", "peerpost.json")), `${args[0]}: the pasted command wrote no Grok user hooks`);
  }
});

test("the next steps' doctor command runs when peerpost is not on PATH", async (t) => {
  const home = tempDir(t);
  const bin = join(home, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "claude"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "ana", PATH: `${bin}:/usr/bin:/bin:${join(process.execPath, "..")}` };
  const ran = await collect(spawn(process.execPath, [CLI, "agents"], { env, stdio: ["ignore", "pipe", "pipe"] }));
  const line = ran.stdout.split("\n").find((text) => text.startsWith("Check the result with: "));
  assert.ok(line, ran.stdout);
  const command = line.slice("Check the result with: ".length);
  const pasted = await collect(spawn("sh", ["-c", command], { env, stdio: ["ignore", "pipe", "pipe"] }));
  assert.notEqual(pasted.code, 127, `agents said to run \`${command}\`; sh said: ${pasted.stderr}`);
});
