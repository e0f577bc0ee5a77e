// A `user:` address nobody has used is a likely typo, and the sender is warned `unknown_person`. Every view
// keeps all role mail: only a message from or to the person makes it known, so role mail does not silence
// the warning.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tempPeerpost } from "./helpers/temp.js";
import { changeRole } from "../core/roles/roles.js";
import { recipientWarning, resolveRecipient } from "../core/sessions/recipients.js";

const A = "claude:alice";
const B = "codex:bob";

test("a typo'd user: address is still warned about after role mail exists", async (t) => {
  const { peerpost } = tempPeerpost(t, { PEERPOST_USER: "pat" });
  for (const [address, host] of [[A, "claude-code"], [B, "codex"]] as const)
    await peerpost.sessions.register({ host, address, sessionId: address.split(":")[1]!, source: "startup" });
  assert.equal(recipientWarning(await resolveRecipient(peerpost, "user:paat"))?.code, "unknown_person", "before any role mail");
  await changeRole(peerpost, { role: "reviewer", holder: B, by: "user:pat" });
  await peerpost.mailbox.send({ from: A, fromVerified: true, to: B, via: "role:reviewer", body: "review this", anticipation: "reply" });
  assert.equal(recipientWarning(await resolveRecipient(peerpost, "user:paat"))?.code, "unknown_person", "after one message to a role, user:paat is still nobody");
});
