// Exactly one resolution when the lock is taken over: holders killed, stopped for good, or stopped between
// deciding and writing and then resumed, while four repliers race to answer the same request. The lock
// is only a performance aid; the log order decides (the first resolution wins, later writers are told).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { ChildProcess } from "node:child_process";
import { tempPeerpost } from "./helpers/temp.js";
import { collect, spawnFixture, waitForOutput } from "./helpers/children.js";
import { until } from "./helpers/poll.js";

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
