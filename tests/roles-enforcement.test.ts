// Role enforcement with real MCP servers and the CLI, on both stores: a role holder messaging another
// role holder by session address passes (off), is marked (warn) or is refused before anything is stored
// (enforce); role addresses and sessions without roles are never affected; health says where the value came from.
// The web view's send is held to the same rule.
import assert from "node:assert/strict";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { testEachBackend, type BackendEnv } from "./helpers/backends.js";
import { tempDir } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";
import { cli, json } from "./helpers/cli.js";
import { test } from "node:test";
import { cli as uiCli, registerSessions, startUi, uiEnv, write } from "./helpers/ui.js";

/** alice holds role:lead (run time), bob role:reviewer (run time), carol role:tester (PEERPOST_ROLES), dave none. */
async function team(t: TestContext, backend: BackendEnv, enforcement: string | undefined) {
  const home = tempDir(t);
  const env: Record<string, string> = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "pat", ...backend, ...(enforcement ? { PEERPOST_ROLE_ENFORCEMENT: enforcement } : {}) };
  const [alice, bob, carol, dave] = await Promise.all([
    connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" }),
    connect(t, { ...env, PEERPOST_ADDRESS: "codex:bob" }),
    connect(t, { ...env, PEERPOST_ADDRESS: "copilot:carol", PEERPOST_ROLES: "tester" }),
    connect(t, { ...env, PEERPOST_ADDRESS: "grok:dave" }),
  ]);
  for (const session of [alice, bob, carol, dave]) await session.call("health");
  for (const [role, holder] of [["lead", "claude:alice"], ["reviewer", "codex:bob"]] as const) {
    const set = await cli(env, "role", "set", role, holder, "--json");
    assert.equal(set.code, 0, set.stderr);
  }
  return { env, alice, bob, carol, dave };
}

const codes = (result: Record<string, unknown>) => ((result.warnings ?? []) as Array<{ code: string }>).map((warning) => warning.code);

testEachBackend("role enforcement off (the default): role holders message each other by address unmarked; health says default", async (t, backend) => {
  const { alice } = await team(t, backend, undefined);
  const sent = await alice.call("message", { to: "codex:bob", message: "direct" });
  assert.equal(sent.ok, true, JSON.stringify(sent));
  assert.ok(!codes(sent).includes("direct_coordination"));
  assert.deepEqual((await alice.call("health")).roles, { enforcement: "off", source: "default" });
  const receipts = (await alice.call("receipts", { kind: "send" })).receipts as Array<{ tags?: string[] }>;
  assert.equal(receipts[0]!.tags, undefined);
});

testEachBackend("role enforcement warn: direct coordination is sent with a direct_coordination warning and receipt tag; role addresses and role-less senders are unmarked", async (t, backend) => {
  const { env, alice, bob, carol, dave } = await team(t, backend, "warn");
  assert.deepEqual((await alice.call("health")).roles, { enforcement: "warn", source: "PEERPOST_ROLE_ENFORCEMENT" });
  const direct = await alice.call("message", { to: "codex:bob", message: "please look at PR 7", anticipation: "reply" });
  assert.equal(direct.ok, true, JSON.stringify(direct));
  assert.ok(codes(direct).includes("direct_coordination"), JSON.stringify(direct));
  const warning = (direct.warnings as Array<{ code: string; message: string }>).find((w) => w.code === "direct_coordination")!;
  assert.match(warning.message, /role:reviewer/);
  // A role taken from PEERPOST_ROLES counts too.
  assert.ok(codes(await carol.call("message", { to: "codex:bob", message: "from the tester" })).includes("direct_coordination"));
  // Through the role, or from a session without a role, or to one without: no mark.
  assert.ok(!codes(await alice.call("message", { to: "role:reviewer", message: "via the role" })).includes("direct_coordination"));
  assert.ok(!codes(await dave.call("message", { to: "codex:bob", message: "from nobody in particular" })).includes("direct_coordination"));
  assert.ok(!codes(await alice.call("message", { to: "grok:dave", message: "to nobody in particular" })).includes("direct_coordination"));
  const receipts = (await alice.call("receipts", { kind: "send", address: "claude:alice" })).receipts as Array<{ messageId: string; tags?: string[]; warnings: string[] }>;
  const tagged = receipts.filter((receipt) => receipt.tags?.includes("direct_coordination"));
  assert.deepEqual(tagged.map((receipt) => receipt.messageId), [direct.messageId]);
  assert.match(tagged[0]!.warnings.join(" "), /role:reviewer/);
  // The message itself arrived.
  const read = await bob.call("read");
  assert.ok((read.messages as Array<{ id: string }>).some((message) => message.id === direct.messageId));
  // The command line marks it the same way.
  const sent = await cli(env, "send", "--from", "claude:alice", "--to", "codex:bob", "--json", "from the shell");
  assert.equal(sent.code, 0, sent.stderr);
  assert.ok((json(sent).warnings as Array<{ code: string }>).some((w) => w.code === "direct_coordination"));
});

