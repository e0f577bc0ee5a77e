// The push a session's registry entry names comes from two writers that register without a lock: its own
// server (the host's protocol, tmux typing, or none) and a `peerpost run` wrapper around its host (pty, or
// none). Whatever order their reports land in, the host's protocol comes first, then the wrapper's typing;
// a fresh process (the registry's index) and a compacted registry read the same.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Peerpost } from "../core/peerpost.js";
import { compactOneLog } from "../core/upkeep/log-compaction.js";
import { tempPeerpost } from "./helpers/temp.js";

type Report = ["server" | "wrapper", string];

/** Each case: the reports in log order, and the push they leave. */
const CASES: Array<{ reports: Report[]; push: string }> = [
  // The wrapper's report landed after the server's: the inbox still comes first.
  { reports: [["server", "claude-inbox"], ["wrapper", "pty"]], push: "claude-inbox" },
  { reports: [["wrapper", "pty"], ["server", "claude-inbox"]], push: "claude-inbox" },
  // A server with no transport of its own leaves the wrapper typing, in either order.
  { reports: [["server", "none"], ["wrapper", "pty"]], push: "pty" },
  { reports: [["wrapper", "pty"], ["server", "none"]], push: "pty" },
  // The server started again: its none does not undo the wrapper's pty, nor does a compaction.
  { reports: [["server", "none"], ["wrapper", "pty"], ["server", "none"]], push: "pty" },
  // The inbox gone (its server says none): the wrapper that reported pty before types.
  { reports: [["wrapper", "pty"], ["server", "claude-inbox"], ["server", "none"]], push: "pty" },
  // A wrapper that can no longer type says so; the server's tmux typing is still there.
  { reports: [["server", "tmux"], ["wrapper", "pty"], ["wrapper", "none"]], push: "tmux" },
  { reports: [["server", "none"], ["wrapper", "pty"], ["wrapper", "none"]], push: "none" },
  { reports: [["wrapper", "none"]], push: "none" },
];

async function report(peerpost: Peerpost, clock: { now: number }, address: string, [writer, push]: Report): Promise<void> {
  clock.now += 1000;
  await peerpost.sessions.register({ host: "claude-code", address, sessionId: address.slice("claude:".length), source: writer === "wrapper" ? "cli" : "server", push });
}

test("a session's push puts the host's protocol first, then a peerpost run wrapper's typing, whatever order their reports landed in; a fresh process and a compacted registry read the same", async (t) => {
  const { peerpost, clock, reopen } = tempPeerpost(t, { PEERPOST_LOG_RETENTION_DAYS: "1" });
  const address = (i: number) => `claude:push-${i}`;
  for (const [i, { reports }] of CASES.entries()) for (const each of reports) await report(peerpost, clock, address(i), each);
  // Heartbeats after them, which a compaction drops: the reports the push is decided from stay.
  for (let round = 0; round < 5; round++)
    for (const i of CASES.keys()) {
      clock.now += 1000;
      await peerpost.sessions.register({ host: "claude-code", address: address(i), sessionId: `push-${i}`, source: "server" });
    }
  const pushes = (reader: Peerpost) => CASES.map((_, i) => reader.sessions.get(address(i))?.push);
  const expected = CASES.map((each) => each.push);
  assert.deepEqual(pushes(peerpost), expected);
  assert.deepEqual(pushes(reopen()), expected, "a process that folded nothing yet reads the same");
  clock.now += 3 * 86_400_000;
  const compacted = await compactOneLog(peerpost, "sessions");
  assert.ok("droppedLines" in compacted && compacted.droppedLines > 0, `the heartbeats are dropped: ${JSON.stringify(compacted)}`);
  assert.deepEqual(pushes(reopen()), expected, "the compacted registry reads the same");
});
