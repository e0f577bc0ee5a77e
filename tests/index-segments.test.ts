// The archive's index in segments (index-storage.ts, index-segment.ts): a compaction's moves are indexed
// into one file, lookups find their entries in each segment, damage to a segment is found (on read,
// and by doctor for what no reader met) and the index rebuilt from the archive, an archive index left in
// the old layout (a file per scope and bucket) is rebuilt into segments, a segment an extension that
// died left unlisted is removed, and a start-over of the live log's index reuses its files.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { existsSync, linkSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { tempDir, tempPeerpost } from "./helpers/temp.js";
import { cli, json } from "./helpers/cli.js";
import { Segment, writeSegment } from "../core/store/file/index-segment.js";
import { ScopeIndex } from "../core/store/file/scope-index.js";
import { indexScopes } from "../core/mail/scopes.js";
import { segmentBucket } from "../core/store/file/index-storage.js";
import { fnv1a64 } from "../core/common/hash.js";
import { damageNotes } from "../core/store/file/index-damage.js";
import { spawnFixture } from "./helpers/children.js";
import { readersDuringRebuilds } from "./helpers/index-race.js";

const DAY = 86_400_000;

test("doctor's check of a segment finds an entry filed under a hash not its name's, which a lookup would pass over", (t) => {
  const path = join(tempDir(t), "one.seg");
  const entries = Array.from({ length: 100 }, (_, at) => [`name ${at}`, `${at}\n`] as const);
  writeSegment(path, entries);
  const bytes = readFileSync(path);
  const tableStart = bytes.readDoubleLE(16);
  const slot = tableStart + 50 * 24 + 4;
  bytes.writeUInt32LE(bytes.readUInt32LE(slot) ^ 1, slot);
  writeFileSync(path, bytes);
  const segment = new Segment(path);
  try {
    assert.throws(() => segment.verify(), /filed under a hash that is not its name's/);
  } finally {
    segment.close();
  }
});

test("a segment finds each of forty thousand entries by name, says nothing of names it lacks, and refuses a damaged entry", (t) => {
  const path = join(tempDir(t), "one.seg");
  const entries = Array.from({ length: 40_000 }, (_, at) => [`name ${at}`, `${at}\n`.repeat(at % 7)] as const);
  writeSegment(path, entries);
  const segment = new Segment(path);
  try {
    for (const [name, text] of entries) assert.equal(segment.text(name), text, name);
    for (let at = 40_000; at < 41_000; at++) assert.equal(segment.text(`name ${at}`), "");
    assert.equal(segment.text(""), "");
    segment.verify();
  } finally {
    segment.close();
  }
  // One byte of one entry's text changed: that entry is refused, others still read.
  const bytes = readFileSync(path);
  const at = bytes.indexOf(Buffer.from('"name 9999"\n'));
  bytes[at + 13] = 0x7a;
  writeFileSync(path, bytes);
  const damaged = new Segment(path);
  try {
    assert.throws(() => damaged.text("name 9999"), /does not match its checksum/);
    assert.equal(damaged.text("name 9998"), entries[9998]![1]);
    assert.throws(() => damaged.verify(), /does not match its checksum/);
  } finally {
    damaged.close();
  }
  // The header's count lowered by one: the table no longer ends the file, so the last entry cannot silently vanish.
  const counted = readFileSync(path);
  counted.writeUInt32LE(39_999, 8);
  writeFileSync(path, counted);
  assert.throws(() => new Segment(path), /truncated/);
  truncateSync(path, 100);
  assert.throws(() => new Segment(path), /truncated/);
  writeFileSync(path, "not a segment at all, but long enough to have a header\n");
  assert.throws(() => new Segment(path), /no index segment/);
});

test("a segment finds entries whose hashes crowd both ends of its table, where a lookup's first read misses their place", (t) => {
  // Names by the first 32 bits of their SHA-1 (the table's order): 600 near 0, 600 near 2^32, one between.
  const hashOf = (name: string) => createHash("sha1").update(name).digest().readUInt32LE(0);
  const low: string[] = [];
  const high: string[] = [];
  let middle: string | undefined;
  for (let at = 0; low.length < 600 || high.length < 600 || middle === undefined; at++) {
    const name = `name ${at}`;
    const hash = hashOf(name);
    if (hash < 0x0100_0000 && low.length < 600) low.push(name);
    else if (hash >= 0xff00_0000 && high.length < 600) high.push(name);
    else if (hash >= 0x8000_0000 && hash < 0x8100_0000) middle ??= name;
  }
  const path = join(tempDir(t), "crowded.seg");
  const names = [...low, middle!, ...high];
  writeSegment(path, names.map((name) => [name, `${name}\n`] as const));
  const segment = new Segment(path);
  try {
    // A low name past the first read's 256 slots lies after them; a high one before them.
    for (const name of names) assert.equal(segment.text(name), `${name}\n`, name);
    assert.equal(segment.text("not there"), "");
  } finally {
    segment.close();
  }
});

/** A store whose compactions moved mail twice: two segments in the archive's index. */
async function twiceCompacted(t: TestContext) {
  const temp = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const { peerpost, clock } = temp;
  const done = async (to: string, body: string) => {
    const { message } = await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to, body, anticipation: "reply" });
    await peerpost.mailbox.resolve({ id: message.id, by: to, resolution: "done" });
    return message.id;
  };
  const first = [await done("codex:b", "first round, to b"), await done("grok:c", "first round, to c")];
  clock.now += 40 * DAY;
  assert.ok((await peerpost.mailbox.compact()).movedMessages === 2);
  const second = [await done("codex:b", "second round, to b")];
  clock.now += 40 * DAY;
  assert.ok((await peerpost.mailbox.compact()).movedMessages === 1);
  const indexDir = join(temp.stateDir, "index", "archive");
  const meta = () => JSON.parse(readFileSync(join(indexDir, "meta.json"), "utf8")) as { covered: number; segments: string[] };
  const env = { HOME: temp.home, PEERPOST_HOME: temp.stateDir, PEERPOST_NOW: String(clock.now) };
  return { ...temp, first, second, indexDir, meta, env };
}

