// Compaction of claims and tasks: claims that ended before the retention and finished tasks move to the
// archive with all their lines; standing claims, lines a later claim met standing, and tasks linked to
// an open one stay; every read of claims and tasks (the CLI's included) is the same before and after; a
// later conflicting claim never wins; the claims' snapshot is not trusted across the swap; doctor says so.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { monotonicFactory } from "ulid";
import { tempDir, tempPeerpost } from "./helpers/temp.js";
import { cli, json } from "./helpers/cli.js";
import type { Peerpost } from "../core/peerpost.js";
import type { ClaimEvent, MailboxEvent, ReleaseEvent } from "../core/records/schemas.js";
import { ClaimsCut } from "../core/claims/compaction-cut.js";
import { applyClaimEvent, emptyClaims } from "../core/claims/fold.js";
import { CLAIMS_SCOPE } from "../core/records/work-scope.js";
import { CLAIMS_FOLD, claimPaths, claimsState, listClaims, releasePaths } from "../core/claims/claims.js";
import { inspectWorkSnapshot, keptWorkFold } from "../core/claims/work-fold.js";
import { createTask, listTasks, updateTask } from "../core/tasks/tasks.js";
import type { PeerpostError } from "../core/common/errors.js";

const DAY = 86_400_000;

/** The live log's records of these types. */
function liveRecords(stateDir: string, ...types: string[]): MailboxEvent[] {
  return readFileSync(join(stateDir, "mailbox.jsonl"), "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as MailboxEvent).filter((record) => types.includes(record.type));
}

/** What readers show of the claims: the standing ones, those that ran out lately unreleased (health), and whole state's live entries. */
function observeClaims(peerpost: Peerpost) {
  const now = peerpost.config.now();
  const live = [...claimsState(peerpost).all()].filter((entry) => Date.parse(entry.until) > now);
  return { listed: listClaims(peerpost), live };
}

test("compaction moves claims that ended before the retention with all their lines, keeps the rest, and the claims read the same", async (t) => {
  const { peerpost, clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const cwd = tempDir(t);
  for (let i = 0; i < 100; i++) {
    clock.now += 60_000;
    await claimPaths(peerpost, { holder: "claude:a", cwd, paths: [`src/f${i % 10}.ts`] });
    await releasePaths(peerpost, { by: "claude:a", cwd, paths: [`src/f${i % 10}.ts`] });
  }
  for (let i = 0; i < 10; i++) await claimPaths(peerpost, { holder: "codex:b", cwd, paths: [`lib/g${i}.ts`], ttl: "1h" });
  clock.now += 40 * DAY;
  // Lately: one that ran out unreleased a day ago (health counts it), one released, one standing.
  await claimPaths(peerpost, { holder: "codex:b", cwd, paths: ["docs/x.md"], ttl: "1h" });
  clock.now += DAY;
  await claimPaths(peerpost, { holder: "claude:a", cwd, paths: ["src/f2.ts"] });
  await releasePaths(peerpost, { by: "claude:a", cwd, paths: ["src/f2.ts"] });
  await claimPaths(peerpost, { holder: "claude:a", cwd, paths: ["src/f1.ts"], ttl: "7d", reason: "standing" });
  const before = observeClaims(reopen());
  assert.equal(before.listed.claims.length, 1);
  assert.equal(before.listed.expired.length, 1, "the claim that ran out lately");
  const lines = liveRecords(stateDir, "claim", "release").length;
  const result = await reopen().mailbox.compact();
  assert.equal(result.movedClaimLines, 210, "every claim and release line before the retention");
  const kept = liveRecords(stateDir, "claim", "release");
  assert.equal(kept.length, lines - 210);
  assert.ok(kept.every((record) => Date.parse((record as ClaimEvent).at) > clock.now - 30 * DAY), "no old claim line left in the live log");
  assert.deepEqual(observeClaims(reopen()), before, "the claims read the same");
  // Decisions as before: the standing claim still keeps others out; released and run-out paths are free.
  await assert.rejects(claimPaths(reopen(), { holder: "codex:c", cwd, paths: ["src/*.ts"] }), (error: PeerpostError) => error.code === "claim_conflict" && error.details?.holder === "claude:a");
  await claimPaths(reopen(), { holder: "codex:c", cwd, paths: ["src/f3.ts", "lib/g1.ts"] });
  assert.equal((await reopen().mailbox.compact()).movedClaimLines, 0, "nothing more to move");
});

test("a later claim that met an earlier one standing stays void: lines a later claim saw standing move only with it, and a claim standing past the cutoff keeps every later line live", async (t) => {
  const { peerpost, clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "1" });
  const cwd = tempDir(t);
  const repo = (await claimPaths(peerpost, { holder: "user:setup", cwd, paths: ["setup"] })).repo;
  await releasePaths(peerpost, { by: "user:setup", cwd, paths: ["setup"] });
  const newId = monotonicFactory();
  const t0 = clock.now + 60_000;
  const claim = (holder: string, path: string, at: number, until: number): ClaimEvent => ({ v: 1, type: "claim", id: newId(at), holder, repo, paths: [path], shared: false, at: new Date(at).toISOString(), until: new Date(until).toISOString() });
  // As if two writers' locks overlapped: each later claim landed while the earlier one stood, so it is void.
  const lines = [
    claim("claude:a", "x.ts", t0, t0 + 2 * 3_600_000),
    claim("codex:c", "x.ts", t0 + 90 * 60_000, t0 + 7 * DAY), // void; it would stand now without the line before it
    claim("claude:a", "y.ts", t0 + 3 * 3_600_000, t0 + 45 * DAY), // stands past the cutoff
    claim("codex:c", "y.ts", t0 + 4 * 3_600_000, t0 + 4 * 3_600_000 + 7 * DAY), // void
  ];
  await peerpost.mailbox.store.append(lines.map((record) => ({ record, scopes: [CLAIMS_SCOPE] })));
  clock.now = t0 + 3 * DAY;
  const before = observeClaims(reopen());
  assert.deepEqual(before.listed.claims.map((entry) => `${entry.holder} ${entry.path}`), ["claude:a y.ts"]);
  const result = await reopen().mailbox.compact();
  assert.equal(result.movedClaimLines, 4, "the setup claim and release, and x.ts's two lines");
  assert.deepEqual(liveRecords(stateDir, "claim").map((record) => record.id), [lines[2]!.id, lines[3]!.id]);
  assert.deepEqual(observeClaims(reopen()), before);
  await claimPaths(reopen(), { holder: "codex:d", cwd, paths: ["x.ts"] });
  await assert.rejects(claimPaths(reopen(), { holder: "codex:d", cwd, paths: ["y.ts"] }), (error: PeerpostError) => error.details?.holder === "claude:a");
});

test("finished tasks move with every task linked to them; one linked to an open task stays; the board, status and dependency checks read the same, with or without the indexes", async (t) => {
  const { peerpost, clock, reopen, stateDir, home } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const take = async (id: string, status: "done" | "failed", by = "codex:b") => {
    clock.now += 1000;
    await updateTask(peerpost, { id, by, status: "in_progress" });
    clock.now += 1000;
    return updateTask(peerpost, { id, by, status, note: `${status} ${id}` });
  };
  const first = await createTask(peerpost, { by: "claude:a", title: "first" });
  const second = await createTask(peerpost, { by: "claude:a", title: "after first", after: [first.id] });
  await take(first.id, "done");
  await take(second.id, "done");
  const failed = await createTask(peerpost, { by: "claude:a", title: "fails" });
  await take(failed.id, "failed");
  const waitedOn = await createTask(peerpost, { by: "claude:a", title: "waited on" });
  const open = await createTask(peerpost, { by: "claude:a", title: "open", after: [waitedOn.id] });
  await take(waitedOn.id, "done");
  clock.now += 40 * DAY;
  const recent = await createTask(peerpost, { by: "claude:a", title: "recent" });
  await take(recent.id, "done");
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now), PEERPOST_RETENTION_DAYS: "30" };
  const read = async () => ({
    tasks: listTasks(reopen()),
    list: json(await cli(env, "task", "list", "--json")),
    status: await Promise.all([first.id, second.id, open.id].map(async (id) => json(await cli(env, "status", id, "--json")))),
    note: json(await cli(env, "status", first.messageId, "--json")),
  });
  const before = await read();
  const result = await reopen().mailbox.compact();
  assert.equal(result.movedTasks, 3, "first, second and the failed one");
  const liveTasks = liveRecords(stateDir, "task").map((record) => record.id);
  assert.deepEqual(liveTasks.sort(), [waitedOn.id, open.id, recent.id].sort());
  assert.ok(!liveRecords(stateDir, "task_status").some((record) => record.type === "task_status" && [first.id, second.id, failed.id].includes(record.task)), "their status lines moved with them");
  assert.deepEqual(await read(), before, "the board and status read the same");
  rmSync(join(stateDir, "index"), { recursive: true });
  assert.deepEqual(listTasks(reopen()), before.tasks, "read by scanning the archive without its index");
  // Dependency checks: the open task can be taken (what it waits on is done); a new task may wait on an archived one.
  await updateTask(reopen(), { id: open.id, by: "codex:b", status: "in_progress" });
  const later = await createTask(reopen(), { by: "claude:a", title: "after an archived task", after: [first.id] });
  assert.deepEqual(later.after, [first.id]);
  await updateTask(reopen(), { id: later.id, by: "codex:b", status: "in_progress" });
});

