// Forks without a host CLI: a fork whose runner died is finished by the sweeper of a server that starts
// later (released as abandoned, its outcome sent back once as <fork … status="interrupted"/>); a host that
// cannot fork answers unsupported, naming what it lacks; bad settings are refused before anything is stored.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";
import { until } from "./helpers/poll.js";
import { openPeerpost } from "../core/peerpost.js";
import { idFactory } from "../core/common/ids.js";

test("a fork whose runner died is finished by a later server's sweeper: one interrupted answer to the original, kept", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  const store = () => openPeerpost({ env, home, create: true });
  const newId = await idFactory();
  const past = Date.now() - 3_600_000;
  const id = newId(past);
  // The claim and the fork's name were written; then the runner died (no outcome, deadline passed).
  await store().wakes.log.append([
    { v: 1, type: "wake", id, kind: "fork", address: "codex:original", host: "codex", sessionId: "original", cwd: home, messageIds: [], request: { from: "user:pat", fromVerified: false, anticipation: "reply", body: "try it" }, fork: { keep: false }, settings: { model: "gpt-fork" }, at: new Date(past).toISOString(), deadline: new Date(past + 1000).toISOString(), by: 999_999 },
    { v: 1, type: "wake-forked", id, address: "codex:forked-1", sessionId: "forked-1", at: new Date(past).toISOString() },
  ]);
  const first = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:watcher" });
  await until(() => store().wakes.fold().runs.get(id)?.reconciled !== undefined, 30_000, "the sweeper to reconcile the fork");
  const second = await connect(t, { ...env, PEERPOST_ADDRESS: "grok:other" });
  await second.call("health");
  await first.call("health");
  const run = store().wakes.fold().runs.get(id)!;
  assert.equal(run.ended?.outcome, "abandoned");
  const messages = Object.values(store().mailbox.view("codex:original").state.messages).filter((message) => message.to === "codex:original");
  assert.equal(messages.length, 1, "sent once, though two servers swept");
  assert.equal(messages[0]!.from, "codex:forked-1");
  const body = store().mailbox.body(messages[0]!);
  assert.match(body, /^<fork thread="codex:forked-1" model="gpt-fork" effort="default" status="interrupted"\/>/);
  assert.match(body, /kept for inspection/);
  assert.deepEqual(store().receipts.query({ kind: "fork" }).receipts.map((receipt) => receipt.tags?.[0]), ["status=interrupted"]);
});

test("fork: Copilot answers unsupported naming what it lacks; a bad effort and a non-session are refused; nothing is claimed", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const boss = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:boss" });
  const copilot = await connect(t, { ...env, PEERPOST_ADDRESS: "copilot:pilot" });
  const codex = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:coder" });
  for (const session of [boss, copilot, codex]) await session.call("health");
  const refused = await boss.call("fork", { address: "copilot:pilot", message: "try" });
  assert.equal((refused.error as { code: string }).code, "unsupported");
  assert.match((refused.error as { message: string }).message, /no fork: its --help lists no --fork-session/);
  const effort = await boss.call("fork", { address: "codex:coder", message: "try", effort: "ludicrous" });
  assert.equal((effort.error as { code: string }).code, "invalid_arguments");
  const person = await boss.call("fork", { address: "user:pat", message: "try" });
  assert.equal((person.error as { code: string }).code, "invalid_arguments");
  assert.equal(openPeerpost({ env, home })!.wakes.fold().runs.size, 0);
});
