// Damage to the per-address index (index/mailbox/scopes/): a deleted, truncated, shifted or swapped
// offsets file, or a random byte flip, is found on read and the index rebuilt from the log. The inbox
// (the CLI), the prompt hook and a fresh MCP `read` each show the mail they showed before the damage;
// `health` warns `index_rebuilt` and `doctor` names what was wrong.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, existsSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";
import { cli, json } from "./helpers/cli.js";
import { runHook } from "./helpers/hooks.js";
import { openPeerpost } from "../core/peerpost.js";
import { fnv1a64 } from "../core/common/hash.js";

const BOB = "claude:bob";
const ALICE = "codex:alice";
/** Mail between others only: its offsets file in bob's place hides all of bob's. */
const DAN = "grok:dan";
const IDS = /01[0-9A-HJKMNP-TV-Z]{24}/g;

/** A state dir whose log is past the size readers index on their way: others' mail, and bob's, some of it read and answered. */
async function machine(t: TestContext) {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  const peerpost = openPeerpost({ env, home });
  t.after(() => peerpost.backend.close());
  const { mailbox } = peerpost;
  for (let i = 0; i < 160; i++) await mailbox.send({ from: "copilot:carol", fromVerified: true, to: i % 2 ? ALICE : DAN, body: `filler ${i} ${"x".repeat(500)}`, anticipation: "fyi" });
  for (let i = 0; i < 8; i++) {
    const { message } = await mailbox.send({ from: ALICE, fromVerified: true, to: BOB, body: `to bob #${i}`, anticipation: i % 2 ? "reply" : "fyi" });
    if (i < 3) await mailbox.markRead(BOB, [message.id]);
    if (i === 1) await mailbox.resolve({ id: message.id, by: BOB, resolution: "reply", text: "answered" });
  }
  await mailbox.send({ from: BOB, fromVerified: true, to: ALICE, body: "from bob", anticipation: "fyi" });
  assert.ok(mailbox.indexAll()! > 64 * 1024);
  const scopes = join(stateDir, "index", "mailbox", "scopes");
  const offsets = (address: string) => join(scopes, `${fnv1a64(address)}.offs`);
  assert.ok(existsSync(offsets(BOB)) && existsSync(offsets(DAN)));
  const fresh = () => rmSync(join(stateDir, "cache"), { recursive: true, force: true });
  return { home, stateDir, env, offsets, fresh };
}

type Machine = Awaited<ReturnType<typeof machine>>;

