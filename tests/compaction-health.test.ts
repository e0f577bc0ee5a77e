// `peerpost health` and `peerpost doctor` report the compaction's state: the archive's size and when a
// compaction last moved mail into it, the size of each index and whether it is current, and a standing
// compaction marker with its age (under way, or interrupted once it is older than a minute).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempPeerpost, type TestPeerpost } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { CLI } from "./helpers/mcp.js";

const DAY = 86_400_000;

interface Storage {
  archive: { bytes: number; indexed: boolean; indexBytes: number; lastCompactedAt: string | null };
  marker: { path: string; ageMs: number } | null;
  compactionInterrupted: boolean;
  index: { lagBytes: number; bytes: number };
}

async function report({ home, stateDir, clock }: TestPeerpost, command: "health" | "doctor", json = true): Promise<{ storage: Storage; text: string }> {
  const env = { PATH: "/usr/bin:/bin", HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now) };
  const result = await collect(spawn(process.execPath, [CLI, command, ...(json ? ["--json"] : [])], { env, stdio: ["ignore", "pipe", "pipe"] }));
  return json ? { storage: (JSON.parse(result.stdout) as { state: { storage: Storage } }).state.storage, text: "" } : { storage: undefined as never, text: result.stdout };
}

test("health and doctor report the archive, when it was last compacted, each index's size and currency, and a standing compaction marker", async (t) => {
  const temp = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const { peerpost, clock, stateDir } = temp;
  for (let i = 0; i < 20; i++) {
    const { message } = await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: `old #${i}`, anticipation: "reply" });
    await peerpost.mailbox.resolve({ id: message.id, by: "codex:b", resolution: "done" });
  }
  // One open request stays in the live log (and in its index).
  await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "still open", anticipation: "reply" });
  const before = (await report(temp, "health")).storage;
  assert.equal(before.archive.lastCompactedAt, null);
  assert.equal(before.archive.bytes, 0);
  assert.equal(before.marker, null);
  assert.match((await report(temp, "health", false)).text, /archive\s+0 bytes of compacted mail, never compacted/);

  clock.now += 40 * DAY;
  const compactedAt = Date.now();
  assert.ok((await peerpost.mailbox.compact()).movedMessages > 0);
  for (const command of ["health", "doctor"] as const) {
    const after = (await report(temp, command)).storage;
    assert.ok(after.archive.bytes > 0, `${command}: the archive's size`);
    assert.ok(Date.parse(after.archive.lastCompactedAt ?? "") >= compactedAt - 1000, `${command}: when it was last compacted`);
    assert.equal(after.archive.indexed, true, `${command}: the archive's index is current`);
    assert.ok(after.archive.indexBytes > 0, `${command}: the archive's index size`);
    assert.ok(after.index.bytes > 0, `${command}: the mailbox index's size`);
    assert.equal(after.index.lagBytes, 0);
    assert.equal(after.marker, null);
  }
  const text = (await report(temp, "health", false)).text;
  assert.match(text, /archive\s+\d+ bytes of compacted mail, last compacted \d{4}-\d\d-\d\dT[^;]*; its index \d+ bytes, current/);
  assert.match(text, /index\s+\d+ bytes; current/);

  // A marker standing: under way while it is young, interrupted once it is older than a minute.
  const marker = join(stateDir, "mailbox.jsonl.compacting.json");
  writeFileSync(marker, JSON.stringify({ v: 1, archiveBytes: 0, liveIno: 1 }), { mode: 0o600 });
  const young = (await report(temp, "health")).storage;
  assert.equal(young.marker?.path, marker);
  assert.equal(young.compactionInterrupted, false);
  const old = (Date.now() - 5 * 60_000) / 1000;
  utimesSync(marker, old, old);
  const stale = (await report(temp, "doctor")).storage;
  assert.ok((stale.marker?.ageMs ?? 0) >= 5 * 60_000 - 1000, "the marker's age");
  assert.equal(stale.compactionInterrupted, true);
  assert.match((await report(temp, "doctor", false)).text, /compaction marker \d+ s old \(interrupted/);
});
