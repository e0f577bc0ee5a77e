// If peerpost cannot work (a bad state dir, a bad `PEERPOST_*` value, a bug), the shim says so once on stderr
// (the editor's log for the agent) and in `logs/errors.log`, and the host still runs
// (docs/live-delivery-editors.md). A bad value elsewhere leaves the state dir usable for that log, which
// `peerpost doctor` shows: a person whose editor panel never gets a turn finds why there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { CLI } from "./helpers/mcp.js";

test("a shim whose PEERPOST_* value is bad writes why to the state dir's error log, and the host still runs", (t) => {
  const home = tempDir(t);
  const state = join(home, "state");
  const bin = join(home, "bin");
  mkdirSync(bin);
  // A stand-in codex: says it ran, reads its protocol input to its end.
  writeFileSync(join(bin, "codex"), "#!/bin/sh\necho \"stand-in codex $*\"\ncat >/dev/null\n");
  chmodSync(join(bin, "codex"), 0o755);
  const run = spawnSync(process.execPath, [CLI, "shim", "codex", "app-server"], {
    encoding: "utf8",
    input: "",
    timeout: 30_000,
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: home, PEERPOST_HOME: state, PEERPOST_MAX_HOPS: "many" },
  });
  assert.match(run.stdout, /stand-in codex app-server/, "the host still runs");
  assert.match(run.stderr, /peerpost shim: live delivery failed .*PEERPOST_MAX_HOPS/, "said once on stderr");
  const log = join(state, "logs", "errors.log");
  assert.ok(existsSync(log), `no ${log}: the failure reached stderr only (${run.stderr.trim()})`);
  assert.match(readFileSync(log, "utf8"), /PEERPOST_MAX_HOPS/);
});
