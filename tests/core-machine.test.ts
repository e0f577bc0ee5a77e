// Machines: a stable id per state dir on every session record; a pid is checked only for sessions of
// this machine, and host-pid lookups never pick another machine's session.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tempPeerpost } from "./helpers/temp.js";
import { machineId } from "../core/sessions/machine.js";
import { updateSwitches } from "../core/wake/switches.js";
import { requestWake } from "../core/wake/request.js";
import type { WakeDeps } from "../core/wake/waker.js";

test("each state dir gets one machine id, kept across opens and written on every session record", async (t) => {
  const { peerpost, stateDir, reopen } = tempPeerpost(t);
  const id = peerpost.machine();
  assert.match(id, /^[a-z0-9-]+\.[0-9a-f]{8}$/);
  assert.equal(reopen().machine(), id);
  assert.equal(machineId(stateDir), id);
  await peerpost.sessions.register({ host: "claude-code", address: "claude:here", sessionId: "here", hostPid: process.pid, source: "startup", roles: [] });
  const record = JSON.parse(readFileSync(join(stateDir, "sessions.jsonl"), "utf8").trim());
  assert.equal(record.machine, id);
  const [entry] = peerpost.sessions.list();
  assert.equal(entry!.machine, id);
  assert.equal(entry!.local, true);
  assert.equal(entry!.alive, true);
  const other = tempPeerpost(t).peerpost.machine();
  assert.notEqual(other, id, "another state dir is another machine");
});

test("a session of another machine is listed with its machine, never alive here, and never found by a local pid", async (t) => {
  const { peerpost, stateDir } = tempPeerpost(t);
  // Another machine's session whose host pid happens to be a live pid here.
  const foreign = { v: 1, type: "session", at: "2026-01-01T00:00:00.000Z", host: "codex", address: "codex:there", sessionId: "there", hostPid: process.pid, writerPid: 1, source: "server", roles: ["reviewer"], machine: "devbox.0badc0de" };
  appendFileSync(join(stateDir, "sessions.jsonl"), JSON.stringify(foreign) + "\n", { mode: 0o600 });
  const [entry] = peerpost.sessions.list();
  assert.equal(entry!.address, "codex:there");
  assert.equal(entry!.machine, "devbox.0badc0de");
  assert.equal(entry!.local, false);
  assert.equal(entry!.alive, false, "its pid means nothing on this machine");
  assert.equal(peerpost.sessions.byHostPid("codex", process.pid), undefined);
});

test("a send never wakes a session of another machine, even with waking on for it", async (t) => {
  const { peerpost, stateDir } = tempPeerpost(t);
  const foreign = { v: 1, type: "session", at: "2026-01-01T00:00:00.000Z", host: "codex", address: "codex:there", sessionId: "there", hostPid: 999_999, writerPid: 1, cwd: "/work", source: "server", roles: [], machine: "devbox.0badc0de" };
  appendFileSync(join(stateDir, "sessions.jsonl"), JSON.stringify(foreign) + "\n", { mode: 0o600 });
  updateSwitches(stateDir, (switches) => void (switches.wake = { all: true }));
  let started = false;
  const decision = await requestWake(peerpost, "codex:there", { wakers: { codex: {} } as unknown as WakeDeps["wakers"], runnerEntry: "/nonexistent" }, () => void (started = true));
  assert.equal(decision.outcome, "unsupported");
  assert.match((decision as { warning: { message: string } }).warning.message, /runs on machine devbox\.0badc0de, not this one/);
  assert.equal(started, false);
});
