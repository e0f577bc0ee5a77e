// The claims fold's snapshot: an edit hook over a log of many released claims starts from the claims that
// stand, not from every claim ever written, and answers as a whole fold of the log does. A damaged or stale
// snapshot is not trusted (the fold starts over from the log), and a claim written after the snapshot counts.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, copyFileSync, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runHook } from "./helpers/hooks.js";
import { tempRepo } from "./helpers/repo.js";
import { tempPeerpost } from "./helpers/temp.js";
import { CLAIMS_FOLD, claimPaths, releasePaths } from "../core/claims/claims.js";
import { applyClaimEvent, blockingClaims, emptyClaims, type ClaimEntry, type ClaimsState } from "../core/claims/fold.js";
import { WorkFold } from "../core/claims/work-fold.js";
import { idFactory } from "../core/common/ids.js";
import type { ClaimEvent, MailboxEvent, ReleaseEvent } from "../core/records/schemas.js";
import type { Peerpost } from "../core/peerpost.js";

const RELEASED = 400;

/** `count` claims, each claimed and released by one of ten people, appended as the claim tools write them. */
async function releasedHistory(peerpost: Peerpost, repo: string, count: number): Promise<void> {
  const newId = await idFactory();
  const at = new Date(peerpost.config.now()).toISOString();
  const until = new Date(peerpost.config.now() + 3_600_000).toISOString();
  const items: Array<{ record: MailboxEvent; scopes: string[] }> = [];
  for (let i = 0; i < count; i++) {
    const holder = `user:r${i % 10}`;
    const paths = [`src/f${i}.ts`];
    items.push({ record: { v: 1, type: "claim", id: newId(), holder, repo, paths, shared: false, at, until }, scopes: ["claims"] });
    items.push({ record: { v: 1, type: "release", id: newId(), holder, repo, paths, why: "released", by: holder, at }, scopes: ["claims"] });
  }
  await peerpost.mailbox.store.append(items);
}

/** The claims a fold of every line of the log gives, with no snapshot and no index. */
function wholeFold(peerpost: Peerpost): ClaimsState {
  const state = emptyClaims();
  peerpost.mailbox.log.scan(0, (entry) => {
    if (entry.record.type === "claim" || entry.record.type === "release") applyClaimEvent(state, entry.record as ClaimEvent | ReleaseEvent);
  });
  return state;
}

/** Every entry of a state, in one order whatever the order they were set in. */
function entries(state: ClaimsState): ClaimEntry[] {
  return [...state.all()].sort((a, b) => (`${a.repo}\n${a.holder}\n${a.path}` < `${b.repo}\n${b.holder}\n${b.path}` ? -1 : 1));
}

function snapshotPath(peerpost: Peerpost): string {
  return join(peerpost.mailbox.cacheDir, CLAIMS_FOLD.snapshot!.file);
}

/** A new process's fold, every claim read: how it started, and what it holds. */
function freshFold(peerpost: Peerpost): WorkFold<ClaimsState> {
  const fold = new WorkFold(peerpost.mailbox, CLAIMS_FOLD);
  fold.read((state) => state.readAll());
  return fold;
}

/** A snapshot file: its header, and its lines of claims by repository and first path segment. */
function savedSnapshot(peerpost: Peerpost): { header: { log: { offset: number } }; lines: Array<[string, string, unknown[][]]> } {
  const [header, ...lines] = readFileSync(snapshotPath(peerpost), "utf8").split("\n");
  assert.equal(lines.pop(), "", "every line ends");
  return { header: JSON.parse(header!) as { log: { offset: number } }, lines: lines.map((line) => JSON.parse(line) as [string, string, unknown[][]]) };
}

async function setUp(t: TestContext) {
  const repo = tempRepo(t);
  const { peerpost, stateDir, home, clock } = tempPeerpost(t);
  await releasedHistory(peerpost, repo, RELEASED);
  await claimPaths(peerpost, { holder: "user:alice", cwd: repo, paths: ["src/a.ts"], reason: "mine", ttl: "1h" });
  await claimPaths(peerpost, { holder: "user:bob", cwd: repo, paths: ["docs/**"], shared: true, ttl: "1h" });
  await claimPaths(peerpost, { holder: "user:carol", cwd: repo, paths: ["src/f7.ts"], ttl: "1h" });
  // The claim tools' own fold saved a snapshot after the history (before these three claims): the hooks start without one.
  assert.ok(existsSync(snapshotPath(peerpost)), "a fold that read the history saved what stands");
  rmSync(snapshotPath(peerpost));
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now) };
  const hook = async (path: string) => {
    const run = await runHook("claude-code", "pre-tool", { session_id: "editor", cwd: repo, hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: join(repo, path), content: "x" } }, env);
    assert.equal(run.code, 0);
    return run.stdout === "" ? "allowed" : (JSON.parse(run.stdout) as { hookSpecificOutput: { permissionDecisionReason: string } }).hookSpecificOutput.permissionDecisionReason;
  };
  return { repo, peerpost, clock, hook };
}

