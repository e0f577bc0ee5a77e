// `npm run demo` keeps its conversation in <tmp>/peerpost-demo-<uid> by default: one dir per user of the
// machine, so a second person on a shared machine runs it too; a demo dir another user left at a path
// given is refused in words, not a stack trace, and so is a uid with no passwd entry (a container's -u).
// Needs root (to run the demo as other users).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collect } from "./helpers/children.js";
import { onCleanup } from "./helpers/temp.js";
import { REPO_ROOT } from "./helpers/mcp.js";

const DEMO = join(REPO_ROOT, "scripts/demo.mjs");
const notRoot = process.getuid?.() !== 0 ? "needs root to run the demo as two other users" : false;
const USERS = [1, 65534]; // daemon and nobody: in every Debian passwd

/** A world-writable sticky dir standing in for /tmp, and a home for each user; removed at the end. */
function sharedMachine(t: import("node:test").TestContext) {
  const root = mkdtempSync(join(tmpdir(), "pp-shared-"));
  chmodSync(root, 0o755);
  onCleanup(t, () => rmSync(root, { recursive: true, force: true }));
  const tmp = join(root, "tmp");
  mkdirSync(tmp);
  chmodSync(tmp, 0o1777);
  const homes = USERS.map((uid) => {
    const home = join(root, `home-${uid}`);
    mkdirSync(home, { mode: 0o700 });
    chownSync(home, uid, uid);
    return home;
  });
  return { tmp, homes };
}

function demoAs(uid: number, home: string, tmp: string) {
  const args = [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", process.execPath, DEMO];
  return collect(spawn("setpriv", args, { env: { PATH: "/usr/bin:/bin", HOME: home, TMPDIR: tmp }, stdio: ["ignore", "pipe", "pipe"] }));
}

test("two users of one machine each run npm run demo as the README says", { skip: notRoot }, async (t) => {
  const { tmp, homes } = sharedMachine(t);
  const first = await demoAs(USERS[0]!, homes[0]!, tmp);
  assert.equal(first.code, 0, first.stderr);
  const second = await demoAs(USERS[1]!, homes[1]!, tmp);
  assert.equal(second.code, 0, `the second user's demo failed:\n${second.stderr}`);
});

test("a demo dir another user left at the default path gives no stack trace", { skip: notRoot }, async (t) => {
  const { tmp, homes } = sharedMachine(t);
  // What another user's demo run of an older layout, or anyone, can leave: the dir with its marker, writable by all.
  const planted = join(tmp, "peerpost-demo");
  mkdirSync(planted);
  writeFileSync(join(planted, "demo"), "x");
  chmodSync(planted, 0o777);
  chownSync(planted, USERS[1]!, USERS[1]!);
  chownSync(join(planted, "demo"), USERS[1]!, USERS[1]!);
  const ran = await demoAs(USERS[0]!, homes[0]!, tmp);
  assert.doesNotMatch(ran.stderr, /\n\s+at /, `a stack trace:\n${ran.stderr}`);
  assert.equal(ran.code, 0, ran.stderr);
});

test("a user with no passwd entry (a container's -u UID) runs the demo without a stack trace", { skip: notRoot }, async (t) => {
  const { tmp } = sharedMachine(t);
  const uid = 4242; // no passwd entry: os.userInfo() throws, as in `docker run -u 4242`
  const home = join(tmp, "..", "home-4242");
  mkdirSync(home, { mode: 0o700 });
  chownSync(home, uid, uid);
  const args = [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", process.execPath, DEMO];
  const ran = await collect(spawn("setpriv", args, { env: { PATH: "/usr/bin:/bin", HOME: home, TMPDIR: tmp, USER: "ana" }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.doesNotMatch(ran.stderr, /\n\s+at /, `a stack trace:\n${ran.stderr}`);
  assert.equal(ran.code, 0, ran.stderr);
  assert.match(ran.stdout, /message \{to: "user:ana"\}/);
});
