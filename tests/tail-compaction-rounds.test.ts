// A compaction in rounds (a log with more messages to retire than PEERPOST_COMPACT_ROUND_MESSAGES) swaps a
// new live file in once per round. A running `peerpost tail` that slept through several of them follows
// the chain of swaps the record keeps, and shows every line appended meanwhile once, in order: before the
// compaction, between its rounds, and after it (docs/state-dir.md).
import { test } from "node:test";
import assert from "node:assert/strict";
import { cliEnv, onCleanup, tempPeerpost } from "./helpers/temp.js";
import { collect, spawnFixture } from "./helpers/children.js";
import { until } from "./helpers/poll.js";
import { traffic } from "./helpers/old-traffic.js";
import { liveTail } from "./helpers/tail.js";

const DAY = 86_400_000;

test("a live tail stopped through a compaction in rounds shows every line appended meanwhile, once, in order", { timeout: 60_000 }, async (t) => {
  const temp = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30", PEERPOST_COMPACT_ROUND_MESSAGES: "4" });
  const { peerpost, clock } = temp;
  await traffic(peerpost, clock);
  const tail = liveTail(t, cliEnv(temp));
  const bodies = () => tail.bodies(/^(before|unread|late) /);
  const send = async (body: string) => void (await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body, anticipation: "reply" }));
  const sent: string[] = [];
  sent.push("before #1");
  await send("before #1");
  await until(() => bodies().length === 1, 10_000, "the tail to show the first line");
  // Stopped through the compaction (as a busy machine may leave it between two of its polls).
  tail.child.kill("SIGSTOP");
  for (const body of ["unread #1", "unread #2"]) sent.push(body), await send(body);
  clock.now += 40 * DAY;
  const result = await peerpost.mailbox.compact();
  assert.ok(result.movedMessages > 0);
  for (const body of ["late #1", "late #2"]) sent.push(body), await send(body);
  tail.child.kill("SIGCONT");
  // It prints at once what it finds; ten seconds are many polls of a tail (every 500 ms, or on a change).
  const deadline = Date.now() + 10_000;
  while (!bodies().includes("late #2") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const caughtUp = bodies().includes("late #2");
  assert.deepEqual({ caughtUp, bodies: bodies(), warned: tail.out.warned }, { caughtUp: true, bodies: sent, warned: "" }, "each line once, in order, with no gap");
  await tail.stop();
});

test("a live tail asleep through a compaction in rounds shows every line a plain appender wrote during it, between its rounds too", { timeout: 60_000 }, async (t) => {
  const temp = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30", PEERPOST_COMPACT_ROUND_MESSAGES: "4" });
  const { peerpost, clock } = temp;
  await traffic(peerpost, clock);
  const tail = liveTail(t, cliEnv(temp));
  const fresh = () => tail.bodies(/^fresh /);
  await until(() => tail.bodies(/^new /).length === 5, 10_000, "the tail to show the recent traffic");
  tail.child.kill("SIGSTOP");
  clock.now += 40 * DAY;
  // Appending while the rounds run, each swapping a file in: its lines land in every file of them.
  const appender = spawnFixture("mail-appender", [peerpost.stateDir.path, "400"]);
  onCleanup(t, () => appender.kill("SIGKILL"));
  const appended = collect(appender);
  await new Promise<void>((resolve) => appender.stdout!.once("data", () => resolve()));
  const result = await peerpost.mailbox.compact();
  assert.ok(result.movedMessages > 8, "the compaction took several rounds");
  const sent = (await appended).stdout.trim().split("\n");
  assert.equal(sent.length, 400);
  tail.child.kill("SIGCONT");
  // A plain append that a swap caught is written again into the new file (log.ts), and the old file's
  // last lines are brought over after it: such a line may show twice, or after a later one, never not at all.
  const missing = () => sent.filter((body) => !fresh().includes(body));
  const deadline = Date.now() + 10_000;
  while (missing().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual({ missing: missing(), warned: tail.out.warned }, { missing: [], warned: "" }, "no line left out, and no gap");
  await tail.stop();
});
