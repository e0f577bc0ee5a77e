// A compaction decides the same on a log whose lines are laid out oddly (reordered keys, whitespace,
// unicode escapes, a record spelled out inside a body) as on the same records as the writer lays them
// out, and the archive's index it leaves equals one built afresh from the archive.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { monotonicFactory } from "ulid";
import { mailboxEvent, type MailboxEvent } from "../core/records/schemas.js";
import { JsonlLog } from "../core/log/log.js";
import { ScopeIndex, EVERY_SCOPE } from "../core/store/file/scope-index.js";
import { indexScopes } from "../core/mail/scopes.js";
import { tempDir, tempPeerpost } from "./helpers/temp.js";
import { collect, spawnFixture } from "./helpers/children.js";

const DAY = 86_400_000;
const ADDRESSES = ["claude:a", "codex:b", "copilot:c", "grok:d"];

/** Records as the writer writes them (its key order): every event kind compaction reads. */
function records(count: number, start: number): MailboxEvent[] {
  const newId = monotonicFactory();
  const out: Record<string, unknown>[] = [];
  const iso = (time: number) => new Date(time).toISOString();
  let previous: string | undefined;
  for (let i = 0; i < count; i++) {
    const at = start + i * 1000;
    const id = newId(at);
    const [from, to] = [ADDRESSES[i % 4]!, ADDRESSES[(i + 1) % 4]!];
    const kind = i % 7;
    const body = [`plain ${i}`, `quote " and \\ and\nnewline ${i}`, `é😀 ${i}`, `looks like a record: {"v":1,"type":"resolved","id":"${previous ?? id}","resolution":"done","by":"${to}","at":"${iso(at)}"}`, `\u0001 control ${i}`][i % 5]!;
    out.push({ v: 1, type: "msg", id, from, fromVerified: i % 3 !== 0, to, ...(kind === 6 ? { via: "role:reviewer" } : {}), sentAt: iso(at), anticipation: kind === 2 ? "fyi" : "reply", ...(kind === 3 ? { replyBy: iso(at + 60_000) } : {}), ...(kind === 4 && previous ? { inReplyTo: previous } : {}), conversationId: previous && kind === 4 ? previous : id, hop: kind === 4 ? 2 : 1, body, ...(kind === 5 ? { idempotencyKey: `key-${i % 11}` } : {}) });
    out.push({ v: 1, type: "delivered", id, via: "claude-channel", at: iso(at) });
    if (kind !== 1 && kind !== 3) out.push({ v: 1, type: "read", id, by: to, at: iso(at) });
    if (kind === 0 || kind === 5) out.push({ v: 1, type: "resolved", id, resolution: "done", by: to, at: iso(at) });
    if (kind === 4) out.push({ v: 1, type: "resolved", id, resolution: "decline", reason: `no, "${i}"\n`, by: to, at: iso(at) });
    if (kind === 6) out.push({ v: 1, type: "reminder", id, n: 1, via: "claude-stop", at: iso(at) }, { v: 1, type: "noticed", id, via: "claude-stop", at: iso(at) });
    if (kind === 1) out.push({ v: 1, type: "undelivered", id, via: "claude-channel", at: iso(at) });
    previous = id;
  }
  return out as unknown as MailboxEvent[];
}

