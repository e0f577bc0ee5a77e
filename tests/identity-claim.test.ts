// A session cannot be taken from a host that still runs it: a SessionStart hook run from inside one host
// (an agent's shell tool) with another live session's id does not rebind that host's server, and a server
// that starts on such a claim serves it unverified, with the reason in `health`. A session whose host
// has ended moves to the host that resumes it, verified. After /clear a role names the session the process
// runs now; a host that got an ended session's pid serves its own session, not the ended one.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { fixturePath } from "./helpers/children.js";
import { REPO_ROOT, connect } from "./helpers/mcp.js";
import { until } from "./helpers/poll.js";
import { openPeerpost } from "../core/peerpost.js";
import { processStartTime } from "../core/sessions/process-tree.js";

const PLUGIN_DIR = join(REPO_ROOT, "dist", "claude-code");

interface FakeHost {
  call(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  pid(): number;
  stderr(): string;
  close(): Promise<void>;
}

/** A stand-in `claude` host with its own session, its hook and its peerpost server. */
async function fakeHost(t: TestContext, link: string, env: Record<string, string>, session: string, claim = ""): Promise<FakeHost> {
  const transport = new StdioClientTransport({ command: link, args: [fixturePath("claude-shell-host"), join(PLUGIN_DIR, "server.mjs"), join(PLUGIN_DIR, "hooks.cjs")], env: { ...env, HOST_SESSION: session, CLAIM_SESSION: claim }, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "claude-code", version: "2.1.332" });
  await client.connect(transport);
  onCleanup(t, () => client.close());
  return {
    call: async (name, args = {}) => ((await client.callTool({ name, arguments: args })).structuredContent ?? {}) as Record<string, unknown>,
    pid: () => transport.pid!,
    stderr: () => stderr,
    close: () => client.close(),
  };
}

/** A dir for a stand-in `claude` (node under that name, so process lookups take it for the host), with a home and a state dir in it. */
function claudeLink(t: TestContext, prefix: string) {
  const base = tempDir(t, prefix);
  const home = join(base, "home");
  mkdirSync(home);
  const link = join(base, "claude");
  symlinkSync(process.execPath, link);
  return { base, home, link, env: { PATH: process.env.PATH ?? "", HOME: home, PEERPOST_HOME: join(base, "state") } };
}

type Health = { identity: { address: string | null; verified: boolean; claim?: string; refusedClaim?: string }; warnings?: Array<{ code: string; message: string }> };

test("a hook run from one host's shell with another live session's id neither rebinds nor verifies; an ended session resumes verified", async (t) => {
  const { link, env } = claudeLink(t, "peerpost-claim-");
  const alice = randomUUID();
  const bob = randomUUID();

  const bobHost = await fakeHost(t, link, env, bob);
  const aliceHost = await fakeHost(t, link, env, alice, bob);
  assert.equal(((await aliceHost.call("health")) as Health).identity.address, `claude:${alice}`);
  assert.equal(((await bobHost.call("health")) as Health).identity.verified, true);
  const peer = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:peer" });
  await peer.call("message", { to: `claude:${bob}`, message: "for bob only" });

  // Alice's agent runs the hook from its shell, naming Bob's session.
  process.kill(aliceHost.pid(), "SIGUSR1");
  await until(() => aliceHost.stderr().includes(`hook ran: ${bob}`), 30_000, "the claim hook ran");
  assert.ok(aliceHost.stderr().includes(`hook ran: ${bob} printed ""`), `the claim learns nothing of Bob's mail: ${aliceHost.stderr()}`);
  const after = (await aliceHost.call("health")) as Health;
  assert.equal(after.identity.address, `claude:${alice}`, "the server still serves its own session");
  assert.equal(after.identity.verified, true);
  assert.match(after.identity.refusedClaim ?? "", new RegExp(`claude:${bob} was registered for host pid \\d+ .* while its own host \\(pid \\d+\\) was still running`));
  assert.ok(after.warnings?.some((warning) => warning.code === "identity_claimed"));
  const read = (await aliceHost.call("read")) as { messages?: Array<{ envelope: string }> };
  assert.ok(!(read.messages ?? []).some((message) => message.envelope.includes("for bob only")), "Alice does not read Bob's mail");
  const sent = (await aliceHost.call("message", { to: "codex:peer", message: "who am I?" })) as { ok: boolean };
  assert.equal(sent.ok, true);
  const inbox = (await peer.call("read")) as { messages: Array<{ from: string; fromVerified: boolean }> };
  assert.deepEqual(inbox.messages.map((message) => [message.from, message.fromVerified]), [[`claude:${alice}`, true]]);
  // Bob's own server and the registry still place Bob with his host.
  assert.equal(((await bobHost.call("health")) as Health).identity.address, `claude:${bob}`);
  const agents = (await peer.call("agents")) as { sessions: Array<{ address: string; alive: boolean }> };
  assert.ok(agents.sessions.some((session) => session.address === `claude:${bob}` && session.alive));

  // A new host whose own start names Bob's live session serves it, but unverified and saying why.
  const claimant = await fakeHost(t, link, env, bob);
  const claimed = (await claimant.call("health")) as Health;
  assert.equal(claimed.identity.address, `claude:${bob}`);
  assert.equal(claimed.identity.verified, false);
  assert.match(claimed.identity.claim ?? "", /while its own host \(pid \d+\) was still running/);
  assert.ok(claimed.warnings?.some((warning) => warning.code === "identity_claimed"));
  await claimant.call("message", { to: "codex:peer", message: "claimed send" });
  const second = (await peer.call("read")) as { messages: Array<{ from: string; fromVerified: boolean }> };
  assert.deepEqual(second.messages.map((message) => [message.from, message.fromVerified]), [[`claude:${bob}`, false]]);
  // It neither shows nor changes Bob's mail: read, wait, reply and status are refused, and Bob's hook still flags his message.
  for (const [tool, args] of [["read", {}], ["wait", { timeoutMs: 0 }], ["status", { messageId: "01JF3Q0M9C6R2S3T4V5W6X7Y8Z" }], ["reply", { messageId: "01JF3Q0M9C6R2S3T4V5W6X7Y8Z", resolution: "done" }], ["message", { to: "codex:peer", message: "and wait", waitForReply: true }]] as const) {
    const refused = (await claimant.call(tool, args)) as { ok: boolean; error?: { code: string; details?: { reason?: string } } };
    assert.equal(refused.error?.code, "permission_denied", `${tool}: ${JSON.stringify(refused)}`);
    assert.equal(refused.error?.details?.reason, "claimed_identity");
  }
  assert.equal(((await peer.call("read")) as { messages: unknown[] }).messages.length, 0, "the refused message with waitForReply was not sent");
  const bobsMail = (await bobHost.call("read")) as { messages: Array<{ envelope: string }> };
  assert.ok(bobsMail.messages.some((message) => message.envelope.includes("for bob only")), "Bob's mail is still unread for Bob");
  await claimant.close();

  // Once Bob's host has ended, resuming Bob elsewhere is an ordinary, verified move.
  await bobHost.close();
  await until(() => {
    try {
      process.kill(bobHost.pid(), 0);
      return false;
    } catch {
      return true;
    }
  }, 30_000, "Bob's host to end");
  const resumed = await fakeHost(t, link, env, bob);
  const health = (await resumed.call("health")) as Health;
  assert.equal(health.identity.address, `claude:${bob}`);
  assert.equal(health.identity.verified, true);
  assert.equal(health.identity.claim, undefined);
});

test("after /clear in a session started with PEERPOST_ROLES, role:<name> reaches the session the process runs now", async (t) => {
  const { link, env } = claudeLink(t, "peerpost-clear-");
  const before = randomUUID();
  const after = randomUUID();
  // The stand-in host runs the hook for `before`; on SIGUSR1 its child runs the hook again with `after` (as /clear does).
  const host = await fakeHost(t, link, { ...env, PEERPOST_ROLES: "reviewer" }, before, after);
  assert.equal(((await host.call("health")) as Health).identity.address, `claude:${before}`);
  process.kill(host.pid(), "SIGUSR1");
  await until(() => host.stderr().includes(`hook ran: ${after}`), 30_000, "the /clear hook ran");
  assert.equal(((await host.call("health")) as Health).identity.address, `claude:${after}`, "the server follows the host to its new session");

  const peer = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:peer" });
  const sent = (await peer.call("message", { to: "role:reviewer", message: "please review" })) as { ok?: boolean; to?: string; error?: { code: string; message: string } };
  assert.equal(sent.error, undefined, `role:reviewer is held once, by the session the process runs now: ${JSON.stringify(sent)}`);
  const read = (await host.call("read")) as { messages?: Array<{ envelope: string }> };
  assert.ok((read.messages ?? []).some((message) => message.envelope.includes("please review")), "the session the process runs now reads it");
});

test("a server whose host reuses an ended session's pid serves its own session, not the ended one", async (t) => {
  const { base, home, link, env } = claudeLink(t, "peerpost-pidreuse-");
  const go = join(base, "go");
  const ended = randomUUID();
  const mine = randomUUID();
  // A stand-in `claude` (its process name is `claude`) that starts the peerpost server as its child once told to.
  const host = `const { spawn } = require("node:child_process"); const { existsSync } = require("node:fs");
const wait = setInterval(() => { if (!existsSync(${JSON.stringify(go)})) return; clearInterval(wait);
  const child = spawn(process.execPath, [${JSON.stringify(join(REPO_ROOT, "dist", "claude-code", "server.mjs"))}], { stdio: "inherit" });
  child.on("exit", (code) => process.exit(code ?? 0)); process.on("SIGTERM", () => child.kill()); }, 20);`;
  const transport = new StdioClientTransport({ command: link, args: ["-e", host], env: { ...env, CLAUDE_CODE_SESSION_ID: mine }, stderr: "pipe" });
  const client = new Client({ name: "claude-code", version: "2.1.332" });
  const connected = client.connect(transport);
  onCleanup(t, () => client.close());
  await until(() => transport.pid !== null && transport.pid !== undefined, 10_000, "the host started");
  const pid = transport.pid!;
  const start = processStartTime(pid)!;
  // The ended session's host had this pid, but started at another time (the pid was reused since).
  const peerpost = openPeerpost({ env, home });
  onCleanup(t, () => peerpost.backend.close());
  await peerpost.sessions.register({ host: "claude-code", address: `claude:${ended}`, sessionId: ended, source: "startup", hostPid: pid, hostStart: Math.max(0, start - 5000), cwd: "/old/project" });
  assert.equal(peerpost.sessions.get(`claude:${ended}`)?.alive, false, "the ended session is not alive: its start time names another process");
  const peer = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:peer" });
  await peer.call("message", { to: `claude:${ended}`, message: "for the ended session only" });

  writeFileSync(go, "");
  await connected;
  const health = (await client.callTool({ name: "health", arguments: {} })).structuredContent as { identity: { address: string; verified: boolean } };
  const read = (await client.callTool({ name: "read", arguments: {} })).structuredContent as { messages?: Array<{ envelope: string }> };
  const agents = (await peer.call("agents")) as { sessions: Array<{ address: string; alive: boolean }> };
  assert.equal(health.identity.address, `claude:${mine}`, "the server serves the session its host runs (CLAUDE_CODE_SESSION_ID), not the reused pid's ended one");
  assert.ok(!(read.messages ?? []).some((message) => message.envelope.includes("for the ended session only")), "the new session does not read the ended session's mail");
  assert.ok(!agents.sessions.some((session) => session.address === `claude:${ended}` && session.alive), "the ended session is not shown running again");
});