/** What a whole fold says of each path: the holder that keeps the editor out, or nobody. */
function expected(peerpost: Peerpost, repo: string, now: number, paths: string[]): string[] {
  const state = wholeFold(peerpost);
  return paths.map((path) => blockingClaims(state, repo, path, "claude:editor", now)[0]?.holder ?? "nobody");
}

function holders(answers: string[]): string[] {
  return answers.map((answer) => /claimed exclusively by (\S+)/.exec(answer)?.[1] ?? "nobody");
}

const PATHS = ["src/a.ts", "src/f7.ts", "src/f8.ts", "docs/guide.md", "README.md"];

test("over many released claims the hook starts from the snapshot and answers as a whole fold does", async (t) => {
  const { repo, peerpost, clock, hook } = await setUp(t);
  assert.ok(!existsSync(snapshotPath(peerpost)), "no snapshot before a fold read its lines");
  const first = [];
  for (const path of PATHS) first.push(await hook(path));
  assert.ok(existsSync(snapshotPath(peerpost)), "the first hook saved the claims that stand");
  assert.deepEqual(holders(first), expected(peerpost, repo, clock.now, PATHS));
  assert.deepEqual(holders(first), ["user:alice", "user:carol", "nobody", "nobody", "nobody"]);
  assert.match(first[0]!, /^peerpost: src\/a\.ts is claimed exclusively by user:alice until \S+ \("mine"\)/);

  const { lines } = savedSnapshot(peerpost);
  assert.deepEqual(
    lines.map(([where, segment, rows]) => [where, segment, rows.map((row) => row.slice(0, 2))]),
    [
      [repo, "docs", [["user:bob", "docs/**"]]],
      [repo, "src", [["user:alice", "src/a.ts"], ["user:carol", "src/f7.ts"]]],
    ],
    "a line per repository and first path segment, with only the claims that stand, none of the released ones",
  );
  const fold = freshFold(peerpost);
  assert.deepEqual(fold.started, { from: "snapshot" });
  assert.deepEqual(entries(fold.state), entries(wholeFold(peerpost)));
  const again = [];
  for (const path of PATHS) again.push(await hook(path));
  assert.deepEqual(again, first, "the same answers from the snapshot");
});

test("a claim written after the snapshot is seen, and the first reader of it saves a snapshot past it", async (t) => {
  const { repo, peerpost, clock, hook } = await setUp(t);
  assert.equal(await hook("README.md"), "allowed");
  assert.ok(existsSync(snapshotPath(peerpost)));
  // Another writer claims after the snapshot was taken and saves none (as one whose cache it cannot write).
  const newId = await idFactory();
  const at = new Date(clock.now).toISOString();
  const until = new Date(clock.now + 3_600_000).toISOString();
  await peerpost.mailbox.store.append([{ record: { v: 1, type: "claim", id: newId(), holder: "user:dave", repo, paths: ["README.md"], shared: false, at, until }, scopes: ["claims"] }]);
  const saved = () => savedSnapshot(peerpost).header.log.offset;
  assert.ok(saved() < statSync(peerpost.mailbox.log.path).size, "the snapshot is behind the new claim");
  assert.match(await hook("README.md"), /claimed exclusively by user:dave/);
  assert.equal(saved(), statSync(peerpost.mailbox.log.path).size, "the hook that read the new line saved a snapshot past it: later hooks read no line");
  assert.deepEqual(freshFold(peerpost).started, { from: "snapshot" });
  assert.match(await hook("README.md"), /claimed exclusively by user:dave/, "from that snapshot");
  await releasePaths(peerpost, { by: "user:dave", cwd: repo, paths: ["README.md"] });
  assert.equal(await hook("README.md"), "allowed");
  assert.deepEqual(holders([await hook("src/a.ts")]), expected(peerpost, repo, clock.now, ["src/a.ts"]));
});

