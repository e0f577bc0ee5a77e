// Input too large to echo or to read whole: a message id of megabytes is refused by its schema (echoed
// back four times, it made an answer past the client's 10 MiB line, and the session ended), and
// `send -` stops reading stdin once it holds more than a message may.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { CLI, connect } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { openPeerpost } from "../core/peerpost.js";

test("a message id of megabytes is refused with a small answer by every tool that takes one, and the session stays up", async (t) => {
  const home = tempDir(t);
  const alice = await connect(t, { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_ADDRESS: "claude:alice" });
  // 3 MB: under the server's own 10 MiB request limit.
  const huge = "x".repeat(3_000_000);
  for (const [tool, args] of [
    ["status", { messageId: huge }],
    ["reply", { messageId: huge, resolution: "done" }],
    ["wait", { messageId: huge, timeoutMs: 1 }],
    ["message", { to: "claude:alice", allowSelf: true, message: "hi", replyToMessageId: huge }],
  ] as const) {
    const result = await alice.raw(tool, args);
    assert.equal(result.isError, true, tool);
    assert.equal((result.structuredContent as { error: { code: string } }).error.code, "invalid_arguments", tool);
    assert.ok(JSON.stringify(result).length < 10_000, `${tool}: ${JSON.stringify(result).length} bytes`);
  }
  assert.equal((await alice.call("health")).ok, true, "the session is still connected");
});

test("send - refuses a body over the limit without reading all of stdin", async (t) => {
  const home = tempDir(t);
  const env = { PATH: "/usr/bin:/bin", HOME: home, PEERPOST_HOME: join(home, "state") };
  const store = openPeerpost({ env, home });
  await store.sessions.register({ host: "codex", address: "codex:bob", sessionId: "bob", source: "startup" });
  // Stdin that never ends (`yes | peerpost send -`, a device).
  const child = spawn("/bin/sh", ["-c", `exec "$0" "$1" send --to codex:bob --json - < /dev/zero`, process.execPath, CLI], { env, stdio: ["ignore", "pipe", "pipe"] });
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const result = await collect(child);
  clearTimeout(timer);
  assert.equal(result.signal, null, `killed after reading without bound: ${result.stderr.slice(0, 300)}`);
  assert.equal(result.code, 1, result.stderr.slice(0, 300));
  const error = (JSON.parse(result.stdout) as { error: { code: string; hint: string } }).error;
  assert.equal(error.code, "body_too_large");
  assert.match(error.hint, /put the long content in a file/);
  assert.deepEqual(store.mailbox.inbox("codex:bob"), [], "nothing was sent");
});

test("read of an inbox of large messages answers within the client's line, and what it could not show stays unread for the next read", async (t) => {
  const home = tempDir(t);
  const base = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const alice = await connect(t, { ...base, PEERPOST_ADDRESS: "claude:alice" });
  const bob = await connect(t, { ...base, PEERPOST_ADDRESS: "codex:bob" });
  await bob.call("health");
  // 20 messages (a read's default page) at the body limit, of quotes (as in code): each escapes to six times its size in its envelope.
  const body = '"'.repeat(64 * 1024);
  for (let i = 0; i < 20; i++) assert.equal((await alice.call("message", { to: "codex:bob", message: body })).ok, true);
  const seen = new Set<string>();
  for (let read = 0; read < 20 && seen.size < 20; read++) {
    const page = (await bob.raw("read", {})).structuredContent as { messages: Array<{ id: string }>; count: number; remainingUnread: number; markedRead: number };
    assert.ok(page.count >= 1 && page.count < 20, `read ${read} showed ${page.count}`);
    assert.equal(page.markedRead, page.count, "only what it showed is marked read");
    for (const message of page.messages) seen.add(message.id);
    assert.equal(seen.size + page.remainingUnread, 20, "every message is shown or still unread");
  }
  assert.equal(seen.size, 20);
});

test("an argument named as an object's own method (toString) is an unknown argument, and an empty idempotency key is refused by the CLI as by the tool", async (t) => {
  const home = tempDir(t);
  const env = { PATH: "/usr/bin:/bin", HOME: home, PEERPOST_HOME: join(home, "state") };
  const alice = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" });
  const result = await alice.raw("health", { toString: 1 });
  assert.equal(result.isError, true, JSON.stringify(result.structuredContent));
  assert.match(JSON.stringify(result.structuredContent), /Unknown argument: toString/);
  const store = openPeerpost({ env, home });
  await store.sessions.register({ host: "codex", address: "codex:bob", sessionId: "bob", source: "startup" });
  const sent = await collect(spawn(process.execPath, [CLI, "send", "--to", "codex:bob", "--idempotency-key", "", "--json", "hi"], { env, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(sent.code, 1, sent.stdout + sent.stderr);
  assert.equal((JSON.parse(sent.stdout) as { error: { code: string } }).error.code, "invalid_arguments");
  assert.deepEqual(store.mailbox.inbox("codex:bob"), []);
});
