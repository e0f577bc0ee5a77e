// The generic log: poison rows are skipped and reported but kept; a torn tail is never parsed and is
// repaired by the next writer; a huge line does not blow up a reader.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { JsonlLog } from "../core/log/log.js";
import { MAX_LINE_BYTES } from "../core/log/types.js";
import { mailboxEvent, type MailboxEvent } from "../core/records/schemas.js";
import { tempDir, tempPeerpost } from "./helpers/temp.js";

const options = { lockStaleMs: 10_000, lockTimeoutMs: 5_000 };

function validMessage(n: number): MailboxEvent {
  return {
    v: 1,
    type: "msg",
    id: `01JZZZZZZZZZZZZZZZZZZZZ${String(n).padStart(3, "0")}`,
    from: "claude:a",
    fromVerified: true,
    to: "codex:b",
    sentAt: "2026-01-01T00:00:00.000Z",
    anticipation: "fyi",
    conversationId: `01JZZZZZZZZZZZZZZZZZZZZ${String(n).padStart(3, "0")}`,
    hop: 1,
    body: `body ${n}`,
  };
}

function readAll(log: JsonlLog<MailboxEvent>) {
  const records: MailboxEvent[] = [];
  const result = log.scan(0, (entry) => records.push(entry.record));
  return { records, ...result };
}

test("poison rows are skipped and reported with offsets; the file is untouched and later appends still read", async (t) => {
  const dir = tempDir(t);
  const log = new JsonlLog(join(dir, "mailbox.jsonl"), mailboxEvent, options);
  await log.append([validMessage(1)]);
  const poison = [
    "{not json",
    JSON.stringify({ v: 1, type: "msg", id: "nope" }),
    JSON.stringify({ ...validMessage(9), v: 2 }),
    '{"v":1,"type":"msg"\u0000}',
    "\uFEFF" + JSON.stringify(validMessage(8)),
    JSON.stringify({ ...validMessage(7), body: "x".repeat(10 * 1024 * 1024) }),
    "",
  ];
  appendFileSync(log.path, poison.map((line) => line + "\n").join(""));
  const before = readFileSync(log.path);
  await log.append([validMessage(2)]);
  const after = readFileSync(log.path);
  assert.deepEqual(after.subarray(0, before.length), before, "appending keeps every poison byte");
  const { records, corrupt, tornTail } = readAll(log);
  assert.deepEqual(records.map((record) => record.id), [validMessage(1).id, validMessage(2).id]);
  assert.equal(tornTail, false);
  assert.equal(corrupt.length, poison.length);
  const reasons = corrupt.map((line) => line.reason);
  assert.match(reasons[0]!, /not valid JSON/);
  assert.match(reasons[1]!, /not a valid record/);
  assert.match(reasons[5]!, /longer than 1 MiB/);
  // Offsets point at the poison lines themselves.
  for (const [i, line] of corrupt.entries()) {
    const text = after.subarray(line.offset, line.offset + line.length).toString("utf8");
    assert.equal(text, poison[i] + "\n");
  }
});

