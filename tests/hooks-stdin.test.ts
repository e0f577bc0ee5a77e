// A hook whose host leaves stdin open: it answers once the event JSON is in, and with only part of it
// its own deadline still ends it, silently and with exit 0. Over a FIFO and over a socket (Node's pipes).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { closeSync, constants, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { collect, type Collected } from "./helpers/children.js";
import { hookBundle } from "./helpers/hooks.js";

/** The hook's outcome, or a failure if it is still running long after its own 5 s deadline (a guard, not a target). */
async function outcome(t: Parameters<typeof tempDir>[0], child: ChildProcess): Promise<Collected> {
  onCleanup(t, () => child.kill("SIGKILL"));
  const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const result = await collect(child);
  clearTimeout(guard);
  assert.notEqual(result.signal, "SIGKILL", "the hook hung on an open stdin");
  return result;
}

function env(home: string): Record<string, string> {
  return { PATH: "/usr/bin:/bin", HOME: home, PEERPOST_HOME: join(home, "state") };
}

test("over a FIFO the host keeps open, a whole event is answered and a partial one ends at the deadline", async (t) => {
  const home = tempDir(t);
  const fifo = join(home, "stdin.fifo");
  execFileSync("mkfifo", [fifo]);
  // Read-write on our side: the FIFO always has a writer, so the hook never sees end-of-file.
  const held = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
  onCleanup(t, () => closeSync(held));
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  writeSync(held, JSON.stringify({ session_id: "fifo-session", cwd: "/work", source: "startup" }));
  const whole = await outcome(t, spawn(process.execPath, [hookBundle("claude-code"), "session-start"], { env: env(home), stdio: [reader, "pipe", "pipe"] }));
  closeSync(reader);
  assert.equal(whole.code, 0, whole.stderr);
  assert.match(readFileSync(join(home, "state", "sessions.jsonl"), "utf8"), /"address":"claude:fifo-session"/);

  const partialReader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  writeSync(held, '{"session_id": "never-fini');
  const partial = await outcome(t, spawn(process.execPath, [hookBundle("claude-code"), "user-prompt"], { env: env(home), stdio: [partialReader, "pipe", "pipe"] }));
  closeSync(partialReader);
  assert.equal(partial.code, 0);
  assert.equal(partial.stdout, "");
});

test("over a socket the host keeps open, a partial event ends at the deadline with exit 0 and no output", async (t) => {
  const home = tempDir(t);
  const child = spawn(process.execPath, [hookBundle("codex"), "session-start"], { env: env(home), stdio: ["pipe", "pipe", "pipe"] });
  child.stdin!.write('{"session_id": "half');
  const result = await outcome(t, child);
  assert.equal(result.code, 0);
  assert.equal(result.stdout, "");
});

test("over a socket, an event that comes in two parts, split inside a character, is answered whole", async (t) => {
  const home = tempDir(t);
  const child = spawn(process.execPath, [hookBundle("claude-code"), "session-start"], { env: env(home), stdio: ["pipe", "pipe", "pipe"] });
  const event = Buffer.from(JSON.stringify({ session_id: "split-session", cwd: "/wörk/ünïcode", source: "startup" }));
  const cut = event.indexOf(Buffer.from("ö")) + 1;
  child.stdin!.write(event.subarray(0, cut));
  // The hook's first read has only the first part; the rest comes while it waits on the stream.
  setTimeout(() => child.stdin!.write(event.subarray(cut)), 500);
  const result = await outcome(t, child);
  assert.equal(result.code, 0, result.stderr);
  const registered = readFileSync(join(home, "state", "sessions.jsonl"), "utf8");
  assert.match(registered, /"address":"claude:split-session"/);
  assert.match(registered, /"cwd":"\/wörk\/ünïcode"/, "the character cut between the parts is whole");
});