async function statusOf(env: Record<string, string>, id: string): Promise<string> {
  const result = await cli(env, "status", id, "--json");
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const { message } = json(result) as { message: { id: string; bodyBytes: number; status: string; history: unknown[] } };
  return `${message.id} ${message.status} ${message.bodyBytes} bytes, ${message.history.length} events`;
}

test("each compaction adds one segment to the archive's index and no file per scope; lookups find mail in every segment", async (t) => {
  const m = await twiceCompacted(t);
  const { segments, covered, v } = m.meta() as ReturnType<typeof m.meta> & { v: number };
  assert.equal(segments.length, 2);
  // A version of its own: a peerpost from before segments takes it for no index (it would read no scopes/ and find nothing),
  // as one from before SHA-1 checksums does (6).
  assert.equal(v, 6);
  assert.deepEqual(readdirSync(m.indexDir).sort(), ["meta.json", "segments"]);
  assert.deepEqual(readdirSync(join(m.indexDir, "segments")).sort(), [...segments].sort());
  assert.equal(covered, statSync(join(m.stateDir, "mailbox.archive.jsonl")).size);
  for (const id of [...m.first, ...m.second]) assert.match(await statusOf(m.env, id), new RegExp(`^${id} done `));
  // The index answers the lookup: its segments name each message (a scan would answer the same, so this reads them directly).
  const peerpost = m.reopen();
  for (const id of [...m.first, ...m.second]) assert.ok(peerpost.mailbox.archiveIndex.message(id), id);
  assert.deepEqual(peerpost.mailbox.archiveIndex.lookup("codex:b")!.offsets.length, 4, "b's two messages, each sent and resolved");
});

/** Damage to a segment that holds message `id` (the entry a status of it reads). */
const segmentDamages: Record<string, (path: string, id: string) => void> = {
  "flipped byte": (path, id) => {
    const bytes = readFileSync(path);
    // In the text of the entry of the message's bucket, after its name.
    const name = Buffer.from(`${JSON.stringify(`k ${segmentBucket(id)}`)}\n`);
    const at = bytes.indexOf(name) + name.length + 3;
    assert.ok(at > name.length);
    bytes[at] = bytes[at]! ^ 0x20;
    writeFileSync(path, bytes);
  },
  truncated: (path) => truncateSync(path, Math.floor(statSync(path).size / 2)),
  "header overwritten": (path) => {
    const bytes = readFileSync(path);
    bytes.write("garbage!", 0);
    writeFileSync(path, bytes);
  },
};