test("a torn last line is never parsed, then closed off by the next writer and never glued onto a record", async (t) => {
  const dir = tempDir(t);
  const log = new JsonlLog(join(dir, "mailbox.jsonl"), mailboxEvent, options);
  await log.append([validMessage(1)]);
  const good = statSync(log.path).size;
  const torn = JSON.stringify(validMessage(2)).slice(0, 40);
  appendFileSync(log.path, torn);
  const first = readAll(log);
  assert.deepEqual(first.records.map((record) => record.id), [validMessage(1).id]);
  assert.equal(first.tornTail, true);
  assert.equal(first.next, good, "the next read starts at the torn line, not after it");
  assert.equal(first.corrupt.length, 0);
  // A reader that resumes at `next` sees the line once a writer completes it.
  appendFileSync(log.path, JSON.stringify(validMessage(2)).slice(40) + "\n");
  const resumed: string[] = [];
  log.scan(first.next, (entry) => resumed.push(entry.record.type === "msg" ? entry.record.id : ""));
  assert.deepEqual(resumed, [validMessage(2).id]);
  // A writer whose line lands after a torn tail finds it glued onto the fragment and writes it again: the
  // fragment (never acknowledged) stays as one reported line, and is never cut, since another writer may
  // still be writing it. Both append paths do it, for every record of a batch.
  const cases = [
    [[3, 4], () => log.append([validMessage(3), validMessage(4)])],
    [[5], () => log.transact(() => [validMessage(5)])],
  ] as const;
  for (const [numbers, append] of cases) {
    const fragmentAt = statSync(log.path).size;
    appendFileSync(log.path, '{"v":1,"type":"msg","id":"01J');
    const entries = await append();
    const final = readAll(log);
    assert.deepEqual(final.records.slice(-numbers.length).map((record) => record.id).sort(), numbers.map((n) => validMessage(n).id).sort());
    assert.equal(final.corrupt.at(-1)!.offset, fragmentAt);
    assert.match(final.corrupt.at(-1)!.reason, /not valid JSON/);
    assert.equal(final.tornTail, false);
    const found = Array.isArray(entries) ? entries : entries.entries;
    for (const entry of found) assert.deepEqual(log.readAt(entry.offset), entry.record, "each entry points at its whole line");
  }
  assert.deepEqual(readAll(log).records.map((record) => record.id).sort(), [1, 2, 3, 4, 5].map((n) => validMessage(n).id).sort());
});

test("files are created 0600 and a looser mode is tightened on append", async (t) => {
  const dir = tempDir(t);
  const log = new JsonlLog(join(dir, "mailbox.jsonl"), mailboxEvent, options);
  await log.append([validMessage(1)]);
  assert.equal(statSync(log.path).mode & 0o777, 0o600);
  writeFileSync(log.path, readFileSync(log.path), { mode: 0o644 });
  (await import("node:fs")).chmodSync(log.path, 0o644);
  await log.append([validMessage(2)]);
  assert.equal(statSync(log.path).mode & 0o777, 0o600);
});

test("a long-lived appender follows the path: a file renamed over the log gets its lines, and a link put there is refused", async (t) => {
  const dir = tempDir(t);
  const log = new JsonlLog(join(dir, "mailbox.jsonl"), mailboxEvent, options);
  await log.append([validMessage(1)]);
  const old = join(dir, "old.jsonl");
  linkSync(log.path, old);
  // What a compaction does: a new file renamed over the one this log holds open.
  writeFileSync(join(dir, "next.jsonl"), readFileSync(log.path), { mode: 0o600 });
  renameSync(join(dir, "next.jsonl"), log.path);
  await log.append([validMessage(2)]);
  await log.append([validMessage(3)]);
  assert.deepEqual(readAll(log).records.map((record) => record.id.slice(-3)), ["001", "002", "003"]);
  const oldIds = readFileSync(old, "utf8").trim().split("\n").map((line) => JSON.parse(line).id.slice(-3));
  assert.ok(!oldIds.includes("003"), `after the swap was seen, the old file gets nothing: ${oldIds}`);
  const outside = join(tempDir(t), "victim.txt");
  writeFileSync(outside, "precious\n");
  rmSync(log.path);
  symlinkSync(outside, log.path);
  await assert.rejects(log.append([validMessage(4)]), (error: { code?: string }) => error.code === "permission_denied");
  assert.equal(readFileSync(outside, "utf8"), "precious\n");
  // A link to the very file the appender holds open: refused too, as every reader refuses it.
  rmSync(log.path);
  const moved = join(tempDir(t), "moved.jsonl");
  writeFileSync(moved, "", { mode: 0o600 });
  symlinkSync(moved, log.path);
  const held = new JsonlLog(join(dir, "held.jsonl"), mailboxEvent, options);
  await held.append([validMessage(5)]);
  renameSync(held.path, moved);
  symlinkSync(moved, held.path);
  await assert.rejects(held.append([validMessage(6)]), (error: { code?: string }) => error.code === "permission_denied");
});