test("the claims' snapshot taken before a compaction is not trusted after it: the fold starts from the log, the same, and doctor says which", async (t) => {
  const { peerpost, clock, reopen, stateDir, home } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const cwd = tempDir(t);
  for (let i = 0; i < 40; i++) {
    clock.now += 60_000;
    await claimPaths(peerpost, { holder: "claude:a", cwd, paths: [`src/f${i}.ts`] });
    await releasePaths(peerpost, { by: "claude:a", cwd, paths: [`src/f${i}.ts`] });
  }
  clock.now += 40 * DAY;
  await claimPaths(peerpost, { holder: "claude:a", cwd, paths: ["src/standing.ts"] });
  const before = observeClaims(reopen());
  assert.equal(keptWorkFold(reopen().mailbox, CLAIMS_FOLD).refresh() !== undefined, true);
  assert.equal(inspectWorkSnapshot(reopen().mailbox, CLAIMS_FOLD)?.status, "trusted", "a new process's fold of 81 claim lines saved one");
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now), PATH: "/usr/bin:/bin" };
  const doctorClaims = async () => ((json(await cli(env, "doctor", "--json")) as { state: { work: { claims: { status: string; reason?: string } } } }).state.work.claims);
  assert.equal((await doctorClaims()).status, "trusted");
  assert.match((await cli(env, "doctor")).stdout, /work +claims snapshot trusted, up to byte \d+; tasks folded from the index and the archive/);
  await reopen().mailbox.compact();
  assert.deepEqual(await doctorClaims(), { path: join(stateDir, "cache", "work-claims.json"), status: "stale", reason: "log replaced" });
  assert.match((await cli(env, "doctor")).stdout, /claims snapshot stale \(log replaced\): readers fold the claims' lines and save a new one/);
  const fold = keptWorkFold(reopen().mailbox, CLAIMS_FOLD);
  fold.refresh();
  assert.deepEqual(fold.started, { from: "log", problem: "log replaced" });
  assert.equal(inspectWorkSnapshot(reopen().mailbox, CLAIMS_FOLD)?.status, "trusted", "that fold saved a new one of the compacted log");
  assert.deepEqual(observeClaims(reopen()), before);
  const again = keptWorkFold(reopen().mailbox, CLAIMS_FOLD);
  again.refresh();
  assert.deepEqual(again.started, { from: "snapshot" }, "a new process starts from it");
});

