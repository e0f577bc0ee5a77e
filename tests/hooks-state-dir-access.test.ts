// A hook on a state dir it may not use, or may only read. One it refuses (another user's, or one others can
// write) gets nothing written into it, not even the hook's error log: a logs/ dir of the hook's user there
// would break its owner's own log. One it can read but not write (a read-only mount, a full disk) still
// gets its unread mail flagged: the snapshot a hook saves is derived data.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { hookBundle, runHook, type HookHost } from "./helpers/hooks.js";
import { openPeerpost } from "../core/peerpost.js";

const OTHER = 65534;
const isRoot = process.geteuid?.() === 0;

/** A hook of `host` run as another user (`uid`), its stdin given whole. */
function hookAs(uid: number, host: HookHost, event: string, stdin: object, env: Record<string, string>) {
  const child = spawn("setpriv", [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", process.execPath, hookBundle(host), event], { env: { PATH: "/usr/bin:/bin", ...env }, stdio: ["pipe", "pipe", "pipe"] });
  const done = collect(child);
  child.stdin.end(JSON.stringify(stdin));
  return done;
}

test("a hook that refuses another user's state dir writes nothing into it (not even its error log)", { skip: !isRoot && "needs root to make another user's dir" }, async (t) => {
  const home = tempDir(t);
  chmodSync(home, 0o755);
  const stateDir = join(home, "state");
  mkdirSync(stateDir, { mode: 0o700 });
  chownSync(stateDir, OTHER, OTHER);
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  for (const event of ["session-start", "user-prompt", "stop"]) {
    const result = await runHook("claude-code", event, { session_id: "s1", cwd: "/tmp" }, env);
    assert.deepEqual([result.code, result.stdout], [0, ""], event);
  }
  assert.deepEqual(readdirSync(stateDir), [], "the other user's state dir got files of this user");
});

test("a hook run by another user, on a state dir others may write, writes nothing into it", { skip: !isRoot && "needs root to run as another user" }, async (t) => {
  const home = tempDir(t);
  chmodSync(home, 0o755);
  const stateDir = join(home, "state");
  mkdirSync(stateDir, { mode: 0o700 });
  chmodSync(stateDir, 0o777);
  const result = await hookAs(OTHER, "codex", "user-prompt", { session_id: "s1", prompt: "hi" }, { HOME: home, PEERPOST_HOME: stateDir });
  assert.deepEqual([result.code, result.stdout], [0, ""]);
  assert.deepEqual(readdirSync(stateDir), [], "the refused state dir got a logs/ dir of the hook's user");
});

test("a prompt hook on a state dir it cannot write still flags the unread mail", { skip: !isRoot && "needs root to run as another user" }, async (t) => {
  const home = tempDir(t);
  chmodSync(home, 0o755);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  const peerpost = openPeerpost({ env, home });
  // Enough mail (others', then this session's) that the hook finds a snapshot worth saving (over 256 KiB folded).
  for (let i = 0; i < 300; i++) await peerpost.mailbox.send({ from: "codex:a", fromVerified: true, to: `claude:other${i % 50}`, body: "x".repeat(2000), anticipation: "fyi" });
  for (let i = 0; i < 150; i++) await peerpost.mailbox.send({ from: "codex:a", fromVerified: true, to: "claude:me", body: "x", anticipation: "fyi" });
  await peerpost.mailbox.send({ from: "codex:asker", fromVerified: true, to: "claude:me", body: "q?", anticipation: "reply" });
  await peerpost.backend.close();
  assert.ok(statSync(join(stateDir, "mailbox.jsonl")).size > 256 * 1024);
  // No index (derived data, safe to delete; or never built on this mount): the hook folds the log and has a snapshot to save.
  rmSync(join(stateDir, "index"), { recursive: true, force: true });
  // The state dir and its files belong to the hook's user, who may read but not write the dir.
  // (A read-only mount, as that user sees it: every dir readable, none writable.)
  for (const name of ["", ...readdirSync(stateDir, { recursive: true, encoding: "utf8" })]) {
    const path = join(stateDir, name);
    chownSync(path, OTHER, OTHER);
    if (statSync(path).isDirectory()) chmodSync(path, 0o500);
  }
  const result = await hookAs(OTHER, "claude-code", "user-prompt", { session_id: "me", hook_event_name: "UserPromptSubmit", prompt: "hi" }, env);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /151 new messages from other AI agents on this machine \(codex:a \(150\), codex:asker\)/);
});
