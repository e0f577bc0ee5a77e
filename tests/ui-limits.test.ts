// The web view's server at its limits, against a real `peerpost ui` child: a write body past the limit is
// cut off at once; a refused write or API call is answered as the JSON the page reads; and past what a
// browser opens, more event streams are refused, not each given a state of its own; the bodies it keeps are
// bounded by their size.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { readFileSync } from "node:fs";
import { openPeerpost } from "../core/peerpost.js";
import { UiSource } from "../core/ui/source.js";
import { tempPeerpost } from "./helpers/temp.js";
import { registerSessions, request, startUi, uiEnv, write, type RunningUi } from "./helpers/ui.js";

/** Sends a write's headers and `bytes` of body, then nothing more; resolves with the status line if one comes within `waitMs`, else null. */
function stalledWrite(ui: RunningUi, framing: "content-length" | "chunked", bytes: number, waitMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect(ui.port, "127.0.0.1");
    let answer = "";
    const done = (value: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => done(answer ? answer.split("\r\n")[0]! : null), waitMs);
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
      if (answer.includes("\r\n")) done(answer.split("\r\n")[0]!);
    });
    socket.on("error", () => undefined);
    socket.on("connect", () => {
      const length = framing === "content-length" ? "Content-Length: 1073741824" : "Transfer-Encoding: chunked";
      socket.write(
        `POST /api/send HTTP/1.1\r\nHost: 127.0.0.1:${ui.port}\r\nContent-Type: application/json\r\nOrigin: http://127.0.0.1:${ui.port}\r\nX-Peerpost-Token: ${ui.token}\r\n${length}\r\n\r\n`,
      );
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      for (let sent = 0; sent < bytes; sent += chunk.length) socket.write(framing === "chunked" ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]) : chunk);
      // ...and then the client sends nothing more (a stalled or endless upload).
    });
  });
}

test("a write body over the limit is cut off with 413 as soon as it is over, not read to its end", async (t) => {
  const ui = await startUi(t, { args: ["--no-open", "--as", "user:person"] });
  // 1 GiB announced (or chunked without end), 1 MiB sent (twice the 512 KiB limit), then a stall.
  for (const framing of ["content-length", "chunked"] as const) {
    // The body never ends: an answer at all shows the server stopped reading. 15 s leaves room for a loaded machine.
    const status = await stalledWrite(ui, framing, 1024 * 1024, 15_000);
    assert.match(String(status), /^HTTP\/1\.1 413 /, `${framing}: a body already past the limit got no answer in 15 s (${status}); the server waits for the rest of it`);
  }
});

test("a write the guard refuses, or a write path that does not exist, is answered as JSON with an error code, as the page reads it", async (t) => {
  const ui = await startUi(t, { args: ["--no-open", "--as", "user:person"] });
  await registerSessions(ui.store, "claude:alice");
  const message = { to: "claude:alice", body: "hello" };
  const cases: Array<[string, Promise<{ status: number; headers: Record<string, unknown>; body: string }>]> = [
    // The page's token after `peerpost ui --port N` was restarted (a new token on the same origin).
    ["a stale token", write(ui, "/api/send", message, { "x-peerpost-token": "A".repeat(32) })],
    ["no token header", write(ui, "/api/send", message, { "x-peerpost-token": "" })],
    ["not JSON", write(ui, "/api/send", message, { "content-type": "text/plain" })],
    ["an unknown write", write(ui, "/api/nope", message)],
  ];
  for (const [what, answer] of cases) {
    const result = await answer;
    assert.ok(result.status >= 400, what);
    // The page's write() does `await response.json()` and shows `${error.code}: ${error.message}`.
    let parsed: { ok?: boolean; error?: { code?: string } } | undefined;
    try {
      parsed = JSON.parse(result.body) as typeof parsed;
    } catch (error) {
      assert.fail(`${what}: ${result.status} ${String(result.headers["content-type"])} ${JSON.stringify(result.body)} is not JSON; the page shows "failed: ${String(error)}"`);
    }
    assert.equal(parsed?.ok, false, what);
    assert.equal(typeof parsed?.error?.code, "string", `${what}: no error code`);
  }
});