test("claims' cut, on random histories with clocks out of order: the live lines' fold makes every later decision and every claim standing from the cutoff on as the whole log's", () => {
  let seed = 7;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const ids = monotonicFactory(() => random());
  const newId = () => ids(Date.parse("2026-01-01T00:00:00Z"));
  const HOUR = 3_600_000;
  let moved = 0;
  for (let round = 0; round < 400; round++) {
    const events: Array<ClaimEvent | ReleaseEvent> = [];
    let clock = 0;
    for (let i = 0; i < 40; i++) {
      clock += random() * 6 * HOUR;
      // Now and then a writer whose clock is behind.
      const at = Math.floor(clock - (random() < 0.15 ? random() * 2 * DAY : 0));
      const holder = pick(["claude:a", "codex:b", "user:c"]);
      const paths = [pick(["a.ts", "b.ts", "src/**", "*.ts"])];
      const stamp = new Date(at).toISOString();
      if (random() < 0.35) events.push({ v: 1, type: "release", id: newId(), holder, repo: "/r", paths, why: "released", by: holder, at: stamp });
      else events.push({ v: 1, type: "claim", id: newId(), holder, repo: "/r", paths, shared: random() < 0.3, at: stamp, until: new Date(at + pick([60_000, HOUR, 2 * HOUR, DAY, 7 * DAY])).toISOString() });
    }
    const cutoff = clock * (0.3 + 0.6 * random());
    const cut = new ClaimsCut(cutoff);
    events.forEach((event, offset) => cut.apply(event, offset));
    const last = cut.last();
    moved += last + 1;
    const whole = emptyClaims();
    const live = emptyClaims();
    const standing = (state: ReturnType<typeof emptyClaims>, from: number) => [...state.all()].filter((entry) => Date.parse(entry.until) > from).sort((a, b) => (a.claimId < b.claimId ? -1 : 1));
    events.forEach((event, offset) => {
      if (offset > last && event.type === "claim") assert.deepEqual(standing(live, Date.parse(event.at)), standing(whole, Date.parse(event.at)), `round ${round}: claim ${offset} meets the claims it met`);
      applyClaimEvent(whole, event);
      if (offset > last) applyClaimEvent(live, event);
    });
    assert.deepEqual(standing(live, cutoff), standing(whole, cutoff), `round ${round}: the claims standing from the cutoff on`);
  }
  assert.ok(moved > 1000, `the cuts moved lines (${moved})`);
});
