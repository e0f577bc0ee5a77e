// Exactly one resolution when the lock is taken over: holders killed, stopped for good, or stopped between
// deciding and writing and then resumed, while four repliers race to answer the same request. The lock
// is only a performance aid; the log order decides (the first resolution wins, later writers are told).
// Across a handover of the role a request came through: a former holder that decided its reply or its
// delivery claim while it held the role, and wrote it after the role moved, is told so; neither counts for it.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { ChildProcess } from "node:child_process";
import { tempPeerpost } from "./helpers/temp.js";
import { collect, spawnFixture, waitForOutput } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { changeRole } from "../core/roles/roles.js";
import { handWrittenLog } from "./helpers/hand-written-log.js";

const STALE = { PEERPOST_LOCK_STALE_MS: "2000", PEERPOST_LOCK_TIMEOUT_MS: "30000" };
type Outcome = { ok: true; replyId: string } | { ok: false; code: string };

function stopped(child: ChildProcess): boolean {
  // /proc/<pid>/stat: "pid (comm) state …"; T is stopped by a signal.
  return readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]?.startsWith("T") ?? false;
}

function outcomeOf(stdout: string): Outcome {
  return JSON.parse(stdout.trim()) as Outcome;
}

async function race(stateDir: string, id: string, labels: string[], env: NodeJS.ProcessEnv = {}): Promise<Outcome[]> {
  const runs = labels.map((label) => collect(spawnFixture("replier", [stateDir, id, "codex:target", `reply from ${label}`], { ...STALE, ...env })));
  return (await Promise.all(runs)).map((run) => {
    assert.equal(run.code, 0, run.stderr);
    return outcomeOf(run.stdout);
  });
}

type Variant = "holder killed" | "holder stopped" | "replier stopped after deciding, then resumed";
const VARIANTS: Variant[] = ["holder killed", "holder stopped", "replier stopped after deciding, then resumed"];

test("after a stale-lock takeover exactly one of four racing replies is acknowledged and reaches the asker", { timeout: 240_000 }, async (t) => {
  const { stateDir, reopen } = tempPeerpost(t, STALE);
  const store = reopen();
  await store.sessions.register({ host: "claude-code", address: "claude:asker", sessionId: "asker", source: "startup", roles: [] });
  const leftovers: ChildProcess[] = [];
  t.after(() => {
    for (const child of leftovers) {
      child.kill("SIGKILL");
      child.kill("SIGCONT");
    }
  });
  for (let round = 0; round < 9; round++) {
    const variant = VARIANTS[round % VARIANTS.length]!;
    const { message } = await store.mailbox.send({ from: "claude:asker", fromVerified: true, to: "codex:target", body: `question ${round}`, anticipation: "reply" });
    let outcomes: Outcome[];
    if (variant === "replier stopped after deciding, then resumed") {
      const first = spawnFixture("replier", [stateDir, message.id, "codex:target", "reply from the resumed one"], { ...STALE, PEERPOST_FAULT: "stop-after-decide" });
      leftovers.push(first);
      const firstDone = collect(first);
      await until(() => stopped(first), 20_000, "the first replier to stop after deciding, holding the lock");
      const others = await race(stateDir, message.id, ["b", "c", "d"]);
      first.kill("SIGCONT");
      const resumed = await firstDone;
      assert.equal(resumed.code, 0, resumed.stderr);
      outcomes = [outcomeOf(resumed.stdout), ...others];
    } else {
      const holder = spawnFixture("lock-holder", [stateDir], STALE);
      leftovers.push(holder);
      const holderDone = collect(holder);
      await waitForOutput(holder, "locked");
      holder.kill(variant === "holder killed" ? "SIGKILL" : "SIGSTOP");
      outcomes = await race(stateDir, message.id, ["a", "b", "c", "d"]);
      holder.kill("SIGKILL");
      holder.kill("SIGCONT");
      await holderDone;
    }
    const acknowledged = outcomes.filter((outcome): outcome is Extract<Outcome, { ok: true }> => outcome.ok);
    assert.equal(acknowledged.length, 1, `round ${round} (${variant}): exactly one acknowledged reply, got ${JSON.stringify(outcomes)}`);
    for (const outcome of outcomes) if (!outcome.ok) assert.equal(outcome.code, "already_resolved", `round ${round} (${variant})`);
    const reader = reopen();
    const replies = reader.mailbox.inbox("claude:asker", { unreadOnly: false }).filter((entry) => entry.message.inReplyTo === message.id);
    assert.deepEqual(replies.map((entry) => entry.message.id), [acknowledged[0]!.replyId], `round ${round} (${variant}): exactly the acknowledged reply reaches the asker`);
    assert.equal(reader.mailbox.view("codex:target").state.messages[message.id]!.resolved?.replyId, acknowledged[0]!.replyId);
  }
});

/**
 * A request to role:reviewer held by bob; bob's child (`start`) decides about it and stops holding the lock,
 * the person hands the role to carol (taking the lock over), and bob goes on. Its printed outcome, and a reader after.
 */