for (const [kind, damage] of Object.entries(segmentDamages)) {
  test(`a ${kind} archive index segment is found on read and rebuilt: status shows what it showed, health warns, doctor names it`, async (t) => {
    const m = await twiceCompacted(t);
    const before = await Promise.all([...m.first, ...m.second].map((id) => statusOf(m.env, id)));
    const [firstSegment] = m.meta().segments;
    damage(join(m.indexDir, "segments", firstSegment!), m.first[0]!);
    const after = await Promise.all([...m.first, ...m.second].map((id) => statusOf(m.env, id)));
    assert.deepEqual(after, before);
    const health = await cli(m.env, "health", "--json");
    const warnings = (json(health).warnings as Array<{ code: string; message: string }>).filter((warning) => warning.code === "index_rebuilt");
    assert.ok(warnings.some((warning) => warning.message.includes(`index/archive/segments/${firstSegment}`)), JSON.stringify(warnings));
    // The next extension rebuilds it (ours, or a detached index-run a reader started): new segments, the damaged one gone.
    const { mailbox } = m.reopen();
    for (const start = Date.now(); mailbox.archiveIndexLags() && Date.now() - start < 30_000; await delay(50)) mailbox.indexAll();
    assert.ok(!m.meta().segments.includes(firstSegment!));
    assert.ok(!existsSync(join(m.indexDir, "segments", firstSegment!)));
  });
}

test("past 16 segments an extension merges them into one: lookups find every message, and the next extension removes the merged ones", async (t) => {
  const temp = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const { peerpost, clock } = temp;
  const indexDir = join(temp.stateDir, "index", "archive");
  const listed = () => (JSON.parse(readFileSync(join(indexDir, "meta.json"), "utf8")) as { segments: string[] }).segments;
  const ids: string[] = [];
  for (let round = 0; round < 18; round++) {
    const { message } = await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: round % 2 ? "codex:b" : "grok:c", body: `round ${round}`, anticipation: "reply" });
    await peerpost.mailbox.resolve({ id: message.id, by: message.to, resolution: "done" });
    ids.push(message.id);
    clock.now += 40 * DAY;
    assert.equal((await peerpost.mailbox.compact()).movedMessages, 1);
    assert.equal(listed().length, round < 16 ? round + 1 : round - 15, `segments after compaction ${round + 1}`);
  }
  assert.deepEqual(readdirSync(join(indexDir, "segments")).sort(), [...listed()].sort(), "the merged segments removed by the next extension");
  const { archiveIndex } = peerpost.mailbox;
  for (const id of ids) assert.ok(archiveIndex.message(id), id);
  assert.equal(archiveIndex.lookup("codex:b")!.offsets.length, 18, "b's nine messages, each sent and resolved, in log order");
  const offsets = archiveIndex.lookup("grok:c")!.offsets;
  assert.deepEqual(offsets, [...offsets].sort((a, b) => a - b));
  const env = { HOME: temp.home, PEERPOST_HOME: temp.stateDir, PEERPOST_NOW: String(clock.now) };
  for (const id of [ids[0]!, ids[16]!, ids[17]!]) assert.match(await statusOf(env, id), new RegExp(`^${id} done `));
  const doctor = await cli(env, "doctor", "--json");
  const problems = (json(doctor).problems as Array<{ problem: string }>).map((entry) => entry.problem);
  assert.ok(!problems.some((problem) => problem.startsWith("index file")), problems.join("\n"));
});

test("readers of the archive's index while another process starts it over again and again note no damage and void nothing: each lookup answers right or finds no index", async (t) => {
  const m = await twiceCompacted(t);
  const { mailbox } = m.reopen();
  const expected = [...m.first, ...m.second].map((id) => `${id}=${mailbox.archiveIndex.message(id)!.o}`);
  // Readers as hooks are, each lookup through an index object of its own, while the start-overs go on.
  const { rebuilds, seen } = await readersDuringRebuilds(spawnFixture("index-rebuilder", [m.stateDir, "4000"], { HOME: m.home }), () => spawnFixture("index-reader", [m.stateDir, "300", ...expected], { HOME: m.home }));
  assert.deepEqual(seen.wrong, []);
  assert.ok(rebuilds > 20 && seen.answered > 20, JSON.stringify({ rebuilds, ...seen }));
  assert.deepEqual(damageNotes(m.indexDir, Infinity), [], `no damage noted (${rebuilds} start-overs, ${seen.answered + seen.missing} lookups)`);
  assert.ok(mailbox.archiveIndex.message(m.first[0]!), "the index the last start-over wrote stands");
});

