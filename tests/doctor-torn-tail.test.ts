// A torn last line (a writer stopped mid-line) is a note, not a problem: the next write closes it off as a
// line of its own that readers skip (it is never cut), nothing is lost, and doctor still exits 0.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { tempPeerpost, cliEnv, type TestPeerpost } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { CLI } from "./helpers/mcp.js";

async function doctor(temp: TestPeerpost): Promise<{ code: number | null; problems: Array<{ problem: string; fix: string }>; notes: string[] }> {
  const result = await collect(spawn(process.execPath, [CLI, "doctor", "--json"], { env: cliEnv(temp), stdio: ["ignore", "pipe", "pipe"] }));
  return { code: result.code, ...(JSON.parse(result.stdout) as { problems: Array<{ problem: string; fix: string }>; notes: string[] }) };
}

test("a torn last line is a note, not a problem, before the next write and after it: nothing is lost", async (t) => {
  const temp = tempPeerpost(t);
  const { peerpost } = temp;
  await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "before", anticipation: "fyi" });
  // A writer killed mid-line.
  appendFileSync(peerpost.mailbox.log.path, '{"v":1,"type":"msg","id":"01M');
  const torn = await doctor(temp);
  assert.deepEqual([torn.code, torn.problems], [0, []]);
  assert.ok(torn.notes.some((note) => note.startsWith("mailbox: the last line is incomplete") && note.includes("The next write closes it off")), JSON.stringify(torn.notes));
  // The next write closes the fragment off as a line readers skip.
  await temp.reopen().mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "after", anticipation: "fyi" });
  const after = await doctor(temp);
  assert.deepEqual([after.code, after.problems], [0, []]);
  assert.ok(after.notes.some((note) => note.startsWith("mailbox: 1 line(s) are not valid records")), JSON.stringify(after.notes));
  const bodies = Object.values(temp.reopen().mailbox.view("codex:b").state.messages).map((message) => temp.peerpost.mailbox.body(message));
  assert.deepEqual(bodies.sort(), ["after", "before"], "nothing is lost");
});
