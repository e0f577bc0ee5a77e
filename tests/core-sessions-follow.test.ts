// A process's registry fold follows the file: it reads only the lines appended since its last call, sees
// another process's appends and a compaction's swap, and a torn or corrupt last line neither stops it nor
// is lost once completed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { tempPeerpost } from "./helpers/temp.js";
import { collect, spawnFixture } from "./helpers/children.js";

test("Sessions.all() reads only what was appended since its last call: another process's appends and a compaction's swap are seen, bytes it read before are not read again", async (t) => {
  const { peerpost, stateDir, clock, reopen } = tempPeerpost(t);
  const { sessions } = peerpost;
  for (let i = 0; i < 50; i++) await sessions.register({ host: "claude-code", address: `claude:x${i % 5}`, sessionId: `x${i % 5}`, source: "server", title: `t${i}` });
  assert.equal(sessions.all().length, 5);
  // Another process appends: seen at the next call.
  const env = { PEERPOST_NOW: String(clock.now) };
  const appended = await collect(spawnFixture("log-appender", [stateDir, "sessions", "child", "10"], env));
  assert.equal(appended.code, 0, appended.stderr);
  assert.equal(sessions.all().length, 10);
  // Bytes already folded, overwritten in place: a fold from the start would lose x0's first records; this one does not read them again.
  const path = sessions.log.path;
  const firstLine = readFileSync(path, "utf8").split("\n")[0]!;
  const fd = openSync(path, "r+");
  writeSync(fd, Buffer.from("#".repeat(firstLine.length)), 0, firstLine.length, 0);
  closeSync(fd);
  const titles = () => Object.fromEntries(sessions.all().map((entry) => [entry.address, entry.title]));
  const held = titles();
  await sessions.register({ host: "claude-code", address: "claude:x1", sessionId: "x1", source: "server", title: "new" });
  assert.deepEqual(titles(), { ...held, "claude:x1": "new" }, "the new line is folded on top of what was folded");
  assert.equal(reopen().sessions.corruptLines().count, 1, "a new process sees the overwritten line (corrupt), which this one never read again");
  // A compaction in another process swaps the file: this process folds the new file from its start.
  const compacted = await collect(spawnFixture("log-compactor", [stateDir, "sessions"], env));
  assert.equal(compacted.code, 0, compacted.stderr);
  await collect(spawnFixture("log-appender", [stateDir, "sessions", "after", "5"], env));
  const afterSwap = titles();
  assert.equal(Object.keys(afterSwap).length, 15);
  assert.deepEqual(afterSwap, Object.fromEntries(reopen().sessions.all().map((entry) => [entry.address, entry.title])), "the same as a new process reads");
});

test("a torn last line of the registry is not folded until it is whole, then it is; a corrupt one is skipped and the lines after it are read", async (t) => {
  const { peerpost } = tempPeerpost(t);
  const { sessions } = peerpost;
  await sessions.register({ host: "codex", address: "codex:a", sessionId: "a", source: "server", title: "first" });
  assert.equal(sessions.all()[0]!.title, "first");
  const line = JSON.stringify({ v: 1, type: "session", at: "2026-01-01T00:00:01.000Z", host: "codex", address: "codex:a", sessionId: "a", writerPid: 1, source: "server", title: "second" });
  appendFileSync(sessions.log.path, line.slice(0, 30));
  assert.equal(sessions.all()[0]!.title, "first", "a torn line is not read yet");
  appendFileSync(sessions.log.path, line.slice(30) + "\n");
  assert.equal(sessions.all()[0]!.title, "second", "once whole it is read");
  appendFileSync(sessions.log.path, "{ not json\n");
  await sessions.register({ host: "codex", address: "codex:a", sessionId: "a", source: "server", title: "third" });
  assert.equal(sessions.all()[0]!.title, "third", "a corrupt line stops nothing after it");
  assert.equal(sessions.corruptLines().count, 1);
});

test("a process that looks sessions up one by one through the index (a server's identity check) reads only the lines appended since its last look at that address", async (t) => {
  const { peerpost, stateDir, clock, reopen } = tempPeerpost(t);
  const writer = reopen();
  await writer.sessions.register({ host: "claude-code", address: "claude:me", sessionId: "me", source: "server", name: "kept-name" });
  // Past the size from which a lookup reads one address through the index.
  for (let i = 0; i < 600; i++) await writer.sessions.register({ host: "claude-code", address: `claude:other${i % 50}`, sessionId: `other${i % 50}`, source: "server", cwd: `/some/long/working/directory/${i}` }, { eventual: true });
  const { sessions } = peerpost;
  assert.equal(sessions.get("claude:me")?.name, "kept-name");
  // The record that named it, overwritten in place: a lookup that read it again would lose the name.
  const path = sessions.log.path;
  const firstLine = readFileSync(path, "utf8").split("\n")[0]!;
  const fd = openSync(path, "r+");
  writeSync(fd, Buffer.from("#".repeat(firstLine.length)), 0, firstLine.length, 0);
  closeSync(fd);
  const appended = await collect(spawnFixture("log-appender", [stateDir, "sessions", "me", "1"], { PEERPOST_NOW: String(clock.now) }));
  assert.equal(appended.code, 0, appended.stderr);
  await writer.sessions.register({ host: "claude-code", address: "claude:me", sessionId: "me", source: "server", title: "later" });
  const entry = sessions.get("claude:me");
  assert.deepEqual([entry?.name, entry?.title], ["kept-name", "later"], "the new line is folded on what this process folded before");
  assert.equal(sessions.get("claude:me-0")?.title, "0", "another process's append is seen");
  assert.equal(reopen().sessions.get("claude:me")?.name, undefined, "a new process reads the overwritten line as corrupt");
  // A compaction swaps the file in another process: the lookup starts over on the new file.
  const compacted = await collect(spawnFixture("log-compactor", [stateDir, "sessions"], { PEERPOST_NOW: String(clock.now) }));
  assert.equal(compacted.code, 0, compacted.stderr);
  await writer.sessions.register({ host: "claude-code", address: "claude:me", sessionId: "me", source: "server", title: "after the swap" });
  assert.equal(sessions.get("claude:me")?.title, "after the swap");
});