test("doctor names every damaged segment of the archive's index, not only the first it voids the index for", async (t) => {
  const m = await twiceCompacted(t);
  const { segments } = m.meta();
  assert.equal(segments.length, 2);
  // Both segments damaged (a failing disk, a sync tool).
  for (const name of segments) segmentDamages["flipped byte"]!(join(m.indexDir, "segments", name), name === segments[0] ? m.first[0]! : m.second[0]!);
  const doctor = await cli(m.env, "doctor", "--json");
  const problems = (json(doctor).problems as Array<{ problem: string }>).map((entry) => entry.problem);
  const named = segments.filter((name) => problems.some((problem) => problem.startsWith(`index file index/archive/segments/${name} does not match its checksum`)));
  assert.deepEqual(named, segments, problems.join("\n"));
});

test("doctor checks every segment itself and names damage no reader met", async (t) => {
  const m = await twiceCompacted(t);
  const second = m.meta().segments[1]!;
  const path = join(m.indexDir, "segments", second);
  const bytes = readFileSync(path);
  bytes[30] = bytes[30]! ^ 0x01;
  writeFileSync(path, bytes);
  const doctor = await cli(m.env, "doctor", "--json");
  const problems = (json(doctor).problems as Array<{ problem: string }>).map((entry) => entry.problem);
  assert.ok(problems.some((problem) => problem.startsWith(`index file index/archive/segments/${second} does not match its checksum`)), problems.join("\n"));
});

test("an archive index in the old layout is rebuilt into segments, its scope and bucket files removed; a segment an extension left unlisted is removed by the next", async (t) => {
  const m = await twiceCompacted(t);
  const peerpost = m.reopen();
  const { archive } = peerpost.mailbox;
  // The layout before segments: a file per scope and per id bucket, its meta listing no segments.
  rmSync(m.indexDir, { recursive: true });
  const old = new ScopeIndex(archive, m.indexDir, indexScopes);
  assert.equal(old.extend(), statSync(join(m.stateDir, "mailbox.archive.jsonl")).size);
  assert.ok(existsSync(join(m.indexDir, "scopes", `${fnv1a64("codex:b")}.offs`)));
  assert.equal(peerpost.mailbox.archiveIndexLags(), true, "an index of key files is no index of segments");
  // Each status would start a detached index-run, which could hold the extension's lock when this test extends: held off by a run file of this process.
  const runFile = join(m.stateDir, "index-run.pid");
  writeFileSync(runFile, `${process.pid}\n`, { mode: 0o600 });
  for (const id of [...m.first, ...m.second]) assert.match(await statusOf(m.env, id), new RegExp(`^${id} done `), "read by a scan meanwhile");
  rmSync(runFile);
  peerpost.mailbox.indexAll();
  assert.equal(peerpost.mailbox.archiveIndexLags(), false);
  assert.deepEqual(readdirSync(m.indexDir).sort(), ["meta.json", "segments"]);
  assert.equal(m.meta().segments.length, 1, "one segment for the whole archive");
  // A segment written by an extension that died before its meta: not listed, not read, removed by the next extension.
  const orphan = join(m.indexDir, "segments", "0-1-1-x-1.seg");
  writeFileSync(orphan, "left by a dead extension", { mode: 0o600 });
  const { message } = await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "third round", anticipation: "reply" });
  await peerpost.mailbox.resolve({ id: message.id, by: "codex:b", resolution: "done" });
  m.clock.now += 40 * DAY;
  assert.equal((await peerpost.mailbox.compact()).movedMessages, 1);
  assert.ok(!existsSync(orphan));
  assert.equal(m.meta().segments.length, 2);
  assert.match(await statusOf({ ...m.env, PEERPOST_NOW: String(m.clock.now) }, message.id), new RegExp(`^${message.id} done 11 bytes`));
});

test("an archive index of segments from before SHA-1 checksums (version 5) is rebuilt quietly, not taken for damage", async (t) => {
  const m = await twiceCompacted(t);
  // What the version before wrote: the same layout, its meta at 5, its segments' header PPSEG01.
  const before = m.meta();
  writeFileSync(join(m.indexDir, "meta.json"), JSON.stringify({ ...before, v: 5 }), { mode: 0o600 });
  for (const name of before.segments) {
    const path = join(m.indexDir, "segments", name);
    writeFileSync(path, Buffer.concat([Buffer.from("PPSEG01\n"), readFileSync(path).subarray(8)]));
  }
  const peerpost = m.reopen();
  assert.equal(peerpost.mailbox.archiveIndexLags(), true, "a version-5 index is no index of this version");
  peerpost.mailbox.indexAll();
  assert.equal(peerpost.mailbox.archiveIndexLags(), false);
  assert.equal((m.meta() as ReturnType<typeof m.meta> & { v: number }).v, 6);
  assert.ok(!existsSync(join(m.indexDir, "damage.json")), "no damage noted");
  for (const id of [...m.first, ...m.second]) assert.match(await statusOf(m.env, id), new RegExp(`^${id} done `));
});

