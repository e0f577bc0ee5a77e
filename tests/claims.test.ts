// Claims on paths end to end: real CLI processes racing in a real git repository on both stores, the
// lifecycle of a claim (TTL, renewal, release, its holder's process killed, a person forcing it), and bad
// input refused with a code while nothing is written.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { testEachBackend } from "./helpers/backends.js";
import { cliIn, json } from "./helpers/cli.js";
import { tempRepo } from "./helpers/repo.js";
import { tempDir, tempPeerpost } from "./helpers/temp.js";
import { CLI, connect } from "./helpers/mcp.js";
import { claimPaths, listClaims, releasePaths } from "../core/claims/claims.js";
import type { MailboxEvent } from "../core/records/schemas.js";

type Failure = { error: { code: string; details: Record<string, unknown>; hint: string } };

testEachBackend("8 processes claiming overlapping paths at once: exactly one holds them, every other is told who", async (t, backend) => {
  const repo = tempRepo(t);
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), ...backend };
  const patterns = ["src/**", "src/a.ts", "src/*.ts", "**/*.ts", "src", "src/a?ts", "src/**/a.ts", "./src/a.ts"];
  const results = await Promise.all(patterns.map((pattern, i) => cliIn(repo, env, "claim", "--as", `claude:s${i}`, "--reason", `work ${i}`, "--json", pattern)));
  const winners = results.map((result, i) => ({ result, i })).filter(({ result }) => result.code === 0);
  assert.equal(winners.length, 1, results.map((result) => result.stdout + result.stderr).join("\n"));
  const winner = `claude:s${winners[0]!.i}`;
  for (const [i, result] of results.entries()) {
    if (result.code === 0) continue;
    assert.equal(result.code, 1, result.stderr);
    const { error } = json(result) as Failure;
    assert.equal(error.code, "claim_conflict", `process ${i}: ${result.stdout}`);
    assert.equal(error.details.holder, winner, `process ${i} is told the holder`);
    assert.equal(error.details.reason, `work ${winners[0]!.i}`);
    assert.match(error.hint, new RegExp(`message to ${winner}`));
  }
  const listed = json(await cliIn(repo, env, "claims", "--json")) as { claims: Array<{ holder: string }> };
  assert.deepEqual(listed.claims.map((claim) => claim.holder), [winner], "the log's fold agrees with the answers");
});

test("a claim lasts its TTL, renews when claimed again, ends on release, and a person's forced release tells its holder", async (t) => {
  const repo = tempRepo(t);
  const { peerpost, clock } = tempPeerpost(t);
  const alice = "claude:alice";
  const bob = "codex:bob";
  const first = await claimPaths(peerpost, { holder: alice, cwd: repo, paths: ["src/a.ts"], ttl: "10m", reason: "parser" });
  assert.equal(first.claims[0]!.path, "src/a.ts");
  await assert.rejects(claimPaths(peerpost, { holder: bob, cwd: join(repo, "src"), paths: ["*.ts"] }), { code: "claim_conflict" });
  // Renewed at 9 minutes: it still stands at 15.
  clock.now += 9 * 60_000;
  const renewed = await claimPaths(peerpost, { holder: alice, cwd: repo, paths: ["src/a.ts"], ttl: "10m" });
  assert.equal(renewed.claims[0]!.since, first.claims[0]!.since, "a renewal keeps since");
  clock.now += 6 * 60_000;
  await assert.rejects(claimPaths(peerpost, { holder: bob, cwd: repo, paths: ["src/**"] }), { code: "claim_conflict" });
  // Past the renewed TTL it no longer stands: listed as expired, and Bob may claim.
  clock.now += 5 * 60_000;
  assert.deepEqual(listClaims(peerpost).expired.map((entry) => entry.holder), [alice]);
  await claimPaths(peerpost, { holder: bob, cwd: repo, paths: ["src/**"], ttl: "1h" });
  // Bob releases; Alice takes it back; a person forces it and Alice is told.
  await releasePaths(peerpost, { by: bob, cwd: repo, paths: ["src"] });
  await claimPaths(peerpost, { holder: alice, cwd: repo, paths: ["src/**"] });
  await assert.rejects(releasePaths(peerpost, { by: bob, cwd: repo, paths: ["src/**"], force: true }), { code: "permission_denied" });
  const forced = await releasePaths(peerpost, { by: "user:pat", cwd: repo, paths: ["src/a.ts"], force: true });
  // Alice's claim on src/a.ts that ran out unreleased ends too; she is told of the one that stood.
  assert.deepEqual(forced.released.map((entry) => [entry.holder, entry.path]).sort(), [[alice, "src/**"], [alice, "src/a.ts"]]);
  const told = peerpost.mailbox.inbox(alice);
  assert.equal(told.length, 1);
  assert.equal(told[0]!.message.from, "user:pat");
  assert.match(told[0]!.body, /claim_released: user:pat ended your claim on src\/\*\* in /);
  assert.deepEqual(listClaims(peerpost).claims, []);
});

test("a claim of a session whose host process was killed gives way, with an event that says so", async (t) => {
  const repo = tempRepo(t);
  const { peerpost } = tempPeerpost(t);
  const host = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  t.after(() => host.kill("SIGKILL"));
  await peerpost.sessions.register({ host: "claude-code", address: "claude:held", sessionId: "held", hostPid: host.pid!, source: "startup" });
  await claimPaths(peerpost, { holder: "claude:held", cwd: repo, paths: ["docs/**"] });
  await assert.rejects(claimPaths(peerpost, { holder: "codex:next", cwd: repo, paths: ["docs/guide.md"] }), { code: "claim_conflict" });
  host.kill("SIGKILL");
  await new Promise((resolve) => host.once("exit", resolve));
  assert.deepEqual(listClaims(peerpost).claims, [], "a gone holder's claim no longer stands");
  await claimPaths(peerpost, { holder: "codex:next", cwd: repo, paths: ["docs/guide.md"] });
  const events: MailboxEvent[] = [];
  peerpost.mailbox.log.scan(0, (entry) => void events.push(entry.record));
  const release = events.find((event) => event.type === "release");
  assert.deepEqual(release && { holder: release.holder, why: release.why, paths: release.paths }, { holder: "claude:held", why: "gone", paths: ["docs/**"] });
});