/** What each reader shows of bob's mail: the CLI inbox's ids, the prompt hook's note, the ids a new server's `read` returns. */
const readers = {
  async inbox(m: Machine) {
    const result = await cli(m.env, "inbox", BOB, "--all", "--json");
    assert.equal(result.code, 0, result.stderr);
    return (json(result).messages as Array<{ id: string; status: string }>).map((message) => `${message.id} ${message.status}`).join("\n");
  },
  async hook(m: Machine) {
    const result = await runHook("claude-code", "user-prompt", { session_id: "bob", hook_event_name: "UserPromptSubmit", prompt: "hi" }, m.env);
    assert.equal(result.code, 0, result.stderr);
    const note = (JSON.parse(result.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    return /peerpost: \d+ new messages? [^.]*/.exec(note)![0];
  },
  async read(m: Machine, t: TestContext) {
    const bob = await connect(t, { ...m.env, PEERPOST_ADDRESS: BOB });
    const result = await bob.call("read", { unreadOnly: false, limit: 200 });
    assert.equal(result.ok, true, JSON.stringify(result));
    await bob.client.close();
    return (result.messages as Array<{ id: string }>).map((message) => message.id).join("\n");
  },
};

const damages: Record<string, (m: Machine) => void> = {
  deleted: (m) => rmSync(m.offsets(BOB)),
  truncated: (m) => truncateSync(m.offsets(BOB), Math.floor(readFileSync(m.offsets(BOB)).length / 2)),
  shifted: (m) => {
    const lines = readFileSync(m.offsets(BOB), "utf8").trim().split("\n");
    writeFileSync(m.offsets(BOB), lines.map((line) => String(Number(line) + 37)).join("\n") + "\n");
  },
  swapped: (m) => copyFileSync(m.offsets(DAN), m.offsets(BOB)),
  "flipped byte": (m) => {
    const bytes = readFileSync(m.offsets(BOB));
    const at = Math.floor(Math.random() * bytes.length);
    bytes[at] = bytes[at]! ^ (1 + Math.floor(Math.random() * 255));
    writeFileSync(m.offsets(BOB), bytes);
  },
};

for (const [kind, damage] of Object.entries(damages)) {
  test(`a ${kind} offsets file is found on read and rebuilt: inbox, prompt hook and a new server's read show the mail they showed before`, async (t) => {
    const m = await machine(t);
    const before: Record<string, string> = {};
    for (const [name, reader] of Object.entries(readers)) {
      if (name === "read") continue;
      m.fresh();
      before[name] = await reader(m, t);
    }
    assert.equal(before.inbox!.split("\n").length, 8, "the eight messages to bob");
    assert.match(before.hook!, /5 new messages/);
    // Each reader meets the damage itself (the one before it rebuilt the index).
    for (const [name, reader] of Object.entries(readers)) {
      m.fresh();
      damage(m);
      const after = await reader(m, t);
      if (name === "read") assert.deepEqual(after.match(IDS)!.sort(), before.inbox!.match(IDS)!.sort(), `${kind}: read`);
      else assert.equal(after, before[name], `${kind}: ${name}`);
    }
    const server = await connect(t, { ...m.env, PEERPOST_ADDRESS: BOB });
    const health = await server.call("health");
    assert.ok((health.warnings as Array<{ code: string; message: string }>).some((warning) => warning.code === "index_rebuilt" && warning.message.includes(fnv1a64(BOB))), JSON.stringify(health.warnings));
    const doctor = await cli(m.env, "doctor");
    assert.equal(doctor.code, 1);
    assert.match(doctor.stdout, new RegExp(`index file index/mailbox/scopes/${fnv1a64(BOB)}\\.offs`));
    // doctor checks every index file itself: damage no reader has met yet is named too.
    copyFileSync(m.offsets(ALICE), m.offsets(DAN));
    const checked = await cli(m.env, "doctor", "--json");
    const problems = (json(checked).problems as Array<{ problem: string }>).map((entry) => entry.problem);
    assert.ok(problems.some((problem) => problem.startsWith(`index file index/mailbox/scopes/${fnv1a64(DAN)}.offs does not match its checksum`)), problems.join("\n"));
  });
}

test("doctor's check names a deleted offsets file even when another process extended the index during the check", async (t) => {
  const m = await machine(t);
  rmSync(m.offsets(BOB));
  const checker = openPeerpost({ env: m.env, home: m.home });
  const other = openPeerpost({ env: m.env, home: m.home });
  t.after(() => Promise.all([checker.backend.close(), other.backend.close()]));
  await other.mailbox.send({ from: ALICE, fromVerified: true, to: DAN, body: "one more", anticipation: "fyi" });
  // The other process's reader extends the index on its way while the check reads the whole of it (made certain here).
  const storage = (checker.mailbox.index as unknown as { storage: { verifyAll: (meta: unknown) => unknown[] } }).storage;
  const verify = storage.verifyAll.bind(storage);
  const meta = join(m.stateDir, "index", "mailbox", "meta.json");
  const metas = new Set<string>();
  storage.verifyAll = (current) => {
    const found = verify(current);
    other.mailbox.index.extend();
    metas.add(readFileSync(meta, "utf8"));
    return found;
  };
  metas.add(readFileSync(meta, "utf8"));
  const notes = checker.mailbox.index.verifyAll();
  assert.ok(metas.size >= 2, "the index was extended during the check");
  assert.deepEqual(notes.map((note) => note.file), [`scopes/${fnv1a64(BOB)}.offs`]);
  assert.equal(existsSync(meta), false, "the damaged index is void: the next extension starts over");
});
