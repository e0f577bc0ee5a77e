// doctor names a log's corrupt line by its byte offset. The report holds the most recent 20 with their
// offsets: past 20 it names the latest (not the 21st-last as "first"), and `tail -c +<offset+1>` on it shows that line.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, statSync } from "node:fs";
import { tempPeerpost, cliEnv } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { CLI } from "./helpers/mcp.js";

test("the corrupt line doctor calls first (or latest) is at the byte it names", async (t) => {
  const temp = tempPeerpost(t);
  const { peerpost } = temp;
  await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "before", anticipation: "fyi" });
  const path = peerpost.mailbox.log.path;
  const first = statSync(path).size;
  // 25 lines a hand edit (or a sync tool) broke.
  const broken = Array.from({ length: 25 }, (_, i) => `{"broken": ${i}\n`);
  appendFileSync(path, broken.join(""));
  const latest = first + broken.slice(0, -1).join("").length;
  await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "after", anticipation: "fyi" });
  const result = await collect(spawn(process.execPath, [CLI, "doctor", "--json"], { env: cliEnv(temp), stdio: ["ignore", "pipe", "pipe"] }));
  const notes = (JSON.parse(result.stdout) as { notes: string[] }).notes;
  const corrupt = notes.find((note) => note.startsWith("mailbox: 25 line(s)"));
  assert.ok(corrupt, JSON.stringify(notes));
  // Whichever line it names, its offset is that line's.
  const named = /(first|latest) at byte (\d+):/.exec(corrupt);
  assert.ok(named, corrupt);
  assert.equal(Number(named[2]), named[1] === "first" ? first : latest, corrupt);
});