/** The same record in a layout the writer never uses but JSON.parse reads the same. */
const LAYOUTS: Array<(record: Record<string, unknown>) => string> = [
  (record) => JSON.stringify(record),
  (record) => JSON.stringify(Object.fromEntries(Object.entries(record).reverse())),
  (record) => `{ ${Object.entries(record).map(([key, value]) => `"${key}" : ${JSON.stringify(value)}`).join(" , ")} }`,
  // Every string escaped as \uXXXX: ids, addresses and times too.
  (record) => `{${Object.entries(record).map(([key, value]) => `"${key}":${typeof value === "string" ? `"${value.split("").map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")}"` : JSON.stringify(value)}`).join(",")}}`,
  (record) => JSON.stringify(record).replace(/"v":1/, '"v":1.0'),
  (record) => JSON.stringify(record).replace(/\//g, "\\/"),
];

function linesOf(path: string): string[] {
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : [];
}

/** A store whose log holds `lines` (old traffic, then corrupt lines among them), compacted; where each line went, by its index. */
async function compacted(t: TestContext, lines: string[]) {
  const { reopen, stateDir } = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  appendFileSync(join(stateDir, "mailbox.jsonl"), lines.map((line) => `${line}\n`).join(""), { mode: 0o600 });
  const result = await reopen().mailbox.compact();
  const archived = new Set(linesOf(join(stateDir, "mailbox.archive.jsonl")));
  return { result, placed: lines.map((line) => archived.has(line)), stateDir, reopen };
}

/** Old traffic (40 days before the clock of tempPeerpost) with a few corrupt lines. */
function oldTraffic(): MailboxEvent[] {
  return records(600, Date.parse("2026-01-01T00:00:00.000Z") - 40 * DAY);
}

test("compaction moves the same lines whichever layout they are written in: reordered keys, whitespace, unicode escapes, a record spelled out inside a body", async (t) => {
  const written = oldTraffic();
  const canonical = written.map((record) => JSON.stringify(record));
  canonical.splice(300, 0, `{"v":1,"type":"read","id":"${written[10]!.id}","by":"codex:b"`, "not json at all");
  const odd = canonical.map((line, index) => (line.startsWith("{") && line.endsWith("}") ? LAYOUTS[index % LAYOUTS.length]!(JSON.parse(line) as Record<string, unknown>) : line));
  const plain = await compacted(t, canonical);
  const laidOut = await compacted(t, odd);
  assert.ok(plain.result.movedMessages > 100, `messages moved: ${plain.result.movedMessages}`);
  assert.deepEqual({ ...laidOut.result, liveBytesBefore: 0, liveBytesAfter: 0, archiveBytes: 0 }, { ...plain.result, liveBytesBefore: 0, liveBytesAfter: 0, archiveBytes: 0 });
  assert.deepEqual(laidOut.placed, plain.placed, "each line goes to the same file");
  assert.equal(plain.placed[300], false, "a corrupt line stays");
});

/** The archive's index, scope by scope and message by message, as its lookups answer. */
function indexContents(index: ScopeIndex<MailboxEvent>, ids: string[]) {
  return {
    covered: index.covered(),
    scopes: [...ADDRESSES, "role:reviewer", EVERY_SCOPE].map((scope) => index.lookup(scope)),
    messages: ids.map((id) => index.message(id) ?? null),
  };
}

/** An index of the archive built afresh in another dir. */
function freshIndex(t: TestContext, stateDir: string) {
  const archive = new JsonlLog(join(stateDir, "mailbox.archive.jsonl"), mailboxEvent, { lockStaleMs: 10_000, lockTimeoutMs: 1000 });
  const index = new ScopeIndex(archive, join(tempDir(t), "fresh-index"), indexScopes);
  index.extend();
  return index;
}

test("the archive's index a compaction leaves equals one built afresh from the archive; one killed before indexing leaves the index behind, readers still find archived mail, and the next indexing brings it level", async (t) => {
  const written = oldTraffic();
  const ids = written.filter((record) => record.type === "msg").map((record) => record.id);
  const lines = written.map((record, index) => LAYOUTS[index % 3]!(record as unknown as Record<string, unknown>));
  const { stateDir, reopen } = await compacted(t, lines);
  assert.equal(reopen().mailbox.archiveIndexLags(), false);
  assert.deepEqual(indexContents(reopen().mailbox.archiveIndex, ids), indexContents(freshIndex(t, stateDir), ids));

  const killed = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  appendFileSync(join(killed.stateDir, "mailbox.jsonl"), lines.map((line) => `${line}\n`).join(""), { mode: 0o600 });
  const run = await collect(spawnFixture("compactor", [killed.stateDir], { PEERPOST_NOW: String(killed.clock.now), PEERPOST_RETENTION_DAYS: "30", PEERPOST_FAULT: "compact-after-rename" }));
  assert.equal(run.signal, "SIGKILL", run.stderr);
  const reader = killed.reopen();
  assert.equal(reader.mailbox.archiveIndexLags(), true, "the archive is ahead of its index");
  const archivedId = ids[0]!;
  assert.ok(!readFileSync(join(killed.stateDir, "mailbox.jsonl"), "utf8").includes(archivedId), "the message moved");
  assert.equal(reader.mailbox.find(archivedId)?.id, archivedId, "found in the archive without its index");
  reader.mailbox.indexAll();
  assert.equal(killed.reopen().mailbox.archiveIndexLags(), false);
  assert.deepEqual(indexContents(killed.reopen().mailbox.archiveIndex, ids), indexContents(freshIndex(t, killed.stateDir), ids));
});
