// A compaction of the receipts (or the sessions registry, or the wakes log) killed before it finished leaves
// its marker and its `.old` file (the whole old log) behind: doctor reports it, as it does the mailbox's,
// with `peerpost compact` as the fix, which completes it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { monotonicFactory } from "ulid";
import { tempPeerpost, cliEnv } from "./helpers/temp.js";
import { collect, spawnFixture } from "./helpers/children.js";
import { CLI } from "./helpers/mcp.js";
import type { ReceiptRecord } from "../core/records/schemas.js";

const DAY = 86_400_000;
const ulid = monotonicFactory();

test("doctor reports a receipts compaction that was killed before it finished", async (t) => {
  const temp = tempPeerpost(t, { PEERPOST_LOG_RETENTION_DAYS: "30" });
  const { peerpost, clock, stateDir } = temp;
  const lines: string[] = [];
  for (let i = 0; i < 400; i++) {
    const at = clock.now - (i < 300 ? 60 : 1) * DAY + i * 60_000;
    const receipt: ReceiptRecord = { v: 1, type: "receipt", id: ulid(at), at: new Date(at).toISOString(), kind: "send", host: "claude-code", from: "claude:a", to: "codex:b", messageId: ulid(at), delivery: "queued", warnings: [], origin: { source: "host", pid: 1 } };
    lines.push(JSON.stringify(receipt));
  }
  appendFileSync(peerpost.receipts.log.path, lines.join("\n") + "\n", { mode: 0o600 });
  const env = { PEERPOST_NOW: String(clock.now), PEERPOST_LOG_RETENTION_DAYS: "30" };
  const killed = await collect(spawnFixture("log-compactor", [stateDir, "receipts"], { ...env, PEERPOST_FAULT: "compact-after-rename" }));
  assert.equal(killed.signal, "SIGKILL", killed.stderr);
  const marker = join(stateDir, "receipts.jsonl.compacting.json");
  assert.ok(existsSync(marker) && existsSync(join(stateDir, "receipts.jsonl.old")));
  // Long dead: an hour ago.
  const old = (Date.now() - 3600_000) / 1000;
  utimesSync(marker, old, old);
  const result = await collect(spawn(process.execPath, [CLI, "doctor", "--json"], { env: cliEnv(temp), stdio: ["ignore", "pipe", "pipe"] }));
  const report = JSON.parse(result.stdout) as { problems: Array<{ problem: string; fix: string }>; state: { storage: { compactedLogs: { receipts: { compacting: boolean } } } } };
  assert.equal(report.state.storage.compactedLogs.receipts.compacting, true, "the marker is seen");
  assert.ok(statSync(join(stateDir, "receipts.jsonl.old")).size > 0);
  assert.ok(report.problems.some((item) => /receipts/.test(item.problem) && /compaction/.test(item.problem)), `doctor names the stopped compaction: ${JSON.stringify(report.problems)}`);
  assert.equal(result.code, 1);
  // The fix doctor gives completes it.
  const fix = report.problems.find((item) => /receipts/.test(item.problem) && /compaction/.test(item.problem))!.fix;
  assert.match(fix, /peerpost compact/);
  const compact = await collect(spawn(process.execPath, [CLI, "compact"], { env: cliEnv(temp, env), stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(compact.code, 0, compact.stderr);
  const again = await collect(spawn(process.execPath, [CLI, "doctor", "--json"], { env: cliEnv(temp), stdio: ["ignore", "pipe", "pipe"] }));
  assert.deepEqual((JSON.parse(again.stdout) as { problems: unknown[] }).problems, []);
  assert.ok(!existsSync(marker) && !existsSync(join(stateDir, "receipts.jsonl.old")), "the marker and the old file are gone");
});
