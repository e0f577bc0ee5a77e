// Copies a file store's history (each log's archive, then its live file) into PostgreSQL, once: each record
// is keyed by the source machine, the log and a hash of its content, so running it again (or after more
// was written) copies only what is new. Order is kept within each log; each record gets the scopes a
// scoped read needs.
import { createHash } from "node:crypto";
import { JsonlLog } from "../../log/log.js";
import { committedArchiveBytes, compactionPaths, finishRenamedCompaction } from "../file/compaction-swap.js";
import type { LogOptions, RecordSchema } from "../../log/types.js";
import type { MailboxEvent, ReceiptRecord, SessionRecord } from "../../records/schemas.js";
import type { KeyedItem, PostgresDatabase } from "./store.js";
import { mailboxEvent, receiptSchema, sessionSchema } from "../../records/schemas.js";
import { workScope } from "../../records/work-scope.js";

const BATCH = 500;

export interface CopiedLog {
  log: string;
  read: number;
  copied: number;
  alreadyThere: number;
  corrupt: number;
}

export interface FileLogs {
  mailbox: JsonlLog<MailboxEvent>;
  receipts: JsonlLog<ReceiptRecord>;
  sessions: JsonlLog<SessionRecord>;
  /** For reading their archives. */
  options: LogOptions;
}

function keyOf(machine: string, log: string, record: unknown): string {
  return `migrate:${machine}:${log}:${createHash("sha256").update(JSON.stringify(record)).digest("base64url")}`;
}

/** The addresses each mailbox record concerns: a message's sender, recipient and role; an event inherits its message's. */
function mailboxScopes(): (record: MailboxEvent) => string[] {
  const byMessage = new Map<string, string[]>();
  return (record) => {
    const work = workScope(record);
    if (work !== undefined) return [work];
    if (record.type === "msg") {
      const scopes = [...new Set([record.from, record.to, ...(record.via !== undefined ? [record.via] : [])])];
      byMessage.set(record.id, scopes);
      return scopes;
    }
    return byMessage.get(record.id) ?? [];
  };
}

/**
 * The log's records with those a compaction moved to its archive first (older: readers fold them first).
 * The live file is read first: a compaction that moves lines meanwhile moves them into the archive read
 * after it, and a line met in both is copied once (its key is its content). The archive is read to its
 * committed end (a compaction under way may still cut what it appended).
 */
function withArchive<T>(live: JsonlLog<T>, logOptions: LogOptions): { records: T[]; corrupt: number } {
  const paths = compactionPaths(live.path);
  // Lines a compaction killed after its swap left in the old file, brought over first, as readers do.
  finishRenamedCompaction(paths);
  const liveRecords: T[] = [];
  const liveScan = live.scan(0, (entry) => void liveRecords.push(entry.record));
  const archive = new JsonlLog(paths.archive, live.schema, logOptions);
  const records: T[] = [];
  try {
    const archiveScan = archive.scan(0, (entry) => void records.push(entry.record), { until: committedArchiveBytes(paths) });
    for (const record of liveRecords) records.push(record);
    return { records, corrupt: archiveScan.corrupt.length + liveScan.corrupt.length };
  } finally {
    archive.close();
  }
}

async function copyLog<T>(database: PostgresDatabase, name: string, source: JsonlLog<T>, schema: RecordSchema<T>, machine: string, shape: (record: T) => { record: T; scopes: string[] }, logOptions: LogOptions): Promise<CopiedLog> {
  const target = database.log(name, schema);
  const report: CopiedLog = { log: name, read: 0, copied: 0, alreadyThere: 0, corrupt: 0 };
  let batch: KeyedItem<T>[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const items = batch;
    batch = [];
    const stored = await target.append(items);
    report.copied += stored.entries.length;
    report.alreadyThere += items.length - stored.entries.length;
  };
  const { records, corrupt } = withArchive(source, logOptions);
  report.corrupt = corrupt;
  for (const original of records) {
    report.read++;
    const { record, scopes } = shape(original);
    batch.push({ record, scopes, key: keyOf(machine, name, record) });
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return report;
}

export async function copyFileStore(database: PostgresDatabase, logs: FileLogs, machine: string): Promise<CopiedLog[]> {
  const scopes = mailboxScopes();
  return [
    // Sessions first: a message copied before its recipient's registration would name a stranger.
    await copyLog(database, "sessions", logs.sessions, sessionSchema, machine, (record) => ({ record: { ...record, machine: record.machine ?? machine }, scopes: [record.address] }), logs.options),
    await copyLog(database, "mailbox", logs.mailbox, mailboxEvent, machine, (record) => ({ record, scopes: scopes(record) }), logs.options),
    await copyLog(database, "receipts", logs.receipts, receiptSchema, machine, (record) => ({ record, scopes: [record.from, record.to] }), logs.options),
  ];
}