testEachBackend("role enforcement enforce: direct coordination is refused with permission_denied (role_address_required) and nothing is stored; the role address works", async (t, backend) => {
  const { env, alice, bob, carol, dave } = await team(t, backend, "enforce");
  const before = ((await bob.call("read", { unreadOnly: false })).messages as unknown[]).length;
  const receiptsBefore = ((await alice.call("receipts")).receipts as unknown[]).length;
  for (const [sender, label] of [[alice, "run-time role"], [carol, "PEERPOST_ROLES"]] as const) {
    const refused = await sender.call("message", { to: "codex:bob", message: "direct", anticipation: "reply", idempotencyKey: `k-${label}` });
    assert.equal(refused.ok, false, label);
    const error = refused.error as { code: string; details: { reason: string; use: string[] }; hint: string };
    assert.equal(error.code, "permission_denied");
    assert.equal(error.details.reason, "role_address_required");
    assert.deepEqual(error.details.use, ["role:reviewer"]);
    assert.match(error.hint, /role:reviewer/);
  }
  const shell = await cli(env, "send", "--from", "claude:alice", "--to", "codex:bob", "--json", "from the shell");
  assert.notEqual(shell.code, 0);
  assert.match(shell.stdout + shell.stderr, /role_address_required/);
  assert.equal(((await bob.call("read", { unreadOnly: false })).messages as unknown[]).length, before, "nothing reached bob");
  assert.equal(((await alice.call("receipts")).receipts as unknown[]).length, receiptsBefore, "no receipt was written");
  const viaRole = await alice.call("message", { to: "role:reviewer", message: "via the role" });
  assert.equal(viaRole.ok, true, JSON.stringify(viaRole));
  assert.equal(viaRole.to, "codex:bob");
  // Sessions without a role are unaffected, both ways.
  assert.equal((await dave.call("message", { to: "codex:bob", message: "hi" })).ok, true);
  assert.equal((await alice.call("message", { to: "grok:dave", message: "hi" })).ok, true);
  assert.deepEqual((await alice.call("health")).roles, { enforcement: "enforce", source: "PEERPOST_ROLE_ENFORCEMENT" });
});

test("under enforce, the web view refuses a role holder's direct message to another holder, as `peerpost send` does", async (t) => {
  const env = { ...uiEnv(t), PEERPOST_USER: "pat", PEERPOST_ROLE_ENFORCEMENT: "enforce" };
  const ui = await startUi(t, { env });
  await registerSessions(ui.store, "claude:alice", "codex:bob");
  // Pat leads; bob reviews.
  for (const [role, holder] of [["lead", "user:pat"], ["reviewer", "codex:bob"]] as const) assert.equal((await uiCli(env, "role", "set", role, holder)).code, 0);
  const viaCli = await uiCli(env, "send", "--to", "codex:bob", "--json", "review the patch");
  assert.notEqual(viaCli.code, 0, "the CLI refuses it");
  assert.match(viaCli.stdout + viaCli.stderr, /permission_denied/);
  const viaPage = await write(ui, "/api/send", { to: "codex:bob", body: "review the patch", anticipation: "action" });
  assert.equal(viaPage.status >= 400, true, `the page refuses it too; it answered ${viaPage.status} ${viaPage.body}`);
  assert.match(viaPage.body, /permission_denied/);
  assert.equal(ui.store.mailbox.inbox("codex:bob").length, 0, "nothing stored for bob");
});
