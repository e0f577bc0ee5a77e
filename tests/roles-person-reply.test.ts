// A person who held a role answers a request that has since followed the role to a session: the CLI's
// `reply` is refused with wrong_recipient naming the new holder (docs/tools.md), not with a usage error
// telling the person to pass --as the new holder's address (which would resolve its request in its name).
import { test } from "node:test";
import assert from "node:assert/strict";
import { cliEnv, tempPeerpost } from "./helpers/temp.js";
import { changeRole } from "../core/roles/roles.js";
import { cli, json } from "./helpers/cli.js";

const A = "claude:alice";
const B = "codex:bob";

test("a person's reply to a request that followed its role away is refused with wrong_recipient naming the new holder", async (t) => {
  const store = tempPeerpost(t, { PEERPOST_USER: "pat" });
  const { peerpost, clock } = store;
  for (const [address, host] of [[A, "claude-code"], [B, "codex"]] as const)
    await peerpost.sessions.register({ host, address, sessionId: address.split(":")[1]!, source: "startup" });
  await changeRole(peerpost, { role: "oncall", holder: "user:pat", by: "user:pat" });
  const { message } = await peerpost.mailbox.send({ from: A, fromVerified: true, to: "user:pat", via: "role:oncall", body: "is prod up?", anticipation: "reply" });
  clock.now += 1000;
  await changeRole(peerpost, { role: "oncall", holder: B, by: "user:pat" });
  const env = cliEnv(store, { PEERPOST_USER: "pat" });
  const result = await cli(env, "reply", message.id, "--reply", "yes", "--json");
  const out = result.stdout.trim() ? json(result) : {};
  const error = out.error as { code?: string; message?: string; hint?: string } | undefined;
  assert.equal(error?.code, "wrong_recipient", `exit ${result.code}; stdout ${result.stdout.trim()} stderr ${result.stderr.trim()}`);
  assert.match(error!.message!, /followed role:oncall to codex:bob/);
});
