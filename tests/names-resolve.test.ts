// Names and resolve across machines and words: a name given here leaves another machine's session on its
// machine (it is not woken here, nor judged by a pid of this one), and the session named exactly a
// query of several words ranks first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { tempPeerpost } from "./helpers/temp.js";
import { nameSession } from "../core/sessions/names.js";
import { updateSwitches } from "../core/wake/switches.js";
import { requestWake } from "../core/wake/request.js";
import { rankSessions, type Rankable } from "../core/sessions/resolve.js";
import type { WakeDeps } from "../core/wake/waker.js";

test("naming another machine's session leaves it on that machine: listed as its, and not woken here", async (t) => {
  const { peerpost, stateDir } = tempPeerpost(t);
  // What a shared store's registry (or a migrated one) holds for a session of another machine.
  const foreign = { v: 1, type: "session", at: "2026-01-01T00:00:00.000Z", host: "codex", address: "codex:there", sessionId: "there", hostPid: 999_999, writerPid: 1, cwd: "/work", source: "server", roles: [], machine: "devbox.0badc0de" };
  appendFileSync(join(stateDir, "sessions.jsonl"), JSON.stringify(foreign) + "\n", { mode: 0o600 });
  assert.equal(peerpost.sessions.get("codex:there")!.local, false);

  const named = await nameSession(peerpost, "codex:there", "api server");
  assert.equal(named.name, "api server");
  assert.equal(named.machine, "devbox.0badc0de");
  assert.equal(named.local, false);
  assert.ok(peerpost.sessions.list().some((entry) => entry.address === "codex:there"), "still listed as the other machine's running session");

  updateSwitches(stateDir, (switches) => void (switches.wake = { all: true }));
  let started = false;
  const decision = await requestWake(peerpost, "codex:there", { wakers: { codex: {} } as unknown as WakeDeps["wakers"], runnerEntry: "/nonexistent" }, () => void (started = true));
  assert.equal(decision.outcome, "unsupported", JSON.stringify(decision));
  assert.equal(started, false);
});

test("resolve ranks the session named exactly a query of several words first, over one that only shares its words", () => {
  const now = Date.parse("2025-01-01T12:00:00Z");
  const lastSeen = new Date(now - 2 * 3_600_000).toISOString();
  const session = (id: string, fields: Partial<Rankable>): Rankable => ({ address: `codex:${id}`, host: "codex", sessionId: id, alive: false, lastSeen, ...fields });
  const sessions = [
    session("019b-other", { name: "api", cwd: "/work/server" }),
    session("019c-swapped", { name: "server api" }),
    session("019a-exact", { name: "api  Server", cwd: "/work/proj" }),
    session("019d-titled", { title: "api server" }),
  ];
  const ranked = rankSessions(sessions, "api server", now);
  assert.equal(ranked[0]!.address, "codex:019a-exact", JSON.stringify(ranked.map(({ address, score, reasons }) => ({ address, score, reasons }))));
  assert.ok(ranked[0]!.reasons.includes('name is "api  Server"'));
  // Shared words alone: a name of the words in another order scores no more than a name that is one of them.
  const swapped = ranked.find((candidate) => candidate.address === "codex:019c-swapped")!;
  assert.ok(swapped.score < ranked[0]!.score / 2);
});
