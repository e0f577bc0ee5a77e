// peerpost compact: moves finished messages older than PEERPOST_RETENTION_DAYS from the live mailbox into
// its archive now, instead of waiting for a server to do it past PEERPOST_COMPACT_AT_BYTES, and compacts
// the receipts, the sessions registry and the wakes log (upkeep/log-compaction.ts).
import { defineCommand } from "../command.js";
import { printJson } from "../output.js";
import { openStore } from "../store.js";
import { compactLogs } from "../../upkeep/log-compaction.js";

export const compactCommand = defineCommand({
  name: "compact",
  summary: "archive finished messages older than the retention",
  usage: "",
  details: "Resolved, expired and read fyi messages idle for longer than PEERPOST_RETENTION_DAYS (default 30) move with their events to mailbox.archive.jsonl; open messages never move. So do claims that ended (released, or past their TTL) before it, and done or failed tasks with every task linked to them by a dependency, once none of those is open. status, task list, tail --from-start and receipts still read the archive. Receipts and ended wake runs older than PEERPOST_LOG_RETENTION_DAYS (default 30) move to receipts.archive.jsonl and wakes.archive.jsonl, which receipts and status still read; the sessions registry keeps each session's latest state only. On PostgreSQL the receipts and sessions tables are compacted by the same rules (old receipts to an archive table), then this machine's mirrors; the database keeps every message, and this machine's mirror of the mailbox moves its finished ones to mirror-mailbox.archive.jsonl.",
  flags: {},
  args: { min: 0, max: 0, name: "" },
  examples: ["peerpost compact", "PEERPOST_RETENTION_DAYS=7 peerpost compact --json"],
  async run({ json }) {
    const peerpost = await openStore();
    const mailbox = await peerpost.mailbox.compact();
    const archive = peerpost.mailbox.compaction.archive;
    const logs = await compactLogs(peerpost);
    if (json) printJson({ ok: true, retentionDays: peerpost.config.retentionDays, archive, ...mailbox, logRetentionDays: peerpost.config.logRetentionDays, logs });
    else {
      process.stdout.write(
        mailbox.movedLines === 0
          ? `nothing to compact: no finished message, ended claim or finished task is older than ${peerpost.config.retentionDays} days\n`
          : `moved ${mailbox.movedMessages} messages, ${mailbox.movedClaimLines} claim and release lines and ${mailbox.movedTasks} tasks (${mailbox.movedLines} lines) to ${archive}; live mailbox ${mailbox.liveBytesBefore} → ${mailbox.liveBytesAfter} bytes\n`,
      );
      for (const outcome of logs) {
        if ("database" in outcome && outcome.database) {
          const { movedRows, droppedRows, rowsBefore, rowsAfter, ms, lockedMs } = outcome.database;
          process.stdout.write(`${outcome.log} in PostgreSQL: ${movedRows} rows archived, ${droppedRows} superseded rows dropped; live rows ${rowsBefore} → ${rowsAfter} (${ms} ms, appends held for ${lockedMs} ms)\n`);
        }
        process.stdout.write(
          "skipped" in outcome
            ? `${outcome.log}: skipped (${outcome.skipped})\n`
            : `${outcome.log}${"database" in outcome && outcome.database ? " mirror" : ""}: ${outcome.movedLines} lines archived, ${outcome.droppedLines} superseded lines dropped; live ${outcome.liveBytesBefore} → ${outcome.liveBytesAfter} bytes\n`,
        );
      }
    }
    return 0;
  },
});