test("a damaged or stale snapshot is not trusted: the fold starts over from the log and answers the same", async (t) => {
  const { repo, peerpost, clock, hook } = await setUp(t);
  await hook("src/a.ts");
  const path = snapshotPath(peerpost);
  const good = readFileSync(path, "utf8");
  const cases: Array<{ name: string; damage: () => void; problem: RegExp }> = [
    { name: "cut short", damage: () => writeFileSync(path, good.slice(0, good.length - 20)), problem: /ends inside a line|line is not JSON/ },
    { name: "a header that is not JSON", damage: () => writeFileSync(path, `{${good}`), problem: /not JSON/ },
    { name: "a segment's line twice", damage: () => writeFileSync(path, good.replace(/\n(\["[^\n]*","src",[^\n]*\n)/, "\n$1$1")), problem: /twice|out of order/ },
    {
      name: "one claim twice",
      damage: () => writeFileSync(path, good.replace(/\[("user:alice"[^\]]*)\]/, "[$1],[$1]")),
      problem: /holds user:alice's src\/a\.ts twice/,
    },
    { name: "a row that is not a claim", damage: () => writeFileSync(path, good.replace(/"user:alice","src\/a\.ts",false/, '"user:alice","src/a.ts","no"')), problem: /a row that is not a claim/ },
    {
      name: "a row under another segment",
      damage: () => writeFileSync(path, good.replace(/"user:alice","src\/a\.ts"/, '"user:alice","lib/a.ts"')),
      problem: /"src" holds lib\/a\.ts/,
    },
    {
      name: "rows out of order",
      damage: () => writeFileSync(path, good.replace(/"user:alice","src\/a\.ts"/, '"user:zed","src/a.ts"')),
      problem: /rows out of order/,
    },
    { name: "a claim with no time", damage: () => writeFileSync(path, good.replace(/("user:alice","src\/a\.ts",false,)"[^"]*"/, '$1"yesterday"')), problem: /a row that is not a claim/ },
    {
      name: "another format",
      damage: () => writeFileSync(path, good.replace(/^\{"v":\d+/, '{"v":99')),
      problem: /not a snapshot of this fold/,
    },
    {
      name: "a log rewritten to the same length",
      damage: () => {
        writeFileSync(path, good);
        const log = peerpost.mailbox.log.path;
        const text = readFileSync(log, "utf8");
        // Same file, same length, other bytes just before the snapshot's position (a path of the last claim).
        writeFileSync(log, text.replace(/src\/f7\.ts(?=[^\n]*\n$)/, "src/f9.ts"));
      },
      problem: /log rewritten|log truncated/,
    },
    {
      name: "a log replaced by another file",
      damage: () => {
        writeFileSync(path, good);
        const log = peerpost.mailbox.log.path;
        copyFileSync(log, `${log}.copy`);
        renameSync(`${log}.copy`, log);
      },
      problem: /log replaced/,
    },
  ];
  for (const { name, damage, problem } of cases) {
    damage();
    const whole = entries(wholeFold(peerpost));
    const fold = freshFold(peerpost);
    assert.equal(fold.started.from, "log", name);
    assert.match((fold.started as { problem?: string }).problem ?? "", problem, name);
    assert.deepEqual(entries(fold.state), whole, `${name}: the whole fold's claims`);
    assert.deepEqual(holders([await hook("src/a.ts"), await hook("src/f7.ts")]), expected(peerpost, repo, clock.now, ["src/a.ts", "src/f7.ts"]), name);
    // The hook that folded again saved a snapshot to trust.
    assert.deepEqual(freshFold(peerpost).started, { from: "snapshot" }, `${name}: saved again`);
  }
});

test("a snapshot saved before lines that were lost (a log truncated below it) is not trusted", async (t) => {
  const { peerpost, hook } = await setUp(t);
  await hook("src/a.ts");
  const log = peerpost.mailbox.log.path;
  const text = readFileSync(log);
  writeFileSync(log, text.subarray(0, text.length / 2));
  appendFileSync(log, "\n");
  const fold = freshFold(peerpost);
  assert.equal(fold.started.from, "log");
  assert.match((fold.started as { problem?: string }).problem ?? "", /log truncated|log rewritten/);
});
