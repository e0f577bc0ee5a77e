// Overlap of two long claim globs, each with many leading-segment `**/`, is decided in one walk of their
// tokens (each `**/` a fork that may skip it), not one per combination of them kept and dropped: 256 × 256
// walks took seconds to minutes under the store's lock, and again in every later fold. The bound below is
// a guard against that blowup, far above what the walk takes, not a speed target.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { cliIn } from "./helpers/cli.js";
import { tempRepo } from "./helpers/repo.js";
import { tempDir } from "./helpers/temp.js";

/** `**\/a0/**\/a1/…/**\/a7/*xxx…a`: 8 optional directories, a tail that never matches the other's. */
function hostile(letter: string): string {
  let pattern = "";
  for (let i = 0; i < 8; i++) pattern += `**/${letter}${i}/`;
  return `${pattern}*${"x".repeat(150)}${letter}`;
}

test("claiming a long glob with several **/ segments next to another one does not take seconds of CPU", async (t) => {
  const repo = tempRepo(t);
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const a = hostile("a");
  const b = hostile("b");
  assert.ok(a.length < 1024 && b.length < 1024, "well within the documented pattern length");
  const first = await cliIn(repo, env, "claim", "--as", "user:alice", "--json", a);
  assert.equal(first.code, 0, first.stderr);
  let started = Date.now();
  const second = await cliIn(repo, env, "claim", "--as", "user:bob", "--json", b);
  const claimMs = Date.now() - started;
  assert.equal(second.code, 0, second.stderr);
  started = Date.now();
  const listed = await cliIn(repo, env, "claims", "--json");
  const listMs = Date.now() - started;
  assert.equal(listed.code, 0, listed.stderr);
  assert.ok(claimMs < 8000 && listMs < 8000, `the second claim took ${claimMs} ms and listing two claims ${listMs} ms (the overlap check of two ${a.length}-character patterns, re-decided by every fold)`);
});