test("a start-over of the live log's index after a compaction reuses its files, empties those it no longer needs and removes them at the next one; doctor finds no damage", async (t) => {
  const temp = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const { peerpost, clock, stateDir } = temp;
  const scopes = join(stateDir, "index", "mailbox", "scopes");
  const file = (address: string) => join(scopes, `${fnv1a64(address)}.offs`);
  const send = async (to: string, body: string) => (await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to, body, anticipation: "reply" })).message;
  const gone = await send("grok:gone", "resolved, then archived");
  await peerpost.mailbox.resolve({ id: gone.id, by: "grok:gone", resolution: "done" });
  const open = await send("codex:stays", "still open");
  peerpost.mailbox.indexAll();
  const inodeBefore = statSync(file("codex:stays")).ino;
  assert.ok(statSync(file("grok:gone")).size > 0);
  clock.now += 40 * DAY;
  assert.equal((await peerpost.mailbox.compact()).movedMessages, 1);
  assert.equal(statSync(file("codex:stays")).ino, inodeBefore, "the same file, emptied and written again");
  assert.equal(peerpost.mailbox.index.lookup("codex:stays")!.offsets.length, 1);
  assert.equal(statSync(file("grok:gone")).size, 0, "a scope the new log lacks: emptied");
  assert.equal(JSON.parse(readFileSync(`${file("grok:gone")}.sum`, "utf8")).bytes, 0, "its sum, the sum of no bytes");
  // A lookup of that scope finds nothing, and no damage.
  assert.deepEqual(peerpost.mailbox.index.lookup("grok:gone")!.offsets, []);
  assert.deepEqual(peerpost.mailbox.index.damageNotes(), []);
  const env = { HOME: temp.home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now) };
  const doctor = await cli(env, "doctor", "--json");
  const problems = (json(doctor).problems as Array<{ problem: string }>).map((entry) => entry.problem);
  assert.ok(!problems.some((problem) => problem.startsWith("index file")), problems.join("\n"));
  assert.match(await statusOf(env, open.id), new RegExp(`^${open.id} queued 10 bytes`));
  // The next start-over removes what stayed empty since the last.
  await peerpost.mailbox.resolve({ id: open.id, by: "codex:stays", resolution: "done" });
  await send("copilot:new", "keeps the log alive");
  clock.now += 40 * DAY;
  assert.equal((await peerpost.mailbox.compact()).movedMessages, 1);
  assert.ok(!existsSync(file("grok:gone")) && !existsSync(`${file("grok:gone")}.sum`));
  assert.ok(existsSync(file("copilot:new")));
});

test("a start-over never writes through a hard link in the index: a file linked from elsewhere is removed, not emptied", async (t) => {
  const temp = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const { peerpost, clock, stateDir } = temp;
  const outside = join(tempDir(t), "precious.txt");
  writeFileSync(outside, "precious data\n", { mode: 0o600 });
  await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "stays", anticipation: "reply" });
  peerpost.mailbox.indexAll();
  const scopes = join(stateDir, "index", "mailbox", "scopes");
  const linked = join(scopes, `${fnv1a64("codex:b")}.offs`);
  rmSync(linked);
  linkSync(outside, linked);
  linkSync(outside, join(scopes, "planted"));
  const { message } = await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:c", body: "moves", anticipation: "reply" });
  await peerpost.mailbox.resolve({ id: message.id, by: "codex:c", resolution: "done" });
  clock.now += 40 * DAY;
  assert.equal((await peerpost.mailbox.compact()).movedMessages, 1);
  assert.equal(readFileSync(outside, "utf8"), "precious data\n");
  assert.ok(!existsSync(join(scopes, "planted")));
  assert.equal(statSync(outside).nlink, 1, "both links in the index removed");
  assert.equal(peerpost.mailbox.index.lookup("codex:b")!.offsets.length, 1, "and the index is right");
});
