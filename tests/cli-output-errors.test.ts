// Output that cannot be written. A closed pipe ends a command quietly (tested elsewhere); any other failure
// to write stdout (a full disk under `peerpost inbox --json > inbox.json`, here /dev/full) is one error line
// with a code and a hint and exit 1, not an uncaught exception that prints a line of the minified bundle
// (tens of KB) and a stack trace.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { CLI } from "./helpers/mcp.js";

test("a command whose stdout is a full disk says so in one line with a code and a hint", { skip: !existsSync("/dev/full") && "no /dev/full" }, async (t) => {
  const home = tempDir(t);
  const env = { PATH: "/usr/bin:/bin", HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "ana" };
  // One light command, one of the full program, and --json.
  for (const args of [["agents"], ["help"], ["inbox", "--json"]]) {
    const full = openSync("/dev/full", "w");
    const ran = await collect(spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", full, "pipe"] }));
    closeSync(full);
    assert.equal(ran.code, 1, `${args.join(" ")}: ${ran.stderr.slice(0, 300)}`);
    assert.ok(ran.stderr.length < 1000, `${args.join(" ")}: ${ran.stderr.length} bytes on stderr, starting ${JSON.stringify(ran.stderr.slice(0, 200))}`);
    assert.match(ran.stderr, /^peerpost: [a-z_]+: .*ENOSPC.*\nhint: /, args.join(" "));
  }
});
