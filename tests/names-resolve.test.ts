// Names and resolve across machines and words: a name given here leaves another machine's session on its
// machine (it is not woken here, nor judged by a pid of this one), resolve says where it runs, and the
// session named exactly the query ranks first; an address cut short finds its session.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { cliEnv, onCleanup, tempPeerpost } from "./helpers/temp.js";
import { cli, json } from "./helpers/cli.js";
import { hostStartField } from "../core/sessions/process-tree.js";
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

test("resolve finds a session by a prefix of its address, as by a prefix of its id", () => {
  const now = Date.parse("2026-01-01T12:00:00Z");
  const sessions: Rankable[] = [
    { address: "codex:019a2f3c-7d1e-7000-8000-000000000001", host: "codex", sessionId: "019a2f3c-7d1e-7000-8000-000000000001", alive: false, lastSeen: "2026-01-01T10:00:00Z" },
    { address: "claude:019a2f3c-0000-4000-8000-000000000002", host: "claude-code", sessionId: "019a2f3c-0000-4000-8000-000000000002", alive: false, lastSeen: "2026-01-01T10:00:00Z" },
  ];
  assert.equal(rankSessions(sessions, "019a2f", now).length, 2, "a bare id prefix finds both");
  const byAddress = rankSessions(sessions, "codex:019a2f", now);
  assert.deepEqual(byAddress.map((candidate) => candidate.address), ["codex:019a2f3c-7d1e-7000-8000-000000000001"], JSON.stringify(byAddress));
});

// A name equal to a one-word query outranks partial matches of another session's fields that add up past it
// (a name "api v2" starting with it, a working dir of that name, a title starting with it).
test("resolve ranks the session named exactly a one-word query first", () => {
  const now = Date.parse("2026-01-01T12:00:00Z");
  const lastSeen = "2026-01-01T10:00:00Z";
  const sessions: Rankable[] = [
    { address: "codex:019b-v2", host: "codex", sessionId: "019b-v2", name: "api v2", cwd: "/work/api", title: "api: move to v2", alive: false, lastSeen },
    { address: "codex:019a-api", host: "codex", sessionId: "019a-api", name: "api", cwd: "/work/backend", alive: false, lastSeen },
  ];
  const ranked = rankSessions(sessions, "api", now);
  assert.equal(ranked[0]!.address, "codex:019a-api", JSON.stringify(ranked.map(({ address, score, reasons }) => ({ address, score, reasons }))));
});

// On a shared store another machine's liveness is known only there: resolve says so, as agents does.
test("resolve says a session of another machine runs there, not that it is not running", async (t) => {
  const made = tempPeerpost(t);
  const { stateDir, clock } = made;
  const at = new Date(clock.now - 30 * 60_000).toISOString();
  // What a shared store's registry holds: a session of another machine, and an ended one here, both named "api".
  const foreign = { v: 1, type: "session", at, host: "codex", address: "codex:there", sessionId: "there", hostPid: 999_999, writerPid: 1, cwd: "/work/api", source: "server", name: "api", roles: [], machine: "devbox.0badc0de" };
  const local = { v: 1, type: "session", at, host: "codex", address: "codex:here", sessionId: "here", hostPid: 999_998, writerPid: 1, cwd: "/work/api", source: "server", name: "api", roles: [] };
  appendFileSync(join(stateDir, "sessions.jsonl"), JSON.stringify(foreign) + "\n" + JSON.stringify(local) + "\n", { mode: 0o600 });

  const env = cliEnv(made, { PEERPOST_USER: "pat", CLAUDE_CONFIG_DIR: join(stateDir, "none"), CODEX_HOME: join(stateDir, "none"), COPILOT_HOME: join(stateDir, "none"), GROK_HOME: join(stateDir, "none") });
  const agents = await cli(env, "agents", "--all");
  assert.match(agents.stdout, /codex:there\s+api\s+codex\s+devbox\.0badc0de\s+\?/, agents.stdout);

  const candidates = json(await cli(env, "resolve", "api", "--json")).candidates as Array<{ address: string; alive: boolean; reasons: string[] } & Record<string, unknown>>;
  const there = candidates.find((candidate) => candidate.address === "codex:there")!;
  const here = candidates.find((candidate) => candidate.address === "codex:here")!;
  // The two are told apart: the other machine's is not called "not running", and its machine is said.
  assert.equal(there.machine, "devbox.0badc0de", JSON.stringify(there));
  assert.ok(there.reasons.some((reason) => reason.includes("devbox.0badc0de")), JSON.stringify(there));
  assert.ok(!here.reasons.some((reason) => reason.includes("machine")), JSON.stringify(here));
});

// /clear or /resume gives a running Claude Code a new session id: the session it left, named, does not run.
test("after /clear, the named session the Claude Code process left is not ranked as running", async (t) => {
  const made = tempPeerpost(t);
  const { peerpost, stateDir, clock } = made;
  // The Claude Code process: alive for the whole test.
  const host = spawn("sleep", ["300"], { stdio: "ignore" });
  onCleanup(t, () => void host.kill());
  const hostPid = host.pid!;
  const record = { host: "claude-code" as const, hostPid, ...hostStartField(hostPid), cwd: "/work/api", source: "startup" as const, roles: [] };
  await peerpost.sessions.register({ ...record, address: "claude:old-1111", sessionId: "old-1111" });
  await nameSession(peerpost, "claude:old-1111", "api server");
  // The person types /clear: the same process registers its new session.
  clock.now += 60_000;
  await peerpost.sessions.register({ ...record, address: "claude:new-2222", sessionId: "new-2222", source: "clear" as const });

  const env = cliEnv(made, { PEERPOST_USER: "pat", CLAUDE_CONFIG_DIR: join(stateDir, "none"), CODEX_HOME: join(stateDir, "none"), COPILOT_HOME: join(stateDir, "none"), GROK_HOME: join(stateDir, "none") });
  const candidates = json(await cli(env, "resolve", "api server", "--json")).candidates as Array<{ address: string; alive: boolean; reasons: string[] }>;
  const old = candidates.find((candidate) => candidate.address === "claude:old-1111")!;
  assert.equal(old.alive, false, `the process runs claude:new-2222 now: ${JSON.stringify(old)}`);
  assert.ok(!old.reasons.includes("running"), JSON.stringify(old));
});
