// State dir trust against real links, real modes and a real other user (uid 65534 through setpriv):
// links are resolved before the refusal checks, logs are never written through a link, files and dirs
// another user can write or owns are refused, and no dir peerpost did not create is chmodded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { collect, type Collected } from "./helpers/children.js";
import { CLI } from "./helpers/mcp.js";
import { openPeerpost } from "../core/peerpost.js";

const OTHER = 65534;
const isRoot = process.geteuid?.() === 0;

/** Runs the CLI as this user, or as another uid through setpriv. */
function cli(env: Record<string, string>, args: string[], uid?: number): Promise<Collected> {
  const command = uid === undefined ? [process.execPath, CLI, ...args] : ["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", process.execPath, CLI, ...args];
  return collect(spawn(command[0]!, command.slice(1), { env: { PATH: "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"] }));
}

function mode(path: string): number {
  return statSync(path).mode & 0o7777;
}

function errorOf(result: Collected): { code: string; message: string } {
  return (JSON.parse(result.stdout) as { error: { code: string; message: string } }).error;
}


test("a PEERPOST_HOME that is a link to the home dir or a host's config dir is refused, and the home dir keeps its mode", async (t) => {
  const home = tempDir(t);
  chmodSync(home, 0o755);
  mkdirSync(join(home, ".claude"));
  const links = join(tempDir(t), "links");
  mkdirSync(links);
  symlinkSync(home, join(links, "to-home"));
  symlinkSync(join(home, ".claude"), join(links, "to-claude"));
  for (const name of ["to-home", "to-claude"]) {
    const result = await cli({ HOME: home, PEERPOST_HOME: join(links, name) }, ["agents", "--json"]);
    assert.equal(result.code, 1, name);
    assert.equal(errorOf(result).code, "state_io_error", name);
    assert.match(errorOf(result).message, /home directory itself|host's configuration directory/, name);
  }
  // The default ~/.peerpost as a link to the home dir is refused the same way.
  symlinkSync(home, join(home, ".peerpost"));
  const viaDefault = await cli({ HOME: home }, ["agents", "--json"]);
  assert.equal(viaDefault.code, 1);
  assert.match(errorOf(viaDefault).message, /home directory itself/);
  assert.equal(mode(home), 0o755, "HOME was not chmodded");
});

test("a log that is a link is never written through, even to a file outside the state dir", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  await openPeerpost({ env, home }).sessions.register({ host: "codex", address: "codex:b", sessionId: "b", source: "startup" });
  const outside = join(tempDir(t), "victim.txt");
  writeFileSync(outside, "precious\n");
  symlinkSync(outside, join(stateDir, "mailbox.jsonl"));
  const sent = await cli(env, ["send", "--from", "claude:a", "--to", "codex:b", "--json", "hello"]);
  assert.equal(sent.code, 1);
  assert.equal(errorOf(sent).code, "permission_denied");
  assert.match(errorOf(sent).message, /mailbox\.jsonl: it is a symbolic link/);
  const inbox = await cli(env, ["inbox", "codex:b", "--json"]);
  assert.equal(errorOf(inbox).code, "permission_denied", "reading through a link is refused too");
  symlinkSync(outside, join(stateDir, "logs"));
  await cli(env, ["send", "--from", "claude:a", "--to", "codex:b", "--json", "hello"]);
  assert.equal(readFileSync(outside, "utf8"), "precious\n");
});

test("files another user planted are refused, in a loose dir and after the dir is made private", { skip: !isRoot && "needs root to act as another user" }, async (t) => {
  const home = tempDir(t);
  chmodSync(home, 0o755);
  const stateDir = join(home, "shared");
  mkdirSync(stateDir, { mode: 0o777 });
  chmodSync(stateDir, 0o777);
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  // The other user plants a registry entry claiming a session, before this user ever ran peerpost there.
  const planted = JSON.stringify({ v: 1, type: "session", at: new Date().toISOString(), writerPid: 1, host: "codex", address: "codex:b", sessionId: "b", source: "startup" }) + "\n";
  const plant = await collect(spawn("setpriv", [`--reuid=${OTHER}`, `--regid=${OTHER}`, "--clear-groups", process.execPath, "-e", `require("fs").writeFileSync(${JSON.stringify(join(stateDir, "sessions.jsonl"))}, ${JSON.stringify(planted)}, { mode: 0o644 })`], { stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(plant.code, 0, plant.stderr);
  assert.equal(statSync(join(stateDir, "sessions.jsonl")).uid, OTHER);

  const loose = await cli(env, ["send", "--from", "claude:a", "--to", "codex:b", "--json", "hello"]);
  assert.equal(loose.code, 1);
  assert.equal(errorOf(loose).code, "permission_denied");
  assert.match(errorOf(loose).message, /other users can write to it/);
  assert.equal(mode(stateDir), 0o777, "a dir peerpost did not create is not chmodded");

  chmodSync(stateDir, 0o700);
  const owned = await cli(env, ["send", "--from", "claude:a", "--to", "codex:b", "--json", "hello"]);
  assert.equal(owned.code, 1);
  assert.equal(errorOf(owned).code, "permission_denied");
  assert.match(errorOf(owned).message, /belongs to another user \(uid 65534\)/);
});

test("as root, a shared sticky dir is refused and keeps its mode; another user cannot use root's state dir", { skip: !isRoot && "needs root" }, async (t) => {
  const base = tempDir(t);
  chmodSync(base, 0o755);
  const sticky = join(base, "sticky");
  mkdirSync(sticky);
  chmodSync(sticky, 0o1777);
  const result = await cli({ HOME: base, PEERPOST_HOME: sticky }, ["agents", "--json"]);
  assert.equal(result.code, 1);
  assert.equal(errorOf(result).code, "permission_denied");
  assert.equal(mode(sticky), 0o1777, "the shared dir was not locked down");

  // A state dir below the sticky dir is fine for its owner: the sticky dir is root's.
  const mine = join(sticky, "other-user-state");
  mkdirSync(mine, { mode: 0o700 });
  chownSync(mine, OTHER, OTHER);
  const otherHome = join(sticky, "other-home");
  mkdirSync(otherHome, { mode: 0o700 });
  chownSync(otherHome, OTHER, OTHER);
  const own = await cli({ HOME: otherHome, PEERPOST_HOME: mine }, ["agents", "--json"], OTHER);
  assert.equal(own.code, 0, own.stdout + own.stderr);
  // ...but root's state dir is not that user's, and a dir above a state dir that others can write is unsafe.
  const rootState = join(base, "root-state");
  const first = await cli({ HOME: base, PEERPOST_HOME: rootState }, ["agents", "--json"]);
  assert.equal(first.code, 0, first.stderr);
  chmodSync(rootState, 0o755);
  const foreign = await cli({ HOME: otherHome, PEERPOST_HOME: rootState }, ["agents", "--json"], OTHER);
  assert.equal(foreign.code, 1);
  assert.match(errorOf(foreign).message, /belongs to another user \(uid 0\)/);
  const unsafeParent = join(mine, "loose");
  mkdirSync(unsafeParent, { mode: 0o777 });
  chmodSync(unsafeParent, 0o777);
  const below = await cli({ HOME: base, PEERPOST_HOME: join(unsafeParent, "state") }, ["agents", "--json"]);
  assert.equal(below.code, 1);
  assert.match(errorOf(below).message, /directory above the state dir is unsafe/);
});