test("bad claims are refused with a code and a reason, and nothing is written", async (t) => {
  const repo = tempRepo(t);
  const outside = tempDir(t);
  mkdirSync(join(outside, "elsewhere"));
  symlinkSync(join(outside, "elsewhere"), join(repo, "out"));
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  // One good claim first, so the mailbox exists and its size can be watched.
  assert.equal((await cliIn(repo, env, "claim", "src/b.ts")).code, 0);
  const mailbox = join(home, "state", "mailbox.jsonl");
  const size = statSync(mailbox).size;
  const cases: Array<[string[], string, string]> = [
    [[join(outside, "x.ts")], "invalid_arguments", "outside"],
    [["../x.ts"], "invalid_arguments", "outside"],
    [["src/../../x.ts"], "invalid_arguments", "outside"],
    [["src/*/../../.."], "invalid_arguments", "outside"],
    [["out/file.ts"], "invalid_arguments", "symlink"],
    [["out/**"], "invalid_arguments", "symlink"],
    [["**"], "invalid_arguments", "everything"],
    [["*/**"], "invalid_arguments", "everything"],
    [["."], "invalid_arguments", "everything"],
    [["--ttl", "0m", "src/a.ts"], "invalid_arguments", "ttl"],
    [["--ttl", "3650d", "src/a.ts"], "invalid_arguments", "ttl"],
    [["--ttl", "soon", "src/a.ts"], "invalid_arguments", "ttl"],
  ];
  for (const [args, code, reason] of cases) {
    const result = await cliIn(repo, env, "claim", "--json", ...args);
    assert.equal(result.code, 1, `${args.join(" ")}: ${result.stdout}${result.stderr}`);
    const { error } = json(result) as Failure;
    assert.equal(error.code, code, args.join(" "));
    assert.equal(reason === "ttl" ? error.details.field : error.details.reason, reason, `${args.join(" ")}: ${JSON.stringify(error)}`);
    assert.ok(error.hint.length > 0);
    assert.equal(statSync(mailbox).size, size, `${args.join(" ")} wrote nothing`);
  }
  // The whole repository on purpose, and a release of something nobody holds.
  const all = await cliIn(repo, env, "claim", "--all", "--json", "**");
  assert.equal(all.code, 0, all.stdout);
  assert.equal((json(await cliIn(repo, env, "release", "--json", "lib/x.ts")) as Failure).error.code, "not_found");
});

test("the claim tools over MCP: agents shows a session's claims, and health counts those that ran out unreleased", async (t) => {
  const repo = tempRepo(t);
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_ADDRESS: "claude:me" };
  const at = (iso: string) => ({ ...env, PEERPOST_NOW: String(Date.parse(iso)) });
  const now = await connect(t, at("2026-02-01T10:00:00.000Z"), CLI, ["serve"], repo);
  const claimed = await now.call("claim", { paths: ["src/a.ts"], ttl: "1m", reason: "typo" });
  assert.deepEqual((claimed.claims as Array<{ path: string }>).map((claim) => claim.path), ["src/a.ts"]);
  const refused = await now.raw("claim", { paths: ["**"] });
  assert.equal((refused.structuredContent?.error as { details: { reason: string } }).details.reason, "everything");
  const agents = (await now.call("agents")).sessions as Array<{ address: string; claims: string[] }>;
  assert.deepEqual(agents.find((session) => session.address === "claude:me")?.claims, [`${repo}:src/a.ts`]);
  assert.deepEqual((await now.call("health")).claims, { standing: 1, expiredUnreleased: 0 });
  const later = await connect(t, at("2026-02-01T11:00:00.000Z"), CLI, ["serve"], repo);
  const health = await later.call("health");
  assert.deepEqual(health.claims, { standing: 0, expiredUnreleased: 1 });
  assert.ok((health.warnings as Array<{ code: string }>).some((warning) => warning.code === "claims_expired"));
});

test("a claim another writer spelled with JSON's whitespace or escapes is folded like peerpost's own", (t) => {
  const { peerpost } = tempPeerpost(t);
  const at = new Date(peerpost.config.now()).toISOString();
  const until = new Date(peerpost.config.now() + 3_600_000).toISOString();
  listClaims(peerpost);
  // Valid JSON and valid records, though JSON.stringify would write neither of them this way.
  const spaced = `{"v":1, "type" : "claim","id":"01KZZZZZZZZZZZZZZZZZZZZZ01","holder":"claude:bob","repo":"/r","paths":["src/**"],"shared":false,"at":"${at}","until":"${until}"}`;
  const escaped = `{"v":1,"type":"\\u0063laim","id":"01KZZZZZZZZZZZZZZZZZZZZZ02","holder":"claude:carol","repo":"/r","paths":["docs/**"],"shared":false,"at":"${at}","until":"${until}"}`;
  appendFileSync(peerpost.mailbox.log.path, `${spaced}\n${escaped}\n`);
  assert.deepEqual(listClaims(peerpost).claims.map((claim) => claim.holder).sort(), ["claude:bob", "claude:carol"]);
});
