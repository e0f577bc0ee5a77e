// The reply socket's path limit is in bytes (107 on Linux), not UTF-16 characters: a state dir with
// non-ASCII letters (a Cyrillic or CJK user or project name) still gets a working reply socket.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { ReplySockets, replyDir } from "../plugins/claude-code/inbox/replies.js";

test("a state dir whose path is short in characters but long in bytes still gets a reply socket that receives answers", async (t) => {
  const stateDir = join(tempDir(t), "д".repeat(16), "state");
  mkdirSync(stateDir, { recursive: true });
  const frames: Array<[string, Record<string, unknown>]> = [];
  const sockets = new ReplySockets(replyDir(stateDir), (id, frame) => frames.push([id, frame]));
  t.after(() => sockets.closeAll());
  const id = "01JAAAAAAAAAAAAAAAAAAAAAAA";
  let path: string;
  try {
    path = await sockets.bind(id);
  } catch (error) {
    assert.fail(`binding the reply socket failed for state dir ${stateDir} (${Buffer.byteLength(join(replyDir(stateDir), `${id}.sock`))} bytes): ${(error as Error).message}`);
  }
  assert.ok(Buffer.byteLength(path) <= 107, `the socket path is ${Buffer.byteLength(path)} bytes: ${path}`);
  await new Promise<void>((resolve, reject) => {
    const client = connect({ path }, () => client.end(`${JSON.stringify({ type: "user", message: { role: "user", content: "hi" } })}\n`));
    client.on("error", reject);
    client.on("close", () => resolve());
  });
  for (let tries = 0; tries < 50 && frames.length === 0; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(frames.length, 1);
});
