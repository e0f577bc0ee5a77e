// The registry's one-session lookups (get, byHostPid, claimedBy) must pick exactly what a search of the
// whole sorted registry picks, ties included, while copying only the entry they return; a process that
// folded nothing yet (a SessionStart hook) gets the same entry from the registry's per-address index.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { openPeerpost } from "../core/peerpost.js";
import { processStartTime } from "../core/sessions/process-tree.js";
import type { SessionEntry } from "../core/sessions/registry.js";
import type { SessionHost } from "../core/records/schemas.js";
import { tempDir } from "./helpers/temp.js";
import { seededRandom as random } from "./helpers/random.js";

const HOSTS = ["claude-code", "codex"] as const satisfies readonly SessionHost[];
const KIND = { "claude-code": "claude", codex: "codex" } as const;

/** The entry as callers see it, `alive` included (a getter). */
const shown = (entry: SessionEntry | undefined) => (entry === undefined ? undefined : JSON.parse(JSON.stringify(entry)));

test("get, byHostPid and claimedBy pick what a search of the whole sorted registry picks, ties included", async (t) => {
  const home = tempDir(t);
  const sleeper = spawn("sleep", ["300"], { stdio: "ignore" });
  t.after(() => sleeper.kill("SIGKILL"));
  const ended = spawnSync("true").pid!;
  // Live owners (so later records by another pid become claims), and a pid that has ended.
  const pids = [process.pid, sleeper.pid!, ended, undefined];
  let clock = Date.parse("2026-06-01T00:00:00.000Z");
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: join(home, "state") }, home, now: () => clock });
  const next = random(13);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const addresses: { host: (typeof HOSTS)[number]; id: string }[] = Array.from({ length: 12 }, (_, i) => ({ host: HOSTS[i % 2]!, id: `s${i}` }));

  const state = join(home, "state");
  const compare = () => {
    const all = peerpost.sessions.all();
    // A new process's view: it has folded nothing, so a long registry is read through the index.
    const fresh = openPeerpost({ env: { PEERPOST_HOME: state }, home, now: () => clock });
    for (const { host, id } of addresses) {
      const address = `${KIND[host]}:${id}`;
      const expected = shown(all.find((entry) => entry.address === address));
      assert.deepEqual(shown(peerpost.sessions.get(address)), expected, `get ${address}`);
      assert.deepEqual(shown(fresh.sessions.get(address)), expected, `get ${address} in a process that folded nothing`);
    }
    assert.equal(fresh.sessions.get("claude:never-seen"), undefined);
    for (const host of HOSTS)
      for (const pid of pids) {
        if (pid === undefined) continue;
        const byPid = all.find((entry) => entry.local && entry.host === host && entry.hostPid === pid);
        assert.deepEqual(shown(peerpost.sessions.byHostPid(host, pid)), shown(byPid), `byHostPid ${host} ${pid}`);
        const claimed = all.filter((entry) => entry.host === host && entry.claim?.hostPid === pid).sort((a, b) => (a.claim!.at < b.claim!.at ? 1 : a.claim!.at > b.claim!.at ? -1 : 0))[0];
        assert.deepEqual(shown(peerpost.sessions.claimedBy(host, pid)), shown(claimed), `claimedBy ${host} ${pid}`);
      }
    return all;
  };

  let claims = 0;
  let ties = 0;
  for (let i = 0; i < 800; i++) {
    // Corrupt lines (a torn write closed off by the next record, a line that is not a record) are skipped by both folds.
    if (i === 300) appendFileSync(join(state, "sessions.jsonl"), '{"v":1,"type":"session","address":"claude:s0"\n');
    if (i === 301) appendFileSync(join(state, "sessions.jsonl"), '{"v":1,"type":"session","address":"claude:s2","host":"claude-code"');
    // Often the same millisecond as the record before: ties in lastSeen and claim times.
    if (next() < 0.5) clock += 1 + Math.floor(next() * 3);
    else ties++;
    const { host, id } = pick(addresses);
    const hostPid = pick(pids);
    const record = await peerpost.sessions.register({ host, address: `${KIND[host]}:${id}`, sessionId: id, source: pick(["startup", "resume", "server", "cli"] as const), ...(hostPid === undefined ? {} : { hostPid }) });
    if (record.claimFrom !== undefined) claims++;
    if (i % 40 === 39) compare();
  }
  // The newest record for a live host pid, written on another machine (as a shared store's mirror holds
  // it): a pid names a process only on its own machine, so byHostPid passes over it.
  clock += 5;
  for (const host of HOSTS)
    await peerpost.sessions.log.append([{ v: 1, type: "session", at: new Date(clock).toISOString(), writerPid: 1, host, address: `${KIND[host]}:remote`, sessionId: "remote", source: "startup", hostPid: sleeper.pid!, machine: "another-machine" }]);
  const all = compare();
  // The registry outgrew a whole fold in a hook, so the lookups above went through the index.
  assert.ok(peerpost.sessions.log.identity()!.size > 128 * 1024, `the registry is only ${peerpost.sessions.log.identity()!.size} bytes`);
  assert.ok(existsSync(join(state, "index", "sessions", "meta.json")), "the registry's index was built");
  assert.equal(peerpost.sessions.get("claude:remote")?.local, false);
  assert.equal(peerpost.sessions.get("claude:never-seen"), undefined);
  // The run reached the cases the lookups must order: claims, ties, and several sessions per host pid.
  assert.ok(claims >= 10, `only ${claims} claims`);
  assert.ok(ties >= 50, `only ${ties} ties`);
  for (const host of HOSTS) assert.ok(all.filter((entry) => entry.host === host && entry.hostPid === sleeper.pid).length >= 2, `several ${host} sessions share one host pid`);

  // Another process extending the index meanwhile (its lock held): a lookup reads the lines past what the
  // index covers itself; with no valid index at all, the whole fold answers.
  mkdirSync(join(state, "index", "sessions", "extending.lock"));
  for (let i = 0; i < 30; i++) {
    clock += 1;
    const { host, id } = i === 29 ? { host: "codex" as const, id: "late" } : pick(addresses);
    await peerpost.sessions.register({ host, address: `${KIND[host]}:${id}`, sessionId: id, source: "resume", hostPid: ended, cwd: `/late/${i}` });
  }
  addresses.push({ host: "codex", id: "late" });
  compare();
  rmSync(join(state, "index", "sessions", "meta.json"));
  compare();
  rmSync(join(state, "index", "sessions", "extending.lock"), { recursive: true });

  // A copy each time: changing one does not change the registry.
  const first = peerpost.sessions.get("claude:s0")!;
  first.name = "changed";
  assert.notEqual(peerpost.sessions.get("claude:s0")!.name, "changed");
});

