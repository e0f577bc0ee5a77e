// A server started from any shell with a host's session variable (Copilot's COPILOT_AGENT_SESSION_ID,
// Grok's GROK_SESSION_ID, or Codex's _meta), or with PEERPOST_ADDRESS, naming another live session does not
// run under that session's host: it serves a claim, unverified, and read, wait, status and reply refuse it
// (docs/security.md).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { CLI, connect } from "./helpers/mcp.js";
import { openPeerpost } from "../core/peerpost.js";
import { hostStartField } from "../core/sessions/process-tree.js";

for (const [host, kind, variable] of [["copilot", "copilot", "COPILOT_AGENT_SESSION_ID"], ["grok", "grok", "GROK_SESSION_ID"], ["codex", "codex", "_meta.threadId"], ["claude-code", "claude", "PEERPOST_ADDRESS"]] as const) {
  test(`${host}: ${variable} naming another live session is a claim, not a verified identity`, async (t) => {
    const home = tempDir(t);
    const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "pat" };
    // The victim's own host: a live process the registry places the session with.
    const victimHost = spawn("sleep", ["300"], { stdio: "ignore" });
    onCleanup(t, () => victimHost.kill());
    const victim = "victim-session-1";
    await openPeerpost({ env, home }).sessions.register({ host, address: `${kind}:${victim}`, sessionId: victim, source: "startup", hostPid: victimHost.pid!, ...hostStartField(victimHost.pid!) });

    const peer = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:peer" });
    assert.equal((await peer.call("message", { to: `${kind}:${victim}`, message: "for the victim only" })).ok, true);

    // An agent's shell anywhere (no host process of the victim above it) starts its own server naming the victim.
    const viaMeta = variable.startsWith("_meta");
    const named = variable === "PEERPOST_ADDRESS" ? `${kind}:${victim}` : victim;
    const spoof = await connect(t, viaMeta ? env : { ...env, [variable]: named }, CLI, ["serve", "--host", host]);
    const meta = viaMeta ? { threadId: victim } : undefined;
    const health = (await spoof.call("health", {}, meta)) as { identity: { address: string; verified: boolean } };
    assert.equal(health.identity.address, `${kind}:${victim}`);
    const read = (await spoof.call("read", {}, meta)) as { messages?: Array<{ envelope: string }>; error?: { code: string; details?: { reason?: string } } };
    const leaked = (read.messages ?? []).some((message) => message.envelope.includes("for the victim only"));
    await spoof.call("message", { to: "codex:peer", message: "I am the victim" }, meta);
    const got = (await peer.call("read")) as { messages: Array<{ from: string; fromVerified: boolean }> };
    assert.deepEqual(got.messages.map((message) => [message.from, message.fromVerified]), [[`${kind}:${victim}`, false]], "the spoofed send is not marked verified");
    assert.equal(health.identity.verified, false, "a second server naming a session another live host holds is unverified");
    assert.ok(!leaked, "the spoofing server must not read the victim's mail");
    assert.equal(read.error?.details?.reason, "claimed_identity", JSON.stringify(read));
  });
}
