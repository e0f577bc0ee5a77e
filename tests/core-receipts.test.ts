// Receipts are read newest first without reading their log whole: a page without filters reads lines
// back from the end, a page filtered by address or kind reads that scope through the receipts' index
// (or reads back when the index is far behind). Every way must page exactly what a filter of the whole
// log read forward gives, corrupt lines, long lines and a torn tail included.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, existsSync, mkdirSync, renameSync, rmdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openPeerpost, type Peerpost } from "../core/peerpost.js";
import { JsonlLog } from "../core/log/log.js";
import { MAX_LINE_BYTES, type RecordSchema } from "../core/log/types.js";
import { indexedCorruptLines, inspectState } from "../core/upkeep/health.js";
import { UiSource } from "../core/ui/source.js";
import type { ReceiptRecord } from "../core/records/schemas.js";
import type { ReceiptQuery } from "../core/mail/receipts.js";
import { PeerpostError } from "../core/common/errors.js";
import { ScopeIndex } from "../core/store/file/scope-index.js";
import { tempDir } from "./helpers/temp.js";
import { seededRandom as random } from "./helpers/random.js";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** A valid ULID-shaped id, distinct per `n`. */
function ulid(n: number): string {
  let text = "";
  for (let rest = n; text.length < 10; rest = Math.floor(rest / 32)) text = CROCKFORD[rest % 32] + text;
  return `01J${text}${"0".repeat(13)}`;
}

const ADDRESSES = Array.from({ length: 40 }, (_, i) => `${["claude", "codex", "copilot", "grok"][i % 4]}:agent-${i}`);
const START = Date.parse("2026-06-01T00:00:00.000Z");

/** Receipt lines as peerpost writes them: kinds from common to rare, dates slightly out of log order. */
function receiptLines(count: number, next: () => number, first = 0): string[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const lines: string[] = [];
  for (let i = first; i < first + count; i++) {
    const roll = next();
    const kind = roll < 0.7 ? "send" : roll < 0.9 ? "reply" : roll < 0.97 ? "push" : roll < 0.99 ? "wake" : "launch";
    const record: ReceiptRecord = {
      v: 1,
      type: "receipt",
      id: ulid(i),
      kind,
      // A second apart, up to 30 s out of log order (writers racing each other).
      at: new Date(START + i * 1000 + Math.floor((next() - 0.5) * 60_000)).toISOString(),
      host: "codex",
      from: pick(ADDRESSES),
      to: pick(ADDRESSES),
      messageId: ulid(1_000_000 + i),
      delivery: pick(["queued", "delivered", "failed", "skipped"] as const),
      warnings: [],
      origin: { source: "host", pid: 100 + (i % 7), cwd: `/work/${"d".repeat(Math.floor(next() * 250))}` },
    };
    lines.push(JSON.stringify(record));
  }
  return lines;
}

/** Every receipt a query keeps, newest first, from a read of the whole log forward. */
function reference(peerpost: Peerpost, query: ReceiptQuery): string[] {
  const all: ReceiptRecord[] = [];
  peerpost.receipts.log.scan(0, ({ record }) => void all.push(record));
  const since = query.since === undefined ? -Infinity : Date.parse(query.since);
  return all
    .filter((receipt) => (query.kind === undefined || receipt.kind === query.kind) && (query.address === undefined || receipt.from === query.address || receipt.to === query.address) && Date.parse(receipt.at) >= since)
    .map((receipt) => receipt.id)
    .reverse();
}

/** Every page of a query, cursor to cursor. */
function allPages(peerpost: Peerpost, query: ReceiptQuery): string[] {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = peerpost.receipts.query({ ...query, cursor });
    ids.push(...page.receipts.map((receipt) => receipt.id));
    if (page.nextCursor === undefined) return ids;
    assert.equal(page.receipts.length, query.limit ?? 50, "a page before the last is full");
    cursor = page.nextCursor;
  }
}

const QUERIES: ReceiptQuery[] = [
  { limit: 500 },
  { limit: 7 },
  { kind: "launch" },
  { kind: "wake", limit: 3 },
  { kind: "push", limit: 500 },
  { address: ADDRESSES[3]! },
  { address: ADDRESSES[17]!, kind: "reply", limit: 1 },
  { address: ADDRESSES[22]!, since: new Date(START + 20_000_000).toISOString() },
  { since: new Date(START + 25_500_000).toISOString(), limit: 20 },
  { kind: "send", since: new Date(START + 26_000_000).toISOString() },
  { address: "claude:nobody" },
  { since: "2030-01-01T00:00:00Z" },
  { since: new Date(START - 40 * 86_400_000).toISOString(), limit: 500 },
  { since: new Date(START - 29 * 86_400_000).toISOString(), kind: "reply" },
];

