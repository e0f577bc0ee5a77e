// The compaction's files (archive, marker, new file, record of the swap) and the indexes (index/, their
// meta and segments) are trusted as every state file is: a link planted in place of one, or a
// file another user owns (uid 4242, set with chown: tests run as root), is refused with a coded error,
// the link's target is never written or read, and once it is taken away every record reads as before.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chownSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, tempPeerpost, type TestPeerpost } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { CLI } from "./helpers/mcp.js";

const DAY = 86_400_000;
const OTHER = 4242;
const isRoot = process.geteuid?.() === 0;

/** A mailbox compacted once (archive and indexes written), with more finished mail the next compaction would move. */
async function compactedOnce(t: TestContext) {
  const temp = tempPeerpost(t, { PEERPOST_RETENTION_DAYS: "30" });
  const { peerpost, clock } = temp;
  const send = async (body: string) => (await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body, anticipation: "reply" })).message.id;
  const archived = await send("archived");
  await peerpost.mailbox.resolve({ id: archived, by: "codex:b", resolution: "done" });
  clock.now += 40 * DAY;
  assert.ok((await peerpost.mailbox.compact()).movedMessages > 0);
  const next = await send("to move next");
  await peerpost.mailbox.resolve({ id: next, by: "codex:b", resolution: "done" });
  clock.now += 40 * DAY;
  return { ...temp, archived };
}

function cli({ home, stateDir, clock }: TestPeerpost, ...args: string[]) {
  const env = { PATH: "/usr/bin:/bin", HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now) };
  return collect(spawn(process.execPath, [CLI, ...args, "--json"], { env, stdio: ["ignore", "pipe", "pipe"] }));
}

/** Every line of the live log and the archive, sorted: what must survive a refusal. */
function records(stateDir: string): string[] {
  const lines = (name: string) => (existsSync(join(stateDir, name)) ? readFileSync(join(stateDir, name), "utf8").split("\n").filter(Boolean) : []);
  return [...new Set([...lines("mailbox.jsonl"), ...lines("mailbox.archive.jsonl")])].sort();
}

/** The archive index's first segment, relative to the state dir (its meta lists it). */
function firstSegment(stateDir: string): string {
  const meta = JSON.parse(readFileSync(join(stateDir, "index/archive/meta.json"), "utf8")) as { segments: string[] };
  return `index/archive/segments/${meta.segments[0]}`;
}

/** The state files and dirs each check covers, relative to the state dir, and the command that reads or writes them. */
function targets({ stateDir, archived }: { stateDir: string; archived: string }): Array<{ path: string; command: string[] }> {
  const status = ["status", archived];
  return [
    { path: "mailbox.archive.jsonl", command: status },
    { path: "mailbox.archive.jsonl", command: ["compact"] },
    { path: "mailbox.jsonl.compacting.json", command: ["compact"] },
    { path: "mailbox.jsonl.next", command: ["compact"] },
    { path: "mailbox.jsonl.swapped.json", command: ["compact"] },
    { path: "index", command: status },
    { path: "index/archive", command: status },
    { path: "index/archive/meta.json", command: status },
    { path: "index/mailbox/meta.json", command: status },
    // A status reads its message's lines through the archive index's segments; the task board reads the archive's task lines through them too.
    { path: "index/archive/segments", command: status },
    { path: firstSegment(stateDir), command: ["task", "list"] },
    { path: firstSegment(stateDir), command: status },
  ];
}

const TARGETS = 12;

async function refused(temp: TestPeerpost, command: string[], path: string, problem: RegExp): Promise<void> {
  const result = await cli(temp, ...command);
  assert.notEqual(result.code, 0, `${command.join(" ")} with ${path}: ${result.stdout}`);
  const error = (JSON.parse(result.stdout) as { error: { code: string; message: string } }).error;
  assert.equal(error.code, "permission_denied", `${command.join(" ")} with ${path}: ${error.message}`);
  assert.match(error.message, problem);
}

test("a link planted in place of a compaction file, an index file or an index dir is refused, never followed, and nothing is lost", async (t) => {
  for (let index = 0; index < TARGETS; index++) {
    const temp = await compactedOnce(t);
    const { stateDir } = temp;
    const target = targets(temp)[index]!;
    const full = join(stateDir, target.path);
    const before = records(stateDir);
    const outside = tempDir(t);
    const victim = join(outside, "victim");
    const isDir = existsSync(full) && lstatSync(full).isDirectory();
    if (isDir) mkdirSync(victim);
    else writeFileSync(victim, "not peerpost's\n", { mode: 0o600 });
    const aside = `${full}.aside`;
    if (existsSync(full)) renameSync(full, aside);
    symlinkSync(victim, full);
    await refused(temp, target.command, target.path, /symbolic link/);
    if (isDir) assert.deepEqual(readdirSync(victim), [], `nothing written through ${target.path}`);
    else assert.equal(readFileSync(victim, "utf8"), "not peerpost's\n", `nothing written through ${target.path}`);
    rmSync(full);
    if (existsSync(aside)) renameSync(aside, full);
    assert.deepEqual(records(stateDir), before, `every record is still there after ${target.path} was refused`);
    assert.equal((await cli(temp, "status", temp.archived)).code, 0, "the archived message reads again");
    assert.equal((await cli(temp, "compact")).code, 0, "and the mailbox compacts again");
  }
});

test("a compaction file or an index file another user owns is refused untouched, and nothing is lost", { skip: isRoot ? false : "needs root to chown" }, async (t) => {
  for (let index = 0; index < TARGETS; index++) {
    const temp = await compactedOnce(t);
    const { path, command } = targets(temp)[index]!;
    // Files only: a dir another user owns is the state dir check's (trust.test.ts).
    if (!path.includes(".")) continue;
    const { stateDir } = temp;
    const full = join(stateDir, path);
    const before = records(stateDir);
    const created = !existsSync(full);
    if (created) writeFileSync(full, "another user's\n", { mode: 0o600 });
    const content = readFileSync(full);
    chownSync(full, OTHER, OTHER);
    await refused(temp, command, path, /belongs to another user/);
    assert.deepEqual(readFileSync(full), content, `${path} is left as it was`);
    assert.equal(lstatSync(full).uid, OTHER);
    if (created) rmSync(full);
    else chownSync(full, 0, 0);
    assert.deepEqual(records(stateDir), before, `every record is still there after ${path} was refused`);
    assert.equal((await cli(temp, "status", temp.archived)).code, 0, "the archived message reads again");
  }
});