async function handoverMidDecision(t: TestContext, start: (stateDir: string, messageId: string) => ChildProcess) {
  const { stateDir, reopen } = tempPeerpost(t, STALE);
  const store = reopen();
  for (const [address, host] of [["claude:alice", "claude-code"], ["codex:bob", "codex"], ["copilot:carol", "copilot"]] as const)
    await store.sessions.register({ host, address, sessionId: address.split(":")[1]!, source: "startup", roles: [] });
  await changeRole(store, { role: "reviewer", holder: "codex:bob", by: "user:pat" });
  const { message } = await store.mailbox.send({ from: "claude:alice", fromVerified: true, to: "codex:bob", via: "role:reviewer", body: "review this", anticipation: "reply" });
  const bob = start(stateDir, message.id);
  t.after(() => {
    bob.kill("SIGKILL");
    bob.kill("SIGCONT");
  });
  const bobDone = collect(bob);
  await until(() => stopped(bob), 20_000, "bob's child to stop after deciding, holding the lock");
  await changeRole(reopen(), { role: "reviewer", holder: "copilot:carol", by: "user:pat" });
  bob.kill("SIGCONT");
  const run = await bobDone;
  assert.equal(run.code, 0, run.stderr);
  return { message, outcome: JSON.parse(run.stdout.trim()) as Record<string, unknown>, reader: reopen() };
}

test("a former holder's reply decided before a handover and written after it is not acknowledged", { timeout: 60_000 }, async (t) => {
  const { message, outcome, reader } = await handoverMidDecision(t, (stateDir, id) => spawnFixture("replier", [stateDir, id, "codex:bob", "looks fine"], { ...STALE, PEERPOST_FAULT: "stop-after-decide" }));
  const request = reader.mailbox.view("copilot:carol").state.messages[message.id]!;
  assert.equal(request.to, "copilot:carol", "the request waits on carol");
  assert.equal(request.resolved, undefined, "bob's late resolution does not count");
  const answers = reader.mailbox.inbox("claude:alice", { unreadOnly: false }).filter((entry) => entry.message.inReplyTo === message.id);
  assert.deepEqual(
    { outcome, answers: answers.map((entry) => entry.body) },
    { outcome: { ok: false, code: "wrong_recipient" }, answers: [] },
    "bob is told the request moved on, and alice holds no answer the request does not count",
  );
});

test("the former holder's late reply, dropped by the fold, stays dropped after a compaction", async (t) => {
  const DAY = 86_400_000;
  const { clock, reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  reopen().mailbox.view("claude:a");
  const log = handWrittenLog(stateDir);
  const old = clock.now - 60 * DAY;
  log.event("role", "01KDRZZZZZZZZZZZZZZZZZZZZ1", old, { role: "reviewer", holder: "codex:b", by: "user:pat" });
  const request = log.msg(old + 1000, { to: "codex:b" });
  log.lines[log.lines.length - 1] = log.lines.at(-1)!.replace('"to":"codex:b"', '"to":"codex:b","via":"role:reviewer"');
  log.event("role", "01KDRZZZZZZZZZZZZZZZZZZZZ2", old + 2000, { role: "reviewer", holder: "copilot:c", by: "user:pat" });
  // Bob's reply, decided before the handover, written after it.
  const late = log.msg(old + 3000, { from: "codex:b", to: "claude:a", anticipation: "fyi", inReplyTo: request });
  log.event("resolved", request, old + 3000, { resolution: "reply", by: "codex:b", replyId: late });
  // Carol's, which counts; alice read both lines' messages long ago.
  const counted = log.msg(old + 4000, { from: "copilot:c", to: "claude:a", anticipation: "fyi", inReplyTo: request });
  log.event("resolved", request, old + 4000, { resolution: "reply", by: "copilot:c", replyId: counted });
  log.event("read", late, old + 5000, { by: "claude:a" });
  log.event("read", counted, old + 5000, { by: "claude:a" });
  // Plain mail as old, done with: it moves, so the compaction did run.
  const plain = log.msg(old + 6000, { anticipation: "fyi" });
  log.event("read", plain, old + 7000, { by: "codex:b" });
  log.write();
  const look = () => {
    const mailbox = reopen().mailbox;
    return { thread: mailbox.thread(request).map((message) => message.id), late: mailbox.find(late)?.id ?? null, resolvedBy: mailbox.find(request)?.resolved?.by ?? null };
  };
  const before = look();
  assert.deepEqual(before, { thread: [request, counted], late: null, resolvedBy: "copilot:c" });
  assert.ok((await reopen().mailbox.compact()).movedMessages >= 1);
  assert.deepEqual(look(), before);
});

test("a former holder's delivery claim written after a handover neither counts for it nor keeps the new holder's push from the request", { timeout: 60_000 }, async (t) => {
  const { message, outcome, reader } = await handoverMidDecision(t, (stateDir, id) => spawnFixture("deliverer", [stateDir, "codex:bob", id, "channel"], { ...STALE, PEERPOST_FAULT: "stop-after-decide" }));
  const carolClaims = await reader.mailbox.markDelivered("copilot:carol", message.id, "channel");
  assert.deepEqual({ bob: outcome, carol: carolClaims }, { bob: { claimed: false }, carol: true }, "the request is pushed to carol, its holder, and not to bob");
});