/** `beforeEach`: what a live process holding the index's extension does meanwhile (keeps its lock fresh). */
function checkQueries(peerpost: Peerpost, phase: string, beforeEach: () => void = () => undefined): void {
  for (const query of QUERIES) {
    beforeEach();
    assert.deepEqual(allPages(peerpost, query), reference(peerpost, query), `${phase}: ${JSON.stringify(query)}`);
  }
}

function refusesCursor(peerpost: Peerpost, query: ReceiptQuery, message: string): void {
  assert.throws(() => peerpost.receipts.query(query), (error: unknown) => error instanceof PeerpostError && error.code === "invalid_arguments", message);
}

test("receipt pages come newest first and equal a filter of the whole log, read back without an index and through it", async (t) => {
  const home = tempDir(t);
  const state = join(home, "state");
  mkdirSync(state, { recursive: true, mode: 0o700 });
  const log = join(state, "receipts.jsonl");
  const next = random(7);
  // Over 8 MiB: too far ahead of a missing index for readers to build it on their way.
  const lines = receiptLines(26_000, next);
  // Another machine's history copied in after newer receipts (`peerpost migrate`): a month older than its neighbours.
  const migrated = receiptLines(50, next, 30_000).map((line, i) => line.replace(/"at":"[^"]+"/, `"at":"${new Date(START - 30 * 86_400_000 + i * 1000).toISOString()}"`));
  lines.splice(12_000, 0, ...migrated);
  lines.splice(9_000, 0, "{not json");
  lines.splice(15_000, 0, JSON.stringify({ v: 1, type: "receipt", id: "nope" }));
  lines.splice(20_000, 0, `"${"x".repeat(MAX_LINE_BYTES + 10)}"`);
  writeFileSync(log, lines.join("\n") + "\n", { mode: 0o600 });
  let clock = START + 27_000_000;
  const open = () => openPeerpost({ env: { PEERPOST_HOME: state }, home, now: () => clock });
  const peerpost = open();

  assert.equal(peerpost.receipts.indexFarBehind(), true);
  checkQueries(peerpost, "read back, no index");
  assert.equal(existsSync(join(state, "index", "receipts", "meta.json")), false, "a reader does not build an index that far behind");

  peerpost.receipts.indexAll();
  assert.equal(peerpost.receipts.indexFarBehind(), false);
  checkQueries(peerpost, "through the index");

  // Lines past what the index covers (a torn tail too), read by a process that has read nothing yet,
  // while another process holds the index's extension: they are read from the log.
  appendFileSync(log, receiptLines(300, next, 26_000).join("\n") + "\n[1,2]\n" + receiptLines(1, next, 26_300)[0]!.slice(0, 80));
  const extending = join(state, "index", "receipts", "extending.lock");
  mkdirSync(extending);
  // The holder is alive: on a loaded machine these queries take longer than a lock may sit untouched.
  checkQueries(open(), "index, then the lines past it", () => utimesSync(extending, new Date(), new Date()));
  rmdirSync(extending);
  checkQueries(open(), "index extended on the way");

  // A page's cursor goes on to older receipts while newer ones arrive.
  const query = { address: ADDRESSES[5]!, limit: 5 };
  const before = reference(peerpost, query);
  const first = peerpost.receipts.query(query);
  clock += 1000;
  for (let i = 0; i < 3; i++) await peerpost.receipts.record({ kind: "send", host: "codex", from: ADDRESSES[5]!, to: ADDRESSES[6]!, messageId: ulid(2_000_000 + i), delivery: "queued", warnings: [], origin: { source: "host", pid: 1 } });
  const second = peerpost.receipts.query({ ...query, cursor: first.nextCursor });
  assert.deepEqual([...first.receipts, ...second.receipts].map((receipt) => receipt.id), before.slice(0, 10));
  assert.deepEqual(peerpost.receipts.query(query).receipts.length, 5);
  assert.equal(peerpost.receipts.query({ ...query, limit: 3 }).receipts[0]!.messageId, ulid(2_000_002), "the newest first");

  refusesCursor(peerpost, { cursor: "garbage" }, "not a number");
  refusesCursor(peerpost, { cursor: String(Number(first.nextCursor!.split("-")[0]) + 1) }, "not a line start");
  refusesCursor(peerpost, { cursor: "999999999999" }, "past the end");
  refusesCursor(peerpost, { address: ADDRESSES[9]!, cursor: first.nextCursor }, "another address's receipt");
});

/** Any JSON object with a numeric `n`: the reader's record checks, without receipts' schema. */
const NUMBERED: RecordSchema<{ n: number }> = {
  safeParse: (input) =>
    typeof input === "object" && input !== null && typeof (input as { n?: unknown }).n === "number"
      ? { success: true, data: input as { n: number } }
      : { success: false, error: { issues: [{ message: "no n", path: ["n"] }] } },
};

test("reading lines back equals reading them forward: lines across chunks, lines over 1 MiB, empty and invalid lines, a torn tail", (t) => {
  const dir = tempDir(t);
  const path = join(dir, "lines.jsonl");
  const next = random(3);
  const lines: string[] = [];
  for (let n = 0; n < 400; n++) {
    const roll = next();
    if (roll < 0.03) lines.push("");
    else if (roll < 0.06) lines.push("{broken");
    else if (roll < 0.08) lines.push(JSON.stringify({ m: n }));
    else if (roll < 0.1) lines.push(JSON.stringify({ n, pad: "p".repeat(MAX_LINE_BYTES + Math.floor(next() * 3 * MAX_LINE_BYTES)) }));
    // Some span the 64 KiB first chunk and the growing ones after it.
    else lines.push(JSON.stringify({ n, pad: "p".repeat(roll < 0.2 ? Math.floor(next() * 200_000) : Math.floor(next() * 300)) }));
  }
  // Exactly as long as a line may be, and one byte over.
  lines.push(JSON.stringify({ n: 400, pad: "" }).replace('""', `"${"q".repeat(MAX_LINE_BYTES - 18)}"`));
  assert.equal(Buffer.byteLength(lines.at(-1)!), MAX_LINE_BYTES);
  lines.push(lines.at(-1)!.replace('"q', '"qq'));
  lines.push(JSON.stringify({ n: 402 }));
  writeFileSync(path, lines.join("\n") + "\n" + '{"n": 403, "torn');
  const log = new JsonlLog(path, NUMBERED, { lockStaleMs: 10_000, lockTimeoutMs: 1000 });

  const starts: number[] = [];
  const forward = log.scan(0, ({ offset }) => void starts.push(offset));
  const backwardOf = (before: number | undefined) => {
    const seen: number[] = [];
    const result = log.scanBackward(before, ({ offset, record }) => {
      assert.equal(typeof record.n, "number");
      seen.push(offset);
    });
    return { seen, result };
  };
  const all = backwardOf(undefined);
  assert.deepEqual(all.seen, [...starts].reverse());
  assert.equal(all.result.end, forward.next, "a torn tail is not read back");
  const byOffset = (a: { offset: number }, b: { offset: number }) => a.offset - b.offset;
  assert.deepEqual([...all.result.corrupt].sort(byOffset), forward.corrupt);
  assert.ok(forward.corrupt.filter((line) => line.reason.includes("longer than 1 MiB")).length >= 2);

  // From every tenth record's line, what reading forward up to it gives, reversed; and stopping early.
  for (let i = 0; i < starts.length; i += 10) {
    const upTo = log.scan(0, () => undefined, { until: starts[i]! });
    const from = backwardOf(starts[i]);
    assert.deepEqual(from.seen, starts.slice(0, i).reverse(), `before ${starts[i]}`);
    assert.deepEqual([...from.result.corrupt].sort(byOffset), upTo.corrupt, `corrupt lines before ${starts[i]}`);
  }
  const firstThree: number[] = [];
  log.scanBackward(undefined, ({ offset }) => firstThree.push(offset) < 3);
  assert.deepEqual(firstThree, [...starts].reverse().slice(0, 3));
});

test("health counts the receipts' and the registry's corrupt lines from their indexes, as doctor does reading every line; the web view reads the newest receipts back", async (t) => {
  const home = tempDir(t);
  const state = join(home, "state");
  mkdirSync(state, { recursive: true, mode: 0o700 });
  const next = random(11);
  writeFileSync(join(state, "receipts.jsonl"), [...receiptLines(2000, next), "{bad", ...receiptLines(2000, next, 2000)].join("\n") + "\n", { mode: 0o600 });
  // Past the size from which the registry is read through its index.
  const sessions = Array.from({ length: 400 }, (_, i) => JSON.stringify({ v: 1, type: "session", at: new Date(START + i).toISOString(), host: "codex", address: `codex:s-${i}`, sessionId: `s-${i}`, writerPid: 100, cwd: `/w/${"c".repeat(200)}`, source: "startup" }));
  sessions.splice(100, 0, "{also bad");
  writeFileSync(join(state, "sessions.jsonl"), sessions.join("\n") + "\n", { mode: 0o600 });
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: state }, home });
  const logsOf = (report: ReturnType<typeof inspectState>) => Object.fromEntries(["receipts", "sessions"].map((name) => {
    const log = report.logs[name as "receipts" | "sessions"];
    return [name, { corrupt: log.corrupt, recentCorrupt: log.recentCorrupt, tornTail: log.tornTail }];
  }));
  const compare = (phase: string) => assert.deepEqual(logsOf(inspectState(peerpost, indexedCorruptLines(peerpost))), logsOf(inspectState(peerpost)), phase);
  compare("first look (builds the indexes)");
  assert.ok(existsSync(join(state, "index", "receipts", "meta.json")));
  appendFileSync(join(state, "receipts.jsonl"), "nope\n" + receiptLines(10, next, 4000).join("\n") + "\n{torn");
  appendFileSync(join(state, "sessions.jsonl"), "[]\n");
  compare("lines past the indexes");
  assert.equal(inspectState(peerpost, indexedCorruptLines(peerpost)).logs.receipts.corrupt, 2);
  assert.equal(inspectState(peerpost, indexedCorruptLines(peerpost)).logs.receipts.tornTail, true);

  // A count cut at an offset before what the index covers (lines appended and indexed after a reader read back).
  const index = new ScopeIndex(peerpost.receipts.log, join(state, "index", "receipts"), () => ({ scopes: [] }));
  assert.ok((index.covered() ?? 0) > 0);
  const lineStarts: number[] = [];
  peerpost.receipts.log.scan(0, ({ offset }) => void lineStarts.push(offset));
  const cut = lineStarts[2500]!;
  assert.deepEqual(index.corruptLines(cut).count, peerpost.receipts.log.scan(0, () => undefined, { until: cut }).corrupt.length);
  assert.equal(index.corruptLines(cut).count, 1);

  const newest = (count: number) => {
    const all: string[] = [];
    peerpost.receipts.log.scan(0, ({ record }) => void all.push(record.id));
    return all.slice(-count);
  };
  const source = new UiSource(peerpost);
  await source.refresh();
  assert.deepEqual(source.receipts.map((receipt) => receipt.id), newest(500));
  assert.equal(source.receiptsCorrupt.count, 2);
  appendFileSync(join(state, "receipts.jsonl"), "\n" + receiptLines(20, next, 5000).join("\n") + "\n");
  await source.refresh();
  assert.deepEqual(source.receipts.map((receipt) => receipt.id), newest(500), "then the lines appended since");
  assert.equal(source.receiptsCorrupt.count, 3, "the torn line, closed off, is a corrupt line now");
  // Another file renamed over the log (a mirror started over), a few lines longer than what was read: read anew.
  const replacement = join(state, "receipts.next");
  const readUpTo = statSync(join(state, "receipts.jsonl")).size;
  const fresh: string[] = [];
  for (let bytes = 0, extra = 0; extra < 10; extra += bytes > readUpTo ? 1 : 0) {
    fresh.push(receiptLines(1, next, 10_000 + fresh.length)[0]!);
    bytes += Buffer.byteLength(fresh.at(-1)!) + 1;
  }
  writeFileSync(replacement, fresh.join("\n") + "\n", { mode: 0o600 });
  renameSync(replacement, join(state, "receipts.jsonl"));
  await source.refresh();
  assert.deepEqual(source.receipts.map((receipt) => receipt.id), newest(500), "the new file's newest");
  assert.equal(source.receiptsCorrupt.count, 0);
});
