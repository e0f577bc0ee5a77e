// wake.json and overrides.json are read, changed and written back under a lock: of several changes made at
// once (people's or scripts'), each stays. Timing-dependent, so each test tries 5 rounds of 8 concurrent
// processes (one lost write fails it).
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cli } from "./helpers/cli.js";
import { tempDir } from "./helpers/temp.js";
import { openPeerpost } from "../core/peerpost.js";

const sessions = (round: number, count = 8) => Array.from({ length: count }, (_, i) => `codex:r${round}s${i}`);

/**
 * `rounds` rounds of `count` concurrent `wake off ADDR` under `wake on all`, each round after `before` (given
 * the state dir): every one of them is kept.
 */
async function everyWakeOffKept(t: TestContext, rounds: number, count: number, before: (stateDir: string) => void = () => undefined): Promise<void> {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  assert.equal((await cli(env, "wake", "on", "all")).code, 0);
  for (let round = 0; round < rounds; round++) {
    before(stateDir);
    const addresses = sessions(round, count);
    const results = await Promise.all(addresses.map((address) => cli(env, "wake", "off", address, "--json")));
    for (const result of results) assert.equal(result.code, 0, result.stderr);
    const wake = (JSON.parse(readFileSync(join(stateDir, "wake.json"), "utf8")) as { wake: Record<string, boolean> }).wake;
    const lost = addresses.filter((address) => wake[address] !== false);
    assert.deepEqual(lost, [], `round ${round}: each command said ok, yet these sessions still wake: ${lost.join(", ")}`);
  }
}

test("8 concurrent `wake off ADDR` under `wake on all`: every one of them is kept", (t) => everyWakeOffKept(t, 5, 8));

// A lock left by a process killed while holding it is taken over after a second: every waiter judges it
// stale at about the same moment, and only one may take it over (core/security/file-lock.ts).
test("16 concurrent `wake off ADDR` waiting on a lock a killed process left: every one of them is kept", (t) =>
  // The lock of a `peerpost wake …` killed (Ctrl-C, a timeout) between taking and releasing it.
  everyWakeOffKept(t, 8, 16, (stateDir) => mkdirSync(join(stateDir, "wake.json.updating"))));

test("8 concurrent override-policy changes for different sessions: every policy is kept", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  // A policy is for a session peerpost knows.
  const store = openPeerpost({ env, home });
  t.after(() => store.backend.close());
  for (let round = 0; round < 5; round++)
    for (const address of sessions(round)) await store.sessions.register({ host: "codex", address, sessionId: address.slice("codex:".length), source: "startup" });
  for (let round = 0; round < 5; round++) {
    const results = await Promise.all(sessions(round).map((address) => cli(env, "override-policy", address, "--model", "claude:lead", "--json")));
    for (const result of results) assert.equal(result.code, 0, result.stdout + result.stderr);
    const policies = (JSON.parse(readFileSync(join(home, "state", "overrides.json"), "utf8")) as { policies: Record<string, unknown> }).policies;
    const lost = sessions(round).filter((address) => policies[address] === undefined);
    assert.deepEqual(lost, [], `round ${round}: each command said ok, yet these policies are gone: ${lost.join(", ")}`);
  }
});
