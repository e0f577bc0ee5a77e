// Compaction of a PostgreSQL log by the file store's own plans (receipt-retention.ts, registry-compaction.ts):
// the plan is shown every row of one snapshot in seq order (the seq standing for a line's offset), then
// places each: archived rows move to the log's archive table, seq and all, which reads of the log still
// visit; dropped rows are deleted; corrupt rows always stay. The first pass reads a snapshot without the
// lock, so appends go on meanwhile; the moves run in one transaction holding the log's advisory lock, so
// appends wait only for them and land after them. A plan of a snapshot holds for its rows later too: rows
// appended since are not placed (they stay), and the rows a plan keeps (a receipt newer than the cutoff,
// the records a session's latest state is folded from) are kept by any compaction that sees them.
import { PeerpostError } from "../../common/errors.js";
import type { LogEntry } from "../../log/types.js";
import type { CompactionPlan } from "../file/log-compaction.js";
import type { LinePlace } from "../file/line-moves.js";
import type { SourceCompaction } from "../local.js";
import type { PostgresLog } from "./store.js";

/** Rows read per query of the first pass. */
const BATCH = 5000;
/** Longest one statement of the first pass may run (a large log's batch on a busy database). */
const FIRST_PASS_STATEMENT_MS = 120_000;
/** The plans place rows by seq alone; the line they take for it is not there. */
const NO_LINE = Buffer.alloc(0);

type Away = Record<Exclude<LinePlace, "keep">, string[]>;

/** Pass 1, on one snapshot: the rows the plan moves or drops, and how many rows there were. */
function plannedMoves<T>(log: PostgresLog<T>, plan: CompactionPlan<T>): Promise<{ rows: number; away: Away }> {
  return log.snapshot(
    "compact",
    async (client) => {
      const seqs: string[] = [];
      const corrupt = new Set<number>();
      const entries = typeof plan.place === "function" ? new Map<number, LogEntry<T>>() : undefined;
      for (let after = "0"; ; ) {
        const rows = (await client.query<{ seq: string; record: string }>(`SELECT seq, record::text AS record FROM ${log.table} WHERE seq > $1 ORDER BY seq LIMIT ${BATCH}`, [after])).rows;
        for (const row of rows) {
          const seq = Number(row.seq);
          seqs.push(row.seq);
          if (plan.wanted && !plan.wanted(Buffer.from(row.record))) continue;
          const parsed = log.parse(row.record);
          if (typeof parsed === "string") {
            corrupt.add(seq);
            continue;
          }
          const entry = { offset: seq, end: seq, record: parsed.record };
          plan.observe(entry);
          entries?.set(seq, entry);
        }
        if (rows.length < BATCH) break;
        after = rows.at(-1)!.seq;
      }
      const away: Away = { archive: [], drop: [] };
      if (!plan.anyLeaves(corrupt)) return { rows: seqs.length, away };
      for (const seq of seqs) {
        const offset = Number(seq);
        if (corrupt.has(offset)) continue;
        const entry = entries?.get(offset);
        const to = typeof plan.place === "function" ? (entry ? plan.place(entry) : "keep") : plan.place.atOffset(offset, NO_LINE);
        if (to !== "keep") away[to].push(seq);
      }
      return { rows: seqs.length, away };
    },
    FIRST_PASS_STATEMENT_MS,
  );
}

/** Compacts `log`'s live table as `plan` says: planned on a snapshot, moved in one transaction under the log's lock. */
export async function compactRows<T>(log: PostgresLog<T>, plan: CompactionPlan<T>): Promise<SourceCompaction> {
  const started = performance.now();
  const { rows, away } = await plannedMoves(log, plan);
  const result = { rowsBefore: rows, movedRows: 0, droppedRows: 0, rowsAfter: rows, ms: 0, lockedMs: 0 };
  if (away.archive.length + away.drop.length > 0) {
    if (away.archive.length > 0 && log.archive === undefined) throw new PeerpostError("internal_error", `The ${log.name} log has no archive to move rows to.`, { hint: "This is a bug in peerpost; nothing was moved." });
    const locked = performance.now();
    const counts = await log.exclusive("compact", async (client) => {
      const columns = "seq, key, scopes, record, stored_at";
      // Rows another compaction moved meanwhile are not there to move again: counted as they are.
      const moved = away.archive.length === 0 ? 0 : (await client.query(`WITH moved AS (DELETE FROM ${log.table} WHERE seq = ANY($1::bigint[]) RETURNING ${columns}) INSERT INTO ${log.archive!} (${columns}) SELECT ${columns} FROM moved`, [away.archive])).rowCount ?? 0;
      const dropped = away.drop.length === 0 ? 0 : (await client.query(`DELETE FROM ${log.table} WHERE seq = ANY($1::bigint[])`, [away.drop])).rowCount ?? 0;
      return { moved, dropped };
    });
    Object.assign(result, { movedRows: counts.moved, droppedRows: counts.dropped, rowsAfter: rows - counts.moved - counts.dropped, lockedMs: Math.round(performance.now() - locked) });
  }
  return { ...result, ms: Math.round(performance.now() - started) };
}
