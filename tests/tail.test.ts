// `peerpost tail` as a person watches it: what each line says, where a tail starts on a mailbox that ends in a
// torn line, and Ctrl-C while it is still printing a large archive.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, closeSync, constants, openSync, readSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { monotonicFactory } from "ulid";
import { onCleanup, tempPeerpost, cliEnv } from "./helpers/temp.js";
import { until } from "./helpers/poll.js";
import { CLI } from "./helpers/mcp.js";
import { mkfifoSync } from "./helpers/fifo.js";
import { liveTail } from "./helpers/tail.js";
import { holdsOpen } from "./helpers/children.js";
import { claimPaths, releasePaths } from "../core/claims/claims.js";
import { createTask, updateTask } from "../core/tasks/tasks.js";

test("tail says who claimed which paths, which task went to which status, and cuts a preview between characters", async (t) => {
  const temp = tempPeerpost(t);
  const { peerpost } = temp;
  const cwd = dirname(peerpost.stateDir.path);
  await claimPaths(peerpost, { holder: "claude:a", cwd, paths: ["src/parser.ts"], ttl: "1h" });
  await releasePaths(peerpost, { by: "claude:a", cwd, paths: ["src/parser.ts"] });
  const task = await createTask(peerpost, { by: "claude:a", title: "Fix the flaky build" });
  await updateTask(peerpost, { id: task.id, by: "codex:b", status: "in_progress" });
  await updateTask(peerpost, { id: task.id, by: "codex:b", status: "failed" });
  // An emoji across the preview's cut: shown whole or not at all, never as an escaped half (the form that marks a hidden character).
  await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: `${"a".repeat(118)}😀 and the rest of a long message` });
  const tail = liveTail(t, cliEnv(temp), ["--from-start"]);
  const lines = () => tail.out.printed.split("\n").filter(Boolean);
  // The emoji's message is the last event: once it is printed, every one before it is.
  await until(() => lines().some((line) => line.includes("a".repeat(40))), 10_000, "the tail to print the last message");
  await tail.stop();
  const of = (kind: string) => lines().filter((line) => line.includes(`  ${kind} `));
  assert.match(of("claim").join("\n"), /claude:a exclusive .*: src\/parser\.ts until /, tail.out.printed);
  assert.match(of("release").join("\n"), /claude:a .*: src\/parser\.ts released by claude:a/, tail.out.printed);
  assert.match(of("task").join("\n"), /"Fix the flaky build" by claude:a/, tail.out.printed);
  assert.deepEqual(of("task_status").map((line) => line.replace(/^.*  task_status /, "")), [`${task.id} in_progress by codex:b`, `${task.id} failed by codex:b`]);
  assert.doesNotMatch(of("msg").join("\n"), /⟨U\+D[89A-F][0-9A-F]{2}⟩/, tail.out.printed);
});

test("a tail started on a mailbox that ends in a torn line shows the next message once", async (t) => {
  const temp = tempPeerpost(t);
  const { peerpost } = temp;
  await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "before" });
  // A writer killed mid-line: the next send closes the fragment off and writes its line again (log.ts).
  appendFileSync(peerpost.mailbox.log.path, '{"v":1,"type":"msg","id":"01M');
  const tail = liveTail(t, cliEnv(temp), ["--json"]);
  // Once the tail holds the mailbox open, it has taken its starting offset.
  await until(() => holdsOpen(tail.child.pid!, peerpost.mailbox.log.path), 10_000, "the tail to open the mailbox");
  await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "after the torn line" });
  await until(() => tail.bodies(/after the torn line/).length > 0, 10_000, "the tail to show the message");
  // A few polls more (every 500 ms, or on a change of the state dir).
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  assert.equal(tail.bodies(/after the torn line/).length, 1, tail.out.printed);
  await tail.stop();
});

test("Ctrl-C stops tail --from-start while it is still printing the archive to a slow reader", { timeout: 60_000 }, async (t) => {
  const temp = tempPeerpost(t);
  await temp.peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: "live" });
  // An archive of finished mail, as compaction leaves it: 30,000 messages, about 13 MB.
  const archived = 30_000;
  const newId = monotonicFactory();
  const start = Date.parse("2026-01-01T00:00:00Z");
  const fd = openSync(join(temp.stateDir, "mailbox.archive.jsonl"), "a", 0o600);
  const lines: string[] = [];
  for (let i = 0; i < archived; i++) {
    const id = newId(start + i * 1000);
    lines.push(JSON.stringify({ v: 1, type: "msg", id, from: "claude:a", fromVerified: true, to: "codex:b", sentAt: new Date(start + i * 1000).toISOString(), anticipation: "fyi", conversationId: id, hop: 1, body: `archived ${i} `.padEnd(300, ".") }));
  }
  writeSync(fd, lines.join("\n") + "\n");
  closeSync(fd);
  // stdout is a pipe, as a pager reads it: written synchronously, so a slow reader holds the tail back.
  const fifo = join(temp.home, "out.fifo");
  mkfifoSync(fifo);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(fifo, constants.O_WRONLY);
  const child = spawn(process.execPath, [CLI, "tail", "--from-start"], { env: cliEnv(temp), stdio: ["ignore", writer, "pipe"] });
  closeSync(writer);
  onCleanup(t, () => child.kill("SIGKILL"));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const buffer = Buffer.alloc(1 << 16);
  const read = (): number | undefined => {
    try {
      return readSync(reader, buffer, 0, buffer.length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EAGAIN") return undefined;
      throw error;
    }
  };
  // The first lines arrive; then the reader is busy for a moment while Ctrl-C is pressed.
  while (read() === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
  await new Promise((resolve) => setTimeout(resolve, 500));
  child.kill("SIGINT");
  await new Promise((resolve) => setTimeout(resolve, 500));
  let printedAfter = 0;
  for (;;) {
    const got = read();
    if (got === 0) break;
    if (got === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    else printedAfter += buffer.subarray(0, got).toString("latin1").split("\n").length - 1;
  }
  closeSync(reader);
  await exited;
  assert.ok(printedAfter < archived / 2, `after Ctrl-C tail went on to print ${printedAfter} more of the ${archived} archived lines`);
});