test("a deciding append keeps its descriptor while it decides: a plain append or a close that lets it go never hands its number to another file", async (t) => {
  const dir = tempDir(t);
  const log = new JsonlLog(join(dir, "mailbox.jsonl"), mailboxEvent, options);
  await log.append([validMessage(1)]);
  let started!: () => void;
  let decide!: () => void;
  const deciding = new Promise<void>((resolve) => (started = resolve));
  const decided = new Promise<void>((resolve) => (decide = resolve));
  const transacted = log.transact(async () => {
    started();
    await decided;
    return [validMessage(3)];
  });
  await deciding;
  // Meanwhile the path names another file, and a plain append of this process notices and lets the shared descriptor go.
  writeFileSync(join(dir, "next.jsonl"), readFileSync(log.path), { mode: 0o600 });
  renameSync(join(dir, "next.jsonl"), log.path);
  await log.append([validMessage(2)]);
  // And the log is closed (a process shutting down): the lowest free number goes to the next file opened.
  log.close();
  const other = join(dir, "other.txt");
  const fd = openSync(other, "w+", 0o600);
  t.after(() => closeSync(fd));
  decide();
  await transacted.catch(() => undefined);
  assert.equal(readFileSync(other, "utf8"), "", "the deciding append wrote into another file");
});

test("readAt reads one record at an offset without scanning the rest", async (t) => {
  const dir = tempDir(t);
  const log = new JsonlLog(join(dir, "mailbox.jsonl"), mailboxEvent, options);
  const entries = await log.append([validMessage(1), validMessage(2), validMessage(3)]);
  assert.equal(entries.length, 3);
  const second = log.readAt(entries[1]!.offset);
  assert.equal(second?.type === "msg" ? second.body : undefined, "body 2");
  assert.equal(log.readAt(entries[1]!.offset + 1), undefined, "an offset inside a line is not a record");
});

test("a corrupt mailbox line does not hide other messages from the inbox, and the mailbox counts it", async (t) => {
  const { peerpost, reopen } = tempPeerpost(t);
  await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "before" });
  appendFileSync(peerpost.mailbox.log.path, "garbage line\n");
  await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "after" });
  const store = reopen();
  assert.deepEqual(store.mailbox.inbox("codex:b").map((entry) => entry.body), ["before", "after"]);
  const corrupt = store.mailbox.corruptLines();
  assert.equal(corrupt.count, 1);
  assert.equal(corrupt.recent[0]?.reason, "not valid JSON");
  // The index counts what it covers (it parses every line), and later lines too.
  assert.ok(store.mailbox.indexAll()! > 0);
  appendFileSync(peerpost.mailbox.log.path, '{"v":1,"type":"read"}\n');
  const both = store.mailbox.corruptLines();
  assert.equal(both.count, 2);
  assert.equal(both.recent[0]?.reason, "not valid JSON");
  assert.match(both.recent[1]?.reason ?? "", /^not a valid record/);
});

test("a line too long to be a record is reported by a reader that passes over others' lines too", async (t) => {
  const dir = tempDir(t);
  const path = join(dir, "mailbox.jsonl");
  // Between 1 and 2 MiB: read whole in one chunk, so only the length check can tell it is not a record.
  appendFileSync(path, `{"short":1}\n${"x".repeat(MAX_LINE_BYTES + 10)}\n`);
  const log = new JsonlLog(path, mailboxEvent, options);
  assert.deepEqual(log.scan(0, () => undefined).corrupt.map((line) => line.offset), [0, 12]);
  const passingOver = log.scan(0, () => undefined, { wanted: () => false }).corrupt;
  assert.deepEqual(passingOver.map((line) => [line.offset, line.reason]), [[12, "line longer than 1 MiB"]]);
});
