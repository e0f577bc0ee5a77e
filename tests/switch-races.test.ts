// wake.json and overrides.json are read, changed and written back under a lock: of several changes made at
// once (people's or scripts'), each stays. Timing-dependent, so each test tries 5 rounds of 8 concurrent
// processes (one lost write fails it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cli } from "./helpers/cli.js";
import { tempDir } from "./helpers/temp.js";

const sessions = (round: number) => Array.from({ length: 8 }, (_, i) => `codex:r${round}s${i}`);

test("8 concurrent `wake off ADDR` under `wake on all`: every one of them is kept", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  assert.equal((await cli(env, "wake", "on", "all")).code, 0);
  for (let round = 0; round < 5; round++) {
    const results = await Promise.all(sessions(round).map((address) => cli(env, "wake", "off", address, "--json")));
    for (const result of results) assert.equal(result.code, 0, result.stderr);
    const wake = (JSON.parse(readFileSync(join(home, "state", "wake.json"), "utf8")) as { wake: Record<string, boolean> }).wake;
    const lost = sessions(round).filter((address) => wake[address] !== false);
    assert.deepEqual(lost, [], `round ${round}: each command said ok, yet these sessions still wake: ${lost.join(", ")}`);
  }
});

test("8 concurrent override-policy changes for different sessions: every policy is kept", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  for (let round = 0; round < 5; round++) {
    const results = await Promise.all(sessions(round).map((address) => cli(env, "override-policy", address, "--model", "claude:lead", "--json")));
    for (const result of results) assert.equal(result.code, 0, result.stderr);
    const policies = (JSON.parse(readFileSync(join(home, "state", "overrides.json"), "utf8")) as { policies: Record<string, unknown> }).policies;
    const lost = sessions(round).filter((address) => policies[address] === undefined);
    assert.deepEqual(lost, [], `round ${round}: each command said ok, yet these policies are gone: ${lost.join(", ")}`);
  }
});
