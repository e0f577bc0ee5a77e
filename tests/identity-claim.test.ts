// A session cannot be taken from a host that still runs it: a SessionStart hook run from inside one host
// (an agent's shell tool) with another live session's id does not rebind that host's server, and a server
// that starts on such a claim serves it unverified, with the reason in `health`. A session whose host
// has ended moves to the host that resumes it, verified.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { fixturePath } from "./helpers/children.js";
import { REPO_ROOT, connect } from "./helpers/mcp.js";
import { until } from "./helpers/poll.js";

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

type Health = { identity: { address: string | null; verified: boolean; claim?: string; refusedClaim?: string }; warnings?: Array<{ code: string; message: string }> };

test("a hook run from one host's shell with another live session's id neither rebinds nor verifies; an ended session resumes verified", async (t) => {
  const base = tempDir(t, "peerpost-claim-");
  const home = join(base, "home");
  mkdirSync(home);
  const link = join(base, "claude");
  symlinkSync(process.execPath, link);
  const env = { PATH: process.env.PATH ?? "", HOME: home, PEERPOST_HOME: join(base, "state") };
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
