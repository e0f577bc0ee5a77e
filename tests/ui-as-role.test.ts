// `peerpost ui --as role:NAME` is refused when it starts (a role is not a sender: every write of the page
// would be refused), with a hint, as a bad --port is.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as delay } from "node:timers/promises";
import { spawn } from "node:child_process";
import { uiEnv } from "./helpers/ui.js";
import { collect } from "./helpers/children.js";
import { CLI } from "./helpers/mcp.js";

test("peerpost ui --as role:NAME is refused at the start, since a role cannot send", async (t) => {
  const child = spawn(process.execPath, [CLI, "ui", "--no-open", "--as", "role:reviewer"], { env: uiEnv(t), stdio: ["ignore", "pipe", "pipe"] });
  const ended = collect(child);
  const outcome = await Promise.race([ended, delay(15_000).then(() => undefined)]);
  if (outcome === undefined) child.kill("SIGTERM");
  const { stdout, stderr } = outcome ?? (await ended);
  assert.notEqual(outcome, undefined, `it serves, writing as a role whose every send is refused: ${stdout.trim()} ${stderr.trim()}`);
  assert.notEqual(outcome!.code, 0);
  assert.match(stderr, /role:reviewer is a role/);
});
