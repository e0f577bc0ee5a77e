// The override policy with real MCP servers and the CLI: who may set it, which senders it lets change a
// session's model, effort or working dir by message, what is refused before anything is stored, and
// that an allowed change persists with its expected cost and a receipt.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";
import { cli, json } from "./helpers/cli.js";
import { openPeerpost } from "../core/peerpost.js";

test("override policy: only allowed senders change settings; a cwd stays in the workspace; changes persist with their cost and a receipt", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_USER: "pat" };
  // bob (a Codex session) works in process.cwd() of its server: that directory is its workspace.
  const [alice, bob, carol] = await Promise.all([connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" }), connect(t, { ...env, PEERPOST_ADDRESS: "codex:bob" }), connect(t, { ...env, PEERPOST_ADDRESS: "grok:carol" })]);
  for (const session of [alice, bob, carol]) await session.call("health");
  const workspace = realpathSync(process.cwd());
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home });
  const count = () => Object.keys(store().mailbox.view("codex:bob").state.messages).length;

  // With no policy, nobody may change bob's settings; the message is not stored.
  const before = count();
  const refused = await alice.call("message", { to: "codex:bob", message: "switch please", settings: { model: "gpt-x" } });
  assert.equal((refused.error as { code: string; details: { reason: string } }).code, "permission_denied", JSON.stringify(refused));
  assert.equal((refused.error as { details: { reason: string } }).details.reason, "override_not_allowed");
  assert.equal(count(), before);

  // An agent sets only its own policy (or a role's it holds).
  const foreign = await alice.call("set_agent_override_policy", { target: "codex:bob", model: ["*"] });
  assert.equal((foreign.error as { details: { reason: string } }).details.reason, "not_own_target");
  const own = await bob.call("set_agent_override_policy", { target: "codex:bob", model: ["claude:alice"], effort: ["role:lead"] });
  assert.deepEqual(own.policy, { model: ["claude:alice"], effort: ["role:lead"] });
  // A person sets any: here, who may move bob's working dir.
  const person = await cli(env, "override-policy", "codex:bob", "--cwd", "claude:alice", "--json");
  assert.equal(person.code, 0, person.stderr);
  assert.deepEqual(json(person).policy, { model: ["claude:alice"], effort: ["role:lead"], cwd: ["claude:alice"] });

  // carol is not allowed the model; alice is not (yet) allowed the effort: role:lead is, and she gets it.
  assert.equal(((await carol.call("message", { to: "codex:bob", message: "x", settings: { model: "gpt-x" } })).error as { code: string }).code, "permission_denied");
  assert.equal(((await alice.call("message", { to: "codex:bob", message: "x", settings: { effort: "high" } })).error as { code: string }).code, "permission_denied");
  assert.equal((await cli(env, "role", "set", "lead", "claude:alice")).code, 0);
  // A bad effort word for Codex, and a cwd outside the workspace (also through a symlink): refused.
  assert.equal(((await alice.call("message", { to: "codex:bob", message: "x", settings: { effort: "ludicrous" } })).error as { code: string }).code, "invalid_arguments");
  const outside = await alice.call("message", { to: "codex:bob", message: "x", settings: { cwd: home } });
  assert.equal((outside.error as { details: { reason: string } }).details.reason, "cwd_outside_workspace", JSON.stringify(outside));
  const link = join(workspace, ".build", `override-link-${process.pid}`);
  mkdirSync(join(workspace, ".build"), { recursive: true });
  symlinkSync(home, link);
  t.after(() => rmSync(link, { force: true }));
  assert.equal(((await alice.call("message", { to: "codex:bob", message: "x", settings: { cwd: link } })).error as { details: { reason: string } }).details.reason, "cwd_outside_workspace");
  // Settings to a host that cannot change them: Grok keeps its sessions per directory.
  assert.equal((await carol.call("set_agent_override_policy", { target: "grok:carol", cwd: ["*"] })).ok, true);
  assert.equal(((await alice.call("message", { to: "grok:carol", message: "x", settings: { cwd: workspace } })).error as { code: string }).code, "unsupported");
  assert.equal(count(), before, "nothing refused was stored");

  const inside = join(workspace, "tests");
  const allowed = await alice.call("message", { to: "codex:bob", message: "use gpt-x, think harder, work in tests/", settings: { model: "gpt-x", effort: "high", cwd: inside } });
  assert.equal(allowed.ok, true, JSON.stringify(allowed));
  const settings = allowed.settings as { applied: Record<string, string>; expectedCost: string[] };
  assert.deepEqual(settings.applied, { model: "gpt-x", effort: "high", cwd: inside });
  assert.match(settings.expectedCost.join("\n"), /without the prompt cache/);
  assert.equal(count(), before + 1);
  const receipt = store().receipts.query({ kind: "settings" }).receipts[0]!;
  assert.equal(receipt.messageId, allowed.messageId);
  assert.deepEqual(receipt.tags?.slice(0, 2), ["model=gpt-x", "effort=high"]);
  // Persisted: a later change merges with it.
  const { sessionOverrides } = await import("../core/wake/overrides.js");
  assert.deepEqual({ ...sessionOverrides(stateDir, "codex:bob"), at: undefined }, { model: "gpt-x", effort: "high", cwd: inside, workspace, by: "claude:alice", at: undefined });
});