test("event streams cannot grow the server without bound: past what a browser opens, more streams cost nothing", async (t) => {
  const env = uiEnv(t);
  // A mailbox the size the page folds (2,100 messages of 10 KB); "show more" pages ask for up to 1,000 conversations.
  const store = openPeerpost({ env, home: env.HOME! });
  await registerSessions(store, "claude:alice", "codex:bob");
  for (let i = 0; i < 2100; i++) await store.mailbox.send({ from: "claude:alice", fromVerified: false, to: "codex:bob", body: `${i} ${"b".repeat(10_000)}` });
  const ui = await startUi(t, { env });
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${ui.child.pid}/status`, "utf8"))![1]) / 1024;
  assert.equal((await request(ui.port, `/api/state?token=${ui.token}`)).status, 200);
  const sockets: Socket[] = [];
  t.after(() => sockets.forEach((socket) => socket.destroy()));
  /** Opens streams first..last, each with its own search (each matches every body); resolves once each was answered (a delta, or a refusal). */
  const open = (first: number, last: number) =>
    Promise.all(
      Array.from({ length: last - first + 1 }, (_, k) =>
        new Promise<void>((resolve, reject) => {
          const socket = connect(ui.port, "127.0.0.1");
          sockets.push(socket);
          let seen = "";
          socket.on("data", (chunk: Buffer) => {
            seen += chunk.toString("latin1").slice(0, 4096);
            if (seen.includes('"serial":') || /^HTTP\/1\.1 [45]/.test(seen)) resolve();
          });
          socket.on("error", reject);
          socket.on("connect", () => socket.write(`GET /events?token=${ui.token}&limit=1000&q=${"b".repeat(first + k)} HTTP/1.1\r\nHost: 127.0.0.1:${ui.port}\r\n\r\n`));
        }),
      ),
    );
  const before = rss();
  // As many as a browser's six connections to one origin allow, and some: what the page itself can cost.
  await open(1, 8);
  const eight = rss() - before;
  // Forty more, reading clients like the others.
  await open(9, 48);
  const all = rss() - before;
  assert.ok(all < 2 * eight + 100, `8 event streams grew the ui process by ${eight.toFixed(0)} MB, 48 by ${all.toFixed(0)} MB: every stream costs a state of its own, without a bound`);
  // The ones past the cap were told why, as JSON.
  const refused = await request(ui.port, `/events?token=${ui.token}`);
  assert.equal(refused.status, 503);
  assert.equal((JSON.parse(refused.body) as { error: { code: string } }).error.code, "unsupported");
});

test("the bodies the page keeps are bounded by their size, not only their count: long ones past a few MiB are read again when shown", async (t) => {
  const { peerpost } = tempPeerpost(t);
  const ids: string[] = [];
  // 200 bodies of 60 KiB: 12 MiB of text, far fewer than the count the cache keeps.
  for (let i = 0; i < 200; i++) ids.push((await peerpost.mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: `${i} ${"x".repeat(60 * 1024)}` })).message.id);
  const source = new UiSource(peerpost);
  const reads: string[] = [];
  const read = peerpost.mailbox.body.bind(peerpost.mailbox);
  peerpost.mailbox.body = (message) => (reads.push(message.id), read(message));
  const state = peerpost.mailbox.view("codex:b").state.messages;
  for (const id of ids) assert.ok(source.body(state[id]!).startsWith(`${ids.indexOf(id)} `));
  assert.equal(reads.length, 200);
  // The newest stay; the oldest were let go, and are read again from the log, whole.
  source.body(state[ids.at(-1)!]!);
  assert.equal(reads.length, 200, "the newest body is still kept");
  assert.ok(source.body(state[ids[0]!]!).startsWith("0 xxx"));
  assert.equal(reads.length, 201, "the oldest was let go: 12 MiB of bodies are not all kept");
});