test("a session runs while its host pid lives with the start time recorded: a reused pid (another start) and an ended host are seen at once, start times read lately or not", async (t) => {
  const home = tempDir(t);
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: join(home, "state") }, home });
  const host = spawn("sleep", ["300"], { stdio: "ignore" });
  t.after(() => host.kill("SIGKILL"));
  const pid = host.pid!;
  const start = processStartTime(pid);
  assert.ok(start !== undefined, "this system tells start times");
  const alive = (address: string) => peerpost.sessions.get(address)!.alive;
  await peerpost.sessions.register({ host: "codex", address: "codex:same", sessionId: "same", source: "startup", hostPid: pid, hostStart: start });
  await peerpost.sessions.register({ host: "codex", address: "codex:reused", sessionId: "reused", source: "startup", hostPid: pid, hostStart: start + 1 });
  // Asked one right after the other, in either order: the start time read for one answers the other rightly.
  for (let round = 0; round < 3; round++) {
    assert.equal(alive("codex:same"), true, `round ${round}`);
    assert.equal(alive("codex:reused"), false, `a pid with another start time is another process (round ${round})`);
  }
  const ended = new Promise((resolve) => host.once("exit", resolve));
  host.kill("SIGKILL");
  await ended;
  assert.equal(alive("codex:same"), false, "an ended host, at once");
});
