// The role fold through the real store, where the log's order decides: mail a stale writer addressed to
// a former holder goes to the current one, a former holder's late read or resolution does not count, the
// fold is the same in every view and after a restart, and snapshots from before roles are rebuilt.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempPeerpost } from "./helpers/temp.js";
import { changeRole, listRoles } from "../core/roles/roles.js";
import type { MailboxEvent } from "../core/records/schemas.js";

const A = "claude:alice";
const B = "codex:bob";
const C = "copilot:carol";

async function registered(t: Parameters<typeof tempPeerpost>[0]) {
  const store = tempPeerpost(t);
  for (const [address, host] of [[A, "claude-code"], [B, "codex"], [C, "copilot"]] as const)
    await store.peerpost.sessions.register({ host, address, sessionId: address.split(":")[1]!, source: "startup" });
  return store;
}

test("the log's order decides a role's mail, whatever a writer saw", async (t) => {
  const { peerpost, clock, reopen } = await registered(t);
  const { mailbox } = peerpost;
  await changeRole(peerpost, { role: "reviewer", holder: B, by: "user:pat" });
  const first = await mailbox.send({ from: A, fromVerified: true, to: "role:reviewer", via: "role:reviewer", body: "one", anticipation: "reply" });
  assert.equal(first.message.to, B);
  clock.now += 1000;
  await changeRole(peerpost, { role: "reviewer", holder: C, by: "user:pat" });
  // A writer that decided before the move appends after it: its read, resolution and message are judged by the log.
  const at = new Date(clock.now).toISOString();
  const stale: MailboxEvent[] = [
    { v: 1, type: "read", id: first.message.id, by: B, at },
    { v: 1, type: "resolved", id: first.message.id, resolution: "done", by: B, at },
    { v: 1, type: "msg", id: "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", from: A, fromVerified: true, to: B, via: "role:reviewer", sentAt: at, anticipation: "reply", conversationId: "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", hop: 1, body: "two" },
  ];
  await mailbox.log.append(stale);
  for (const scope of [A, B, C, "roles"]) {
    const state = mailbox.view(scope).state;
    assert.equal(state.messages[first.message.id]!.to, C, scope);
    assert.equal(state.messages[first.message.id]!.read, undefined, `${scope}: Bob's late read does not count for Carol`);
    assert.equal(state.messages[first.message.id]!.resolved, undefined, `${scope}: nor his late resolution`);
    assert.equal(state.messages["7ZZZZZZZZZZZZZZZZZZZZZZZZZ"]!.to, C, `${scope}: mail addressed to a former holder goes to the current one`);
  }
  assert.deepEqual(mailbox.inbox(C).map((entry) => entry.body), ["one", "two"]);
  assert.deepEqual(mailbox.inbox(B), []);
  // The same after a restart, from the saved snapshots.
  for (const scope of [A, C]) await mailbox.persist(mailbox.view(scope));
  const again = reopen();
  assert.deepEqual(again.mailbox.inbox(C).map((entry) => entry.body), ["one", "two"]);
  assert.equal(again.mailbox.view(C).cacheState, "loaded");
  assert.deepEqual(listRoles(again).map(({ role, holder, open }) => ({ role, holder, open })), [{ role: "reviewer", holder: C, open: 2 }]);
});

test("a view snapshot from before roles is rebuilt from the log, not trusted", async (t) => {
  const { peerpost, stateDir, reopen } = await registered(t);
  await peerpost.mailbox.send({ from: A, fromVerified: true, to: B, body: "hi" });
  await peerpost.mailbox.persist(peerpost.mailbox.view(B));
  const cacheDir = join(stateDir, "cache");
  const [file] = readdirSync(cacheDir);
  const snapshot = JSON.parse(readFileSync(join(cacheDir, file!), "utf8")) as { v: number; state: Record<string, unknown> };
  snapshot.v = 1;
  delete snapshot.state.roles;
  writeFileSync(join(cacheDir, file!), JSON.stringify(snapshot));
  const again = reopen();
  assert.equal(again.mailbox.view(B).cacheState, "invalid");
  assert.deepEqual(Object.keys(again.mailbox.view(B).state.roles), []);
  assert.equal(again.mailbox.inbox(B).length, 1);
});
