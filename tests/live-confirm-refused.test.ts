// What `message` tells the sender of a request to a session under `peerpost run` (or in tmux) when the
// typing is refused after the push loop claimed the message: the person pressed a key between the loop's
// first look at their input line and the delivery's second look. Nothing is typed, the claim is given
// back and the receipt says `failed`; the sender is not told `delivery: "delivered"`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tempPeerpost, onCleanup } from "./helpers/temp.js";
import { until } from "./helpers/poll.js";
import { InputLine } from "../core/live/keystrokes.js";
import { KeyRelay } from "../core/live/key-relay.js";
import { PtyPush } from "../core/live/pty.js";
import { PushLoop } from "../core/server/push.js";
import { awaitLiveOutcome } from "../core/live/confirm.js";

test("a request whose typing was refused after its claim (the person started typing) is not reported to its sender as delivered", async (t) => {
  const { peerpost } = tempPeerpost(t, { PEERPOST_PUSH_CONFIRM_MS: "3000" });
  peerpost.config.now = Date.now;
  const address = "codex:wrapped";
  const written: string[] = [];
  const input = new InputLine();
  const relay = new KeyRelay(input, (text) => written.push(`person:${text}`));
  // The person's first key arrives just as the delivery takes hold of the keys: after the loop's look, before the delivery's.
  let typed = false;
  const terminal = {
    pid: process.pid,
    write: (data: string) => void written.push(data),
    bracketedPaste: () => true,
    holdKeys: () => {
      if (!typed) relay.keys(Buffer.from("h"));
      typed = true;
      return relay.hold();
    },
  };
  const loop = new PushLoop(peerpost, new PtyPush(peerpost, "codex", terminal, input), "codex");
  onCleanup(t, () => loop.stop());
  loop.start({ address, sessionId: "wrapped", source: "registry", detail: "test", verified: false });
  const { message } = await peerpost.mailbox.send({ from: "claude:asker", fromVerified: true, to: address, body: "a request", anticipation: "reply" });
  // What the `message` tool waits for, for a session whose registry entry says push: pty.
  const outcome = await awaitLiveOutcome(peerpost, message, "pty");
  await until(() => peerpost.receipts.query({ kind: "push", address, limit: 10 }).receipts.some((receipt) => receipt.messageId === message.id), 10_000, "the push receipt");
  const receipt = peerpost.receipts.query({ kind: "push", address, limit: 10 }).receipts.find((r) => r.messageId === message.id);
  assert.deepEqual(written, ["person:h"], "nothing was typed: the person's line was not empty");
  assert.equal(receipt?.delivery, "failed");
  assert.equal(peerpost.mailbox.view(address).state.messages[message.id]?.delivered, undefined, "the claim was given back");
  assert.ok(outcome === undefined || !("delivered" in outcome), `the sender is told ${JSON.stringify(outcome)}: delivery "delivered" via pty, for a request that was never typed`);
});
