// A database path that dies silently (no FIN, no RST: a NAT or firewall that dropped an idle connection, a
// laptop that changed networks, a proxy that hangs). A TCP proxy that stops forwarding on its open
// connections, keeping their sockets open, stands in for it:
// - a server whose LISTEN connection died that way stops vouching for this machine's mirror in followers/
//   (its heartbeat goes unanswered): prompt hooks connect again and find new mail;
// - a send over a pooled connection that died that way fails with state_io_error in bounded time (no
//   statement_timeout reaches an unreachable server: the query times out on this side) instead of hanging;
// - a wait over such a connection ends at its own timeout: it does not wait for the sync that goes first.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { createServer, connect as tcpConnect, type Socket } from "node:net";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { runHook } from "./helpers/hooks.js";
import { connect } from "./helpers/mcp.js";
import { mailFromAnotherMachine, NO_POSTGRES, testDatabase } from "./helpers/postgres.js";
import { openPeerpost } from "../core/peerpost.js";

/** A proxy to `target`; `freeze` makes its connections so far a black hole (open, nothing passes), as a NAT that forgot them. */
async function proxy(t: TestContext, target: URL) {
  const sockets: Socket[] = [];
  let generation = 0;
  const server = createServer((client) => {
    const mine = generation;
    const live = () => mine === generation;
    const upstream = tcpConnect(Number(target.port || 5432), target.hostname);
    sockets.push(client, upstream);
    client.on("data", (data) => void (live() && upstream.write(data)));
    upstream.on("data", (data) => void (live() && client.write(data)));
    client.on("error", () => undefined);
    upstream.on("error", () => undefined);
    client.on("close", () => void (live() && upstream.destroy()));
    upstream.on("close", () => void (live() && client.destroy()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    sockets.forEach((socket) => socket.destroy());
    server.close();
  });
  const via = new URL(target.toString());
  via.hostname = "127.0.0.1";
  via.port = String((server.address() as { port: number }).port);
  return { url: via.toString(), freeze: () => void generation++ };
}

function followed(stateDir: string): boolean {
  const dir = join(stateDir, "followers");
  return existsSync(dir) && readdirSync(dir).length > 0;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("a server whose LISTEN connection silently died stops vouching for the mirror, so prompt hooks still find new mail", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const { url: viaProxy, freeze } = await proxy(t, new URL(url));

  // This machine: a server following the database through the proxy.
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_STORE: viaProxy, PEERPOST_MIRROR_TRUST_MS: "3000" };
  const here = openPeerpost({ env, home, kind: "server" });
  const hook = (event: string, input: Record<string, unknown>) => runHook("claude-code", event, { session_id: "me", ...input }, env);
  const started = await hook("session-start", { cwd: "/work", hook_event_name: "SessionStart", source: "startup" });
  assert.equal(started.code, 0, started.stderr);
  const unfollow = here.backend.follow();
  t.after(async () => {
    unfollow();
    await here.backend.close({ wait: false });
  });
  for (let i = 0; i < 100 && !followed(stateDir); i++) await sleep(100);
  assert.ok(followed(stateDir), "the server follows the database");

  // The path to the database goes dead without a word; then another machine sends mail to claude:me.
  freeze();
  await mailFromAnotherMachine(t, url, "claude:me");

  // New connections get through (only the old ones were forgotten). 20 s later, well past
  // PEERPOST_MIRROR_TRUST_MS (3 s here), the prompt hook must have learned of the mail somehow.
  await sleep(20_000);
  const prompt = await hook("user-prompt", { hook_event_name: "UserPromptSubmit", prompt: "hi" });
  assert.match(prompt.stdout, /1 new message/, `20 s after its LISTEN connection died, the server still vouches for the mirror (followers/: ${followed(stateDir)}), which lacks the new mail, and the prompt hook says nothing: ${JSON.stringify(prompt.stdout)}`);
});

test("a send over a pooled connection that silently died fails with state_io_error in bounded time instead of hanging", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const { url: viaProxy, freeze } = await proxy(t, new URL(url));
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_STORE: viaProxy };
  const here = openPeerpost({ env, home, kind: "server" });
  t.after(() => here.backend.close({ wait: false }));
  const send = (body: string) => here.mailbox.send({ from: "claude:me", fromVerified: true, to: "codex:elsewhere", body, anticipation: "fyi" });
  await send("first, over a live path");

  // The path dies under the pool's idle connection; the next send takes that connection.
  freeze();
  const startedAt = Date.now();
  const outcome = await Promise.race([
    send("second").then(
      () => "stored",
      (error: { code?: string }) => `failed ${error.code}`,
    ),
    sleep(40_000).then(() => "still waiting"),
  ]);
  // The server's statement timeout is 15 s: a bounded failure (or a success on a new connection) is due well before 40 s.
  assert.ok(outcome === "stored" || outcome === "failed state_io_error", `the send neither failed state_io_error nor succeeded within 40 s (${outcome} after ${Date.now() - startedAt} ms): an MCP tool call that never returns`);
});

test("a wait over a pooled connection that silently died ends at its own timeout, not the query's", { timeout: 120_000 }, async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const { url: viaProxy, freeze } = await proxy(t, new URL(url));
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_STORE: viaProxy };
  const alice = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" });
  // Connections in the pool, as a server has after any call.
  await alice.call("message", { to: "codex:bob", message: "warm the pool" });
  await alice.call("read");
  freeze();
  const started = Date.now();
  const waited = await alice.call("wait", { from: "codex:bob", timeoutMs: 2000 });
  const took = Date.now() - started;
  assert.equal(waited.outcome, "timeout", JSON.stringify(waited));
  // Its sync alone would take the statement timeout plus 5 s (20 s for a server).
  assert.ok(took < 12_000, `a 2 s wait took ${took} ms`);
});

